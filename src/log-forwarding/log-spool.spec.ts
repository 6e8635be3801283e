import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LogSpool } from './log-spool';

describe('LogSpool (SPEC §23: the folder of records that wait)', () => {
  const root = mkdtempSync(join(tmpdir(), 'spool-spec-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('gives records back oldest first, a shutdown\'s memory before what was spooled, within its byte bound', () => {
    const spool = new LogSpool(join(root, 'node-a-100'));
    for (let i = 0; i < 1500; i++) assert.ok(spool.append(`{"n":${i}}`, 1 << 20));
    assert.ok(spool.prepend(['{"n":"m1"}', '{"n":"m2"}']));
    assert.equal(spool.records, 1502);
    const taken: string[] = [];
    for (let batch = spool.takeOldest(); batch.length; batch = spool.takeOldest()) taken.push(...batch);
    assert.deepEqual(taken.slice(0, 3), ['{"n":"m1"}', '{"n":"m2"}', '{"n":0}']);
    assert.equal(taken.at(-1), '{"n":1499}');
    assert.equal(taken.length, 1502);
    assert.equal(spool.bytes, 0);
    assert.deepEqual(readdirSync(spool.folder), []);
    // The bound counts each record's bytes and its LF.
    assert.ok(spool.append('12345', 11));
    assert.ok(!spool.append('12345', 11));
  });

  it('takes over the folders of its node\'s ended processes before its own records, and leaves running ones and other nodes alone', () => {
    const shared = join(root, 'shared');
    const ended = new LogSpool(join(shared, 'node-a-200'));
    ended.append('{"from":"ended-1"}', 1 << 20);
    ended.append('{"from":"ended-2"}', 1 << 20);
    const running = new LogSpool(join(shared, 'node-a-300'));
    running.append('{"from":"running"}', 1 << 20);
    const other = new LogSpool(join(shared, 'node-b-200'));
    other.append('{"from":"other-node"}', 1 << 20);
    mkdirSync(join(shared, 'unrelated'));
    writeFileSync(join(shared, 'unrelated', 'x'), 'x');

    const mine = new LogSpool(join(shared, 'node-a-400'));
    mine.append('{"from":"mine"}', 1 << 20);
    assert.equal(mine.adoptEnded(shared, 'node-a', (pid) => pid === 300 || pid === 400), 2);
    assert.deepEqual(mine.takeOldest(), ['{"from":"ended-1"}', '{"from":"ended-2"}']);
    assert.deepEqual(mine.takeOldest(), ['{"from":"mine"}']);
    assert.deepEqual(readdirSync(shared).sort(), ['node-a-300', 'node-a-400', 'node-b-200', 'unrelated']);
  });

  it('reads what an earlier process with its own pid left (a container\'s pid 1) as its oldest records', () => {
    const folder = join(root, 'node-c-1');
    new LogSpool(folder).append('{"left":1}', 1 << 20);
    const next = new LogSpool(folder);
    next.prepare();
    assert.equal(next.records, 1);
    next.append('{"new":1}', 1 << 20);
    assert.deepEqual(next.takeOldest(), ['{"left":1}', '{"new":1}']);
  });

  it('refuses, rather than throws, when the folder cannot be made', () => {
    writeFileSync(join(root, 'file'), 'x');
    const spool = new LogSpool(join(root, 'file', 'node-1'));
    assert.equal(spool.append('{}', 1 << 20), false);
    assert.equal(spool.prepend(['{}']), false);
  });
});
