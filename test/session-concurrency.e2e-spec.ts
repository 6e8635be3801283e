import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { databaseOptions } from '../src/database/database-options';
import { basic, startTestApp, TestApp } from './support/test-app';
import { cookieValue } from './support/browser-login';
import { createTestDatabase, TEST_DB, TestDatabase } from './support/test-db';
import { spawnServices, ServiceProcess } from './support/service-process';
import { settingsRefreshed } from './support/settings-refresh';

const LOGINS = 50;
const ADMIN = 'Race-admin-pass-1';

/**
 * Racing logins against the limit: on MariaDB two service processes share one database; on SQLite
 * one process. Exactly N sessions must survive, and they must be the newest by (created, id).
 */
describe(`session limits are exact under ${LOGINS} racing logins (${TEST_DB === 'mysql' ? 'MariaDB, two processes' : 'SQLite, one process'})`, () => {
  let urls: string[];
  let nodes: ServiceProcess[] = [];
  let app: TestApp | undefined;
  let db: TestDatabase;
  let dataSource: DataSource;

  before(async () => {
    db = await createTestDatabase();
    if (TEST_DB === 'mysql') {
      nodes = await spawnServices(2, { DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD: ADMIN, SECRET_KEY: 'race-secret-key-0123456789abcdefghijklmnopqr', SESSION_SWEEP: 'off', LOG_LEVEL: 'warn' });
      urls = nodes.map((n) => n.url);
      dataSource = await new DataSource(databaseOptions(db.url)).initialize();
    } else {
      app = await startTestApp({ db });
      await app.http().post('/api/v2/users/').set('Authorization', basic('admin', 'Adm1n-test-password!')).send({ username: 'admin2', password: ADMIN, is_superuser: true }).expect(201);
      urls = [app.url];
      dataSource = app.app.get(DataSource);
    }
    const adminUser = TEST_DB === 'mysql' ? 'admin' : 'admin2';
    await request(urls[0]).post('/api/v2/users/').set('Authorization', basic(adminUser, ADMIN)).send({ username: 'racer', password: 'Racer-pass-1' }).expect(201);
    (globalThis as { adminUser?: string }).adminUser = adminUser;
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    if (app) await app.close();
    else await dataSource?.destroy();
    await db.drop();
  });

  async function setLimit(limit: number): Promise<void> {
    const adminUser = (globalThis as { adminUser?: string }).adminUser!;
    await request(urls[0]).patch('/api/v2/settings/authentication/').set('Authorization', basic(adminUser, ADMIN)).send({ SESSIONS_PER_USER: limit }).expect(200);
    // every node must see the limit before the race starts: the other process after its next settings refresh
    // (the one that took the PATCH reads it at once)
    for (const url of urls) {
      if (url !== urls[0]) await settingsRefreshed(url, basic(adminUser, ADMIN));
      const res = await request(url).get('/api/v2/settings/authentication/').set('Authorization', basic(adminUser, ADMIN)).expect(200);
      assert.equal(res.body.SESSIONS_PER_USER, limit, 'settings did not propagate');
    }
  }

  for (const limit of [1, 3]) {
    it(`SESSIONS_PER_USER=${limit}: exactly ${limit} survive, and they are the newest`, async () => {
      await setLimit(limit);
      const [{ maxId }] = await dataSource.query('SELECT COALESCE(MAX(id), 0) AS maxId FROM user_session');
      const responses = await Promise.all(
        Array.from({ length: LOGINS }, (_, i) => {
          const csrf = randomBytes(32).toString('base64url');
          return request(urls[i % urls.length])
            .post('/api/login/')
            .set('Cookie', `csrftoken=${csrf}`)
            .set('X-CSRFToken', csrf)
            .type('form')
            .send({ username: 'racer', password: 'Racer-pass-1' });
        }),
      );
      assert.deepEqual(responses.map((r) => r.status), Array(LOGINS).fill(302), 'every login succeeded');
      const rows: { id: number; ended_reason: string | null; ended_at: unknown }[] = await dataSource.query(
        'SELECT s.id, s.ended_reason, s.ended_at FROM user_session s JOIN auth_user u ON u.id = s.user_id WHERE u.username = ? AND s.id > ? ORDER BY s.created DESC, s.id DESC',
        ['racer', Number(maxId)],
      );
      assert.equal(rows.length, LOGINS);
      const live = rows.filter((r) => r.ended_at === null);
      assert.equal(live.length, limit, `exactly ${limit} live sessions`);
      assert.deepEqual(live.map((r) => r.id), rows.slice(0, limit).map((r) => r.id), 'the survivors are the newest');
      assert.ok(rows.slice(limit).every((r) => r.ended_reason === 'session_limit'));
      // and over HTTP: the survivors' cookies work on every node, the others are told why
      const cookies = responses.map((r) => cookieValue(r.headers['set-cookie'], 'svc_session_id')!);
      const statuses = await Promise.all(cookies.map((c, i) => request(urls[(i + 1) % urls.length]).get('/api/v2/me/').set('Cookie', `svc_session_id=${c}`).set('X-WS-Session-Quiet', '1')));
      assert.equal(statuses.filter((s) => s.status === 200).length, limit);
      assert.ok(statuses.filter((s) => s.status === 401).every((s) => s.body.reason === 'session_limit'));
      console.log(`# figures: ${LOGINS} concurrent logins, SESSIONS_PER_USER=${limit}, ${urls.length} node(s), ${TEST_DB}: live=${live.length}, ended by limit=${rows.length - live.length}`);
    });
  }
});
