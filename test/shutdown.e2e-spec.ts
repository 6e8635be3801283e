import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { databaseOptions } from '../src/database/database-options';
import { basic } from './support/test-app';
import { createTestDatabase, TEST_DB, TestDatabase } from './support/test-db';
import { ServiceProcess, spawnService } from './support/service-process';

/** SPEC §1: SIGTERM stops accepting, lets requests in flight finish, flushes batched writes and exits 0. */
describe(`SIGTERM (${TEST_DB})`, () => {
  let db: TestDatabase;
  let node: ServiceProcess;
  const admin = basic('admin', 'Shutdown-admin-1');
  before(async () => {
    db = await createTestDatabase();
    node = await spawnService({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD: 'Shutdown-admin-1', SECRET_KEY: 'shutdown-secret-key-0123456789abcdefghijklmn' });
  });
  after(async () => {
    await node?.stop();
    await db.drop();
  });

  it('finishes the request in flight, flushes last_used, closes the pool and exits 0', async () => {
    const created = await request(node.url).post('/api/v2/tokens/').set('Authorization', admin).send({ description: 'flushed at exit' }).expect(201);
    await request(node.url).get('/api/v2/me/').set('Authorization', `Bearer ${created.body.token}`).expect(200);
    await request(node.url).post('/api/v2/users/').set('Authorization', admin).send({ username: 'slow', password: 'Slow-pass-1' }).expect(201);
    // A first basic request verifies an argon2 hash: it is still being answered when the signal arrives.
    const inFlight = request(node.url).get('/api/v2/me/').set('Authorization', basic('slow', 'Slow-pass-1')).then((r) => r.status);
    await new Promise((r) => setTimeout(r, 5));
    const exited = new Promise<number | null>((resolve) => node.child.once('exit', (code) => resolve(code)));
    node.child.kill('SIGTERM');
    assert.equal(await inFlight, 200, 'the request in flight was answered');
    assert.equal(await exited, 0, 'the process exits 0');
    assert.match(node.output.join(''), /"event":"shutdown","signal":"SIGTERM"/);
    const reader = await new DataSource({ ...databaseOptions(db.url), migrations: [] } as never).initialize();
    try {
      const [row] = await reader.query('SELECT last_used FROM oauth2_access_token WHERE id = ?', [created.body.id]);
      assert.notEqual(row.last_used, null, 'the buffered last_used stamp was written before exit');
    } finally {
      await reader.destroy();
    }
  });
});
