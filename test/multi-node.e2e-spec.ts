import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { basic } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-db';
import { spawnServices, ServiceProcess } from './support/service-process';

describe('two service processes on one database', () => {
  let db: TestDatabase;
  let a: ServiceProcess;
  let b: ServiceProcess;
  const admin = basic('admin', 'Two-node-admin-1');
  before(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, SECRET_KEY: 'multi-node-secret-key-0123456789abcdefghij', ADMIN_PASSWORD: 'Two-node-admin-1' };
    // Both start at once: migrations run under a lock, the superuser is created once.
    [a, b] = await spawnServices(2, env);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db.drop();
  });

  it('both nodes serve the same superuser', async () => {
    await request(a.url).get('/api/v2/me/').set('Authorization', admin).expect(200);
    await request(b.url).get('/api/v2/me/').set('Authorization', admin).expect(200);
    const list = await request(a.url).get('/api/v2/users/').set('Authorization', admin).expect(200);
    assert.equal(list.body.count, 1);
  });

  it('a setting changed on node A is read on node B within one second', async () => {
    await request(a.url).patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ SESSION_COOKIE_AGE: 700 }).expect(200);
    const started = Date.now();
    let seen = 0;
    while (Date.now() - started < 1000) {
      const res = await request(b.url).get('/api/v2/settings/authentication/').set('Authorization', admin).expect(200);
      seen = res.body.SESSION_COOKIE_AGE;
      if (seen === 700) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(seen, 700, 'node B saw the change within one second');
  });

  it('a password changed on node A stops the old basic credential on node B at once', async () => {
    const create = await request(a.url).post('/api/v2/users/').set('Authorization', admin).send({ username: 'mover', password: 'Mover-pass-1' }).expect(201);
    const old = basic('mover', 'Mover-pass-1');
    await request(b.url).get('/api/v2/me/').set('Authorization', old).expect(200);
    await request(b.url).get('/api/v2/me/').set('Authorization', old).expect(200); // now remembered by B
    await request(a.url).patch(`/api/v2/users/${create.body.id}/`).set('Authorization', admin).send({ password: 'Mover-pass-2' }).expect(200);
    await request(b.url).get('/api/v2/me/').set('Authorization', old).expect(401);
    await request(b.url).get('/api/v2/me/').set('Authorization', basic('mover', 'Mover-pass-2')).expect(200);
  });

  it('login failures counted on node A throttle the pair on node B', async () => {
    await request(a.url).post('/api/v2/users/').set('Authorization', admin).send({ username: 'target', password: 'Target-pass-1' }).expect(201);
    for (let i = 0; i < 5; i++) await request(a.url).get('/api/v2/me/').set('Authorization', basic('target', 'guess')).expect(401);
    const res = await request(b.url).get('/api/v2/me/').set('Authorization', basic('target', 'Target-pass-1')).expect(429);
    assert.ok(Number(res.headers['retry-after']) > 0);
  });

  it('AUTH_BASIC_ENABLED switched off on node A is honoured by node B within one second', async () => {
    await request(a.url).patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ AUTH_BASIC_ENABLED: false }).expect(200);
    await request(a.url).get('/api/v2/me/').set('Authorization', admin).expect(401);
    const started = Date.now();
    let status = 200;
    while (Date.now() - started < 1000 && status === 200) {
      status = (await request(b.url).get('/api/v2/me/').set('Authorization', admin)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 401, 'node B refused basic within one second');
  });
});
