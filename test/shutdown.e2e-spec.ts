import assert from 'node:assert/strict';
import { connect, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { databaseOptions } from '../src/database/database-options';
import { basic } from './support/test-app';
import { createTestDatabase, TEST_DB, TestDatabase } from './support/test-db';
import { eventsSince, logMarks } from './support/log-events';
import { ServiceProcess, spawnService } from './support/service-process';

const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

/** SPEC §1: SIGTERM stops accepting, lets requests in flight finish, flushes batched writes and exits 0. */
describe(`SIGTERM (${TEST_DB})`, () => {
  let db: TestDatabase;
  let node: ServiceProcess;
  let socket: Socket | undefined;
  const admin = basic('admin', 'Shutdown-admin-1');
  before(async () => {
    db = await createTestDatabase();
    node = await spawnService({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD: 'Shutdown-admin-1', SECRET_KEY: 'shutdown-secret-key-0123456789abcdefghijklmn' });
  });
  after(async () => {
    socket?.destroy();
    await node?.stop();
    await db.drop();
  });

  it('finishes the request in flight, flushes last_used, closes the pool and exits 0', async () => {
    const created = await request(node.url).post('/api/v2/tokens/').set('Authorization', admin).send({ description: 'flushed at exit' }).expect(201);
    await request(node.url).get('/api/v2/me/').set('Authorization', `Bearer ${created.body.token}`).expect(200);

    // The request in flight, made so without a race: its head asks `Expect: 100-continue`, so the server
    // answers "100 Continue" only once it has parsed the head and routed the request; its body is sent only
    // after the shutdown has begun (the service logged it), so the server must wait for it while closing.
    const { hostname, port } = new URL(node.url);
    const body = JSON.stringify({ description: 'created while stopping' });
    let answer = '';
    socket = connect(Number(port), hostname);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise<void>((resolve) => socket!.once('close', () => resolve()));
    const continued = new Promise<void>((resolve) => socket!.once('data', () => resolve()));
    socket.write(
      [
        'POST /api/v2/tokens/ HTTP/1.1',
        `Host: ${hostname}:${port}`,
        `Authorization: ${admin}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Expect: 100-continue',
        'Connection: close',
        '',
        '',
      ].join('\r\n'),
    );
    await continued;
    assert.equal(answer, CONTINUE, 'the server routed the request and waits for its body');

    const exited = new Promise<number | null>((resolve) => node.child.once('exit', (code) => resolve(code)));
    const mark = logMarks([node]);
    node.child.kill('SIGTERM');
    const { shutdown } = await eventsSince([node], mark, ['shutdown'], 1);
    assert.equal(shutdown, 1, 'the service logged its shutdown');
    assert.match(node.output.join(''), /"event":"shutdown","signal":"SIGTERM"/);
    // The server is closing; the request it had already routed still gets its answer.
    socket.write(body);
    await closed;
    const final = answer.slice(CONTINUE.length);
    assert.match(final, /^HTTP\/1\.1 201 /, `the request in flight was answered: ${final.split('\r\n')[0]}`);
    const token = JSON.parse(final.slice(final.indexOf('\r\n\r\n') + 4)) as { description: string };
    assert.equal(token.description, 'created while stopping');
    assert.equal(await exited, 0, 'the process exits 0');

    const reader = await new DataSource({ ...databaseOptions(db.url), migrations: [] } as never).initialize();
    try {
      const [row] = await reader.query('SELECT last_used FROM oauth2_access_token WHERE id = ?', [created.body.id]);
      assert.notEqual(row.last_used, null, 'the buffered last_used stamp was written before exit');
      const [made] = await reader.query('SELECT COUNT(1) AS n FROM oauth2_access_token WHERE description = ?', ['created while stopping']);
      assert.equal(Number(made.n), 1, 'the answered request was committed before the pool closed');
    } finally {
      await reader.destroy();
    }
  });
});
