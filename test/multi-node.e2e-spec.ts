// @galera: npm test runs this file again on a 3-member Galera cluster (scripts/galera-files.sh)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generate } from 'otplib';
import request from 'supertest';
import { basic } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-db';
import { spawnServices, ServiceProcess } from './support/service-process';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';
import { Browser } from './support/sso-browser';
import { settingsRefreshed } from './support/settings-refresh';

/** Both nodes' external address (callback URLs are built from it); a test browser maps it to the node it talks to. */
const PUBLIC_URL = 'http://127.0.0.1';

describe('two service processes on one database', () => {
  let db: TestDatabase;
  let a: ServiceProcess;
  let b: ServiceProcess;
  const admin = basic('admin', 'Two-node-admin-1');
  before(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, SECRET_KEY: 'multi-node-secret-key-0123456789abcdefghij', ADMIN_PASSWORD: 'Two-node-admin-1', PUBLIC_URL };
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

  it("a setting changed on node A is read on node B at B's next settings refresh", async () => {
    await request(a.url).patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ SESSION_COOKIE_AGE: 700 }).expect(200);
    await settingsRefreshed(b.url, admin);
    const res = await request(b.url).get('/api/v2/settings/authentication/').set('Authorization', admin).expect(200);
    assert.equal(res.body.SESSION_COOKIE_AGE, 700, 'node B read the change');
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

  it('what node A records (SPEC §23: the stream and the events) every node lists, with the node that made it', async () => {
    const made = await request(a.url).post('/api/v2/organizations/').set('Authorization', admin).send({ name: 'recorded-on-a' }).expect(201);
    await request(a.url).get('/api/v2/me/').set('Authorization', basic('admin', 'not-the-password')).expect(401);
    const deadline = Date.now() + 60000;
    let entries: { action_node: string; operation: string }[] = [];
    let events: { event: string; action_node: string }[] = [];
    while ((entries.length === 0 || events.length === 0) && Date.now() < deadline) {
      entries = (await request(b.url).get('/api/v2/activity_stream/?organization__name=recorded-on-a').set('Authorization', admin).expect(200)).body.results;
      events = (await request(b.url).get('/api/v2/authentication_events/?event=login_failed&username=admin').set('Authorization', admin).expect(200)).body.results;
      if (entries.length === 0 || events.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(entries.map((e) => [e.operation, e.action_node]), [['create', made.headers['x-api-node']]]);
    assert.equal(events[0]?.action_node, made.headers['x-api-node']);
  });

  it('login failures counted on node A throttle the pair on node B', async () => {
    await request(a.url).post('/api/v2/users/').set('Authorization', admin).send({ username: 'target', password: 'Target-pass-1' }).expect(201);
    for (let i = 0; i < 5; i++) await request(a.url).get('/api/v2/me/').set('Authorization', basic('target', 'guess')).expect(401);
    const res = await request(b.url).get('/api/v2/me/').set('Authorization', basic('target', 'Target-pass-1')).expect(429);
    assert.ok(Number(res.headers['retry-after']) > 0);
  });

  it('a TOTP code used for a login on node A is refused on node B (SPEC §16, issue 31)', async () => {
    const created = await request(a.url).post('/api/v2/users/').set('Authorization', admin).send({ username: 'twostep', password: 'Two-step-pass-1' }).expect(201);
    const own = basic('twostep', 'Two-step-pass-1');
    const { secret } = (await request(a.url).post('/api/v2/me/mfa/totp/').set('Authorization', own).send({}).expect(201)).body;
    // Confirmed on node B with the previous step's code (one step of drift is allowed), so the current one is unused.
    const previous = await generate({ secret, epoch: Math.floor(Date.now() / 1000) - 30 });
    await request(b.url).post('/api/v2/me/mfa/totp/confirm/').set('Authorization', own).send({ code: previous }).expect(200);
    const current = await generate({ secret });
    assert.equal((await secondStep(a.url, current)).status, 302, 'node A takes the current code');
    assert.equal((await secondStep(b.url, current)).status, 401, 'node B refuses it: each code once, on every node');
    await request(a.url).delete(`/api/v2/users/${created.body.id}/mfa/`).set('Authorization', admin).expect(204);
  });

  it('a back-channel logout received by node A ends a session of node B at its next request (SPEC §17, issue 33)', async () => {
    const idp = await OidcIdp.start({
      redirectUri: `${PUBLIC_URL}/sso/complete/oidc/`,
      accounts: { 'sub-nina': { preferred_username: 'nina' } },
      // The provider's server posts its logout tokens to node A only.
      backchannelLogoutUri: `${a.url}/sso/backchannel/oidc/?idp=corp`,
    });
    try {
      const provider = { issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET };
      await request(a.url).patch('/api/v2/settings/oidc/').set('Authorization', admin).send({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: provider } }).expect(200);
      // Node B reads the setting at its next refresh (SPEC §9).
      await settingsRefreshed(b.url, admin);
      assert.ok('oidc:corp' in (await request(b.url).get('/api/v2/auth/').expect(200)).body, 'node B lists the provider');
      const browser = new Browser({ url: b.url, config: { publicUrl: PUBLIC_URL } });
      const start = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
      const loggedIn = await browser.get(await idp.authenticate(browser, start.headers.location, 'sub-nina')).expect(302);
      assert.equal(loggedIn.headers.location, '/accounts/profile/');
      assert.equal((await browser.get('/api/v2/me/').expect(200)).body.results[0].username, 'nina');
      // Nina signs out at the provider, which tells node A; node B's browser learns it at its next request.
      await idp.signOut(browser);
      assert.deepEqual(idp.backchannel.map((d) => d.ok), [true], JSON.stringify(idp.backchannel));
      const ended = await browser.get('/api/v2/me/').expect(401);
      assert.equal(ended.body.reason, 'idp_logout');
    } finally {
      await idp.close();
    }
  });

  it("AUTH_BASIC_ENABLED switched off on node A is honoured by node B from B's next settings refresh", async () => {
    // The metrics are read with a token: basic is what is being switched off.
    const token = (await request(a.url).post('/api/v2/tokens/').set('Authorization', admin).send({ scope: 'read' }).expect(201)).body.token as string;
    await request(a.url).patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ AUTH_BASIC_ENABLED: false }).expect(200);
    await request(a.url).get('/api/v2/me/').set('Authorization', admin).expect(401);
    await settingsRefreshed(b.url, `Bearer ${token}`);
    await request(b.url).get('/api/v2/me/').set('Authorization', admin).expect(401);
  });

});

/** The form login of `twostep` on one node, then its second step with `code`. */
async function secondStep(url: string, code: string) {
  const agent = request.agent(url);
  const page = await agent.get('/api/login/').expect(200);
  const csrf = /csrftoken=([^;]+)/.exec(String(page.headers['set-cookie']))![1];
  const form = (path: string) => agent.post(path).set('X-CSRFToken', csrf).set('Referer', `${url}/api/login/`).type('form');
  const password = await form('/api/login/').send({ username: 'twostep', password: 'Two-step-pass-1' });
  assert.equal(password.status, 200, 'the password step asks for the second');
  return form('/api/login/mfa/').send({ code });
}
