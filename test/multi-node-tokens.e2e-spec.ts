// @galera: npm test runs this file again on a 3-member Galera cluster (scripts/galera-files.sh)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { basic } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-db';
import { spawnServices, ServiceProcess } from './support/service-process';
import { cookieValue } from './support/browser-login';
import { decideDevice, DEVICE_CODE_GRANT } from './support/oauth2';

const bearer = (token: string) => `Bearer ${token}`;

/** SPEC §5: "DELETE answers 204 and revokes at once, on every node" — no node caches a token's validity. */
describe('tokens across two service processes on one database', () => {
  let db: TestDatabase;
  let a: ServiceProcess;
  let b: ServiceProcess;
  const admin = basic('admin', 'Two-node-admin-1');
  const alice = basic('alice', 'Alice-pass-1');
  let aliceId: number;

  before(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, SECRET_KEY: 'multi-node-secret-key-0123456789abcdefghij', ADMIN_PASSWORD: 'Two-node-admin-1' };
    [a, b] = await spawnServices(2, env);
    const created = await request(a.url).post('/api/v2/users/').set('Authorization', admin).send({ username: 'alice', password: 'Alice-pass-1' }).expect(201);
    aliceId = created.body.id;
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db.drop();
  });

  it('a token deleted on node A is refused on node B at the next request', async () => {
    const created = await request(a.url).post('/api/v2/tokens/').set('Authorization', alice).send({}).expect(201);
    const token = created.body.token;
    await request(b.url).get('/api/v2/me/').set('Authorization', bearer(token)).expect(200);
    await request(b.url).get('/api/v2/me/').set('Authorization', bearer(token)).expect(200);
    await request(a.url).delete(`/api/v2/tokens/${created.body.id}/`).set('Authorization', alice).expect(204);
    const refused = await request(b.url).get('/api/v2/me/').set('Authorization', bearer(token)).expect(401);
    assert.deepEqual(refused.body, { detail: 'Invalid or revoked token.' });
    await request(a.url).get('/api/v2/me/').set('Authorization', bearer(token)).expect(401);
  });

  it('a token revoked on node A reads inactive on node B\'s introspection at the next request (RFC 7662)', async () => {
    const created = await request(a.url).post('/api/v2/tokens/').set('Authorization', alice).send({}).expect(201);
    const introspect = () => request(b.url).post('/api/o/introspect/').type('form').set('Authorization', admin).send({ token: created.body.token }).expect(200);
    assert.equal((await introspect()).body.active, true);
    await request(a.url).delete(`/api/v2/tokens/${created.body.id}/`).set('Authorization', alice).expect(204);
    assert.deepEqual((await introspect()).body, { active: false });
  });

  it("a user's tokens revoked on node A, or the user deactivated there, stop working on node B at once", async () => {
    const first = (await request(a.url).post('/api/v2/tokens/').set('Authorization', alice).send({}).expect(201)).body.token;
    await request(b.url).get('/api/v2/me/').set('Authorization', bearer(first)).expect(200);
    await request(a.url).delete(`/api/v2/users/${aliceId}/tokens/`).set('Authorization', admin).expect(204);
    await request(b.url).get('/api/v2/me/').set('Authorization', bearer(first)).expect(401);
    const second = (await request(b.url).post('/api/v2/tokens/').set('Authorization', alice).send({}).expect(201)).body.token;
    await request(b.url).get('/api/v2/me/').set('Authorization', bearer(second)).expect(200);
    await request(a.url).patch(`/api/v2/users/${aliceId}/`).set('Authorization', admin).send({ is_active: false }).expect(200);
    await request(b.url).get('/api/v2/me/').set('Authorization', bearer(second)).expect(401);
    await request(a.url).patch(`/api/v2/users/${aliceId}/`).set('Authorization', admin).send({ is_active: true }).expect(200);
  });

  it('a device code approved on node A is redeemed on node B exactly once (RFC 8628)', async () => {
    const app = await request(a.url).post('/api/v2/applications/').set('Authorization', admin)
      .send({ name: 'tv', client_type: 'public', authorization_grant_type: 'device-code' }).expect(201);
    const device = await request(b.url).post('/api/o/device_authorization/').type('form').send({ client_id: app.body.client_id }).expect(200);
    const poll = (node: ServiceProcess) =>
      request(node.url).post('/api/o/token/').type('form').send({ grant_type: DEVICE_CODE_GRANT, device_code: device.body.device_code, client_id: app.body.client_id });
    assert.equal((await poll(b).expect(400)).body.error, 'authorization_pending');
    // Alice signs in on node A and approves there.
    const browser = request.agent(a.url);
    const loginPage = await browser.get('/api/login/').expect(200);
    const login = await browser.post('/api/login/').set('X-CSRFToken', cookieValue(loginPage.headers['set-cookie'], 'csrftoken')!)
      .set('Referer', `${a.url}/api/login/`).type('form').send({ username: 'alice', password: 'Alice-pass-1' }).expect(302);
    const approved = await decideDevice(browser, cookieValue(login.headers['set-cookie'], 'csrftoken')!, device.body.user_code);
    assert.equal(approved.status, 200, approved.text);
    assert.match(approved.text, /Device connected/);
    // Two polls race on node B: one token; then neither node issues another.
    const answers = await Promise.all([poll(b), poll(b)]);
    const won = answers.filter((r) => r.status === 200);
    assert.equal(won.length, 1, answers.map((r) => r.text).join('\n'));
    assert.deepEqual(answers.filter((r) => r.status !== 200).map((r) => [r.status, r.body.error]), [[400, 'invalid_grant']]);
    for (const node of [a, b]) assert.equal((await poll(node).expect(400)).body.error, 'invalid_grant');
    const me = await request(a.url).get('/api/v2/me/').set('Authorization', bearer(won[0].body.access_token)).expect(200);
    assert.equal(me.body.results[0].username, 'alice');
  });

  it('a refresh token rotated on node A and replayed on node B revokes the family everywhere', async () => {
    const app = await request(a.url).post('/api/v2/applications/').set('Authorization', admin)
      .send({ name: 'cli', client_type: 'public', authorization_grant_type: 'password' }).expect(201);
    const form = { client_id: app.body.client_id };
    const first = await request(a.url).post('/api/o/token/').type('form').send({ ...form, grant_type: 'password', username: 'alice', password: 'Alice-pass-1' }).expect(200);
    const second = await request(a.url).post('/api/o/token/').type('form').send({ ...form, grant_type: 'refresh_token', refresh_token: first.body.refresh_token }).expect(200);
    await request(b.url).get('/api/v2/me/').set('Authorization', bearer(second.body.access_token)).expect(200);
    const replay = await request(b.url).post('/api/o/token/').type('form').send({ ...form, grant_type: 'refresh_token', refresh_token: first.body.refresh_token }).expect(400);
    assert.equal(replay.body.error, 'invalid_grant');
    await request(a.url).get('/api/v2/me/').set('Authorization', bearer(second.body.access_token)).expect(401);
  });
});
