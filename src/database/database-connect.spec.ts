import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../config/app-config';
import { connectDatabase, describeDatabase } from './database-connect';
import { databaseOptions } from './database-options';

/** A logger that keeps what it was told, to check the retry lines. */
function recorder() {
  const lines: unknown[] = [];
  return { lines, logger: { warn: (m: unknown) => lines.push(m) } as never };
}

describe('connecting to the database at start (issue 34)', () => {
  it('masks the password when it names DATABASE_URL', () => {
    assert.equal(describeDatabase(databaseOptions('mysql://svc:s3cret@db.example:3307/awx')), 'mysql://svc:***@db.example:3307/awx');
    assert.equal(describeDatabase(databaseOptions('mysql://db.example/awx')), 'mysql://db.example:3306/awx');
    assert.equal(describeDatabase(databaseOptions('sqlite:/var/lib/x.sqlite3')), 'sqlite:/var/lib/x.sqlite3');
  });

  it('retries a refused connection with one short line per attempt, then names DATABASE_URL and the cause', async () => {
    const { lines, logger } = recorder();
    const started = Date.now();
    await assert.rejects(connectDatabase(databaseOptions('mysql://svc:s3cret@127.0.0.1:1/awx'), logger, [0.01, 0.01]), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.message, 'cannot reach the database at DATABASE_URL=mysql://svc:***@127.0.0.1:1/awx: connection refused (ECONNREFUSED), 3 attempts over 0.02 s');
      return true;
    });
    assert.ok(Date.now() - started < 10_000);
    assert.deepEqual(lines, [1, 2].map((attempt) => ({
      event: 'database_unreachable', database: 'mysql://svc:***@127.0.0.1:1/awx', error: 'connection refused (ECONNREFUSED)', attempt, retry_in_s: 0.01,
    })));
  });

  it('fails at once on an error no retry fixes (a file under a file)', async () => {
    const { lines, logger } = recorder();
    await assert.rejects(connectDatabase(databaseOptions('sqlite:/etc/hostname/db.sqlite3'), logger, [5, 5]), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /^cannot use the database at DATABASE_URL=sqlite:\/etc\/hostname\/db\.sqlite3: /);
      return true;
    });
    assert.deepEqual(lines, []);
  });
});
