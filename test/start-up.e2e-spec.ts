import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createConnection } from 'mysql2/promise';
import { LEASE, SERVICE_LOCK_TABLE } from '../src/database/migration-runner';
import { MAIN, spawnService } from './support/service-process';
import { createTestDatabase, TEST_DB } from './support/test-db';

/**
 * Issue 34: starting against a database the service cannot use. Errors no retry fixes end the start at
 * once with one line naming DATABASE_URL (password masked) and the cause, exit status 2; a refused
 * connection is retried with one short JSON line per attempt, never a stack trace.
 */
const MYSQL = process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306';
const dir = mkdtempSync(join(tmpdir(), 'svc-start-'));
// At the file's end, not the suite's: a skipped suite runs no hook, and the folder is made either way.
after(() => rmSync(dir, { recursive: true, force: true }));
const env = (url: string) => ({ PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, DATABASE_URL: url, LOG_LEVEL: 'info' });

describe('start-up against a database it cannot use (issue 34)', { skip: TEST_DB !== 'mysql' ? 'uses the MariaDB server of the mysql half' : false }, () => {
  it('fails at once, exit status 2, naming DATABASE_URL and the cause, for errors no retry fixes', () => {
    const host = new URL(MYSQL);
    const cases: [string, RegExp][] = [
      [`mysql://nobody:s3cret@${host.host}/test`, /^automation-service: cannot use the database at DATABASE_URL=mysql:\/\/nobody:\*\*\*@127\.0\.0\.1:\d+\/test: access denied \(user or password\) \(ER_ACCESS_DENIED/],
      [`${MYSQL}/no_such_database_here`, /^automation-service: cannot use the database at DATABASE_URL=mysql:\/\/root@127\.0\.0\.1:\d+\/no_such_database_here: unknown database \(ER_BAD_DB_ERROR\)$/],
      ['mysql://root@no-such-host.invalid:3306/x', /^automation-service: cannot use the database at DATABASE_URL=mysql:\/\/root@no-such-host\.invalid:3306\/x: host not found \(ENOTFOUND\)$/],
    ];
    for (const [url, line] of cases) {
      const run = spawnSync(process.execPath, [MAIN], { env: env(url), encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.status, 2, `${url}: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr.trim(), line);
      assert.doesNotMatch(run.stdout + run.stderr, /s3cret|\bat [\w.<>]+ \(|"stack"/, 'no password, no stack trace');
    }
  });

  it('retries a refused connection with one short line per attempt', async () => {
    const child = spawn(process.execPath, [MAIN], { env: env('mysql://svc:s3cret@127.0.0.1:1/x'), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (out.match(/"event":"database_unreachable"/g) ?? []).length < 2) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGKILL');
    const lines = out.split('\n').filter((l) => l.includes('database_unreachable')).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(lines.length >= 2, out);
    assert.deepEqual(
      { ...lines[0], time: undefined },
      { time: undefined, level: 'warn', logger: 'database', event: 'database_unreachable', database: 'mysql://svc:***@127.0.0.1:1/x', error: 'connection refused (ECONNREFUSED)', attempt: 1, retry_in_s: 1 },
    );
    assert.doesNotMatch(out, /s3cret|\bat [\w.<>]+ \(|"stack"/);
  });

  it('a start that waits says what it waits for: the migration lease another node holds', async () => {
    const db = await createTestDatabase();
    try {
      // Another node's lease, as runMigrationsLocked writes it, held until this start has said it waits for it
      // (however long loading took on a busy machine): then the lease is released, and the start goes on.
      const conn = await createConnection(db.url);
      await conn.query(SERVICE_LOCK_TABLE);
      await conn.query("INSERT INTO service_lock VALUES (?, 'another-node', NOW(3) + INTERVAL 100 SECOND)", [LEASE]);
      let released: Promise<unknown> | undefined;
      const node = await spawnService(
        { DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD: 'Start-wait-pass-1' },
        {
          timeoutMs: 110_000,
          onOutput: (out) => {
            if (!released && out.includes('"waiting_for":"the migration lease, held by another node"')) released = conn.query('DELETE FROM service_lock WHERE name = ?', [LEASE]);
          },
        },
      );
      await released;
      await conn.end();
      await node.stop();
      const json = node.output.join('').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const reports = json.filter((l) => l.event === 'start_slow');
      const lease = json.findIndex((l) => l.event === 'start_slow' && l.waiting_for === 'the migration lease, held by another node');
      assert.ok(lease >= 0, node.output.join(''));
      const { elapsed_s: elapsed, ...report } = json[lease];
      assert.deepEqual({ ...report, time: undefined }, { time: undefined, level: 'warn', logger: 'bootstrap', event: 'start_slow', waiting_for: 'the migration lease, held by another node' });
      assert.equal(typeof elapsed, 'number');
      const seconds = reports.map((l) => l.elapsed_s as number);
      assert.deepEqual(seconds, [...seconds].sort((a, b) => a - b), 'each report counts from the same start');
      assert.ok(json.findIndex((l) => l.event === 'listening') > lease, 'it started once the lease was released');
    } finally {
      await db.drop();
    }
  });
});
