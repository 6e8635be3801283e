import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { browserLogin } from './support/browser-login';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';
import { Browser } from './support/sso-browser';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const AUDITOR = basic('audrey', 'Audrey-pass-1');
const FIELDS = ['id', 'type', 'url', 'user', 'summary_fields', 'created', 'last_seen', 'expires', 'ip_address', 'user_agent', 'source', 'method'];

/** Everyone logged in now (SPEC §22): `/api/v2/sessions/` across users, its detail and the administrator's end. */
describe('every live session of every user (SPEC §22)', () => {
  let t: TestApp;
  let idp: OidcIdp;
  let alice: number;

  before(async () => {
    t = await startTestApp();
    alice = await t.createUser('alice', 'Alice-pass-1');
    await t.createUser('bob', 'Bob-pass-1');
    await t.createUser('audrey', 'Audrey-pass-1', { is_system_auditor: true });
    idp = await OidcIdp.start({ redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`, accounts: { 'sub-olga': { preferred_username: 'olga' } } });
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } } });
  });
  after(async () => {
    await idp?.close();
    await t?.close();
  });

  const list = (query = '', auth = ADMIN) => t.http().get(`/api/v2/sessions/${query}`).set('Authorization', auth);

  it('is for superusers and system auditors, and /api/v2/ names it', async () => {
    await list('', basic('bob', 'Bob-pass-1')).expect(403);
    await list('', AUDITOR).expect(200);
    await list().expect(200);
    await t.http().get('/api/v2/sessions/').expect(401);
    assert.equal((await t.http().get('/api/v2/').expect(200)).body.sessions, '/api/v2/sessions/');
  });

  it('lists each live session with whose it is, its source and method, newest first, and never the cookie', async () => {
    const a = await browserLogin(t, 'alice', 'Alice-pass-1', { headers: { 'User-Agent': 'Alice-Browser/1' } });
    const b = await browserLogin(t, 'bob', 'Bob-pass-1', { headers: { 'User-Agent': 'Bob-Browser/1' } });
    const res = await list().expect(200);
    const [first, second] = res.body.results;
    assert.deepEqual(Object.keys(first), FIELDS);
    assert.equal(first.summary_fields.user.username, 'bob');
    assert.equal(second.summary_fields.user.username, 'alice');
    assert.equal(second.user, alice);
    assert.deepEqual(second.summary_fields, { user: { id: alice, username: 'alice' } });
    assert.equal(second.url, `/api/v2/sessions/${second.id}/`);
    assert.equal(second.type, 'session');
    assert.equal(second.source, 'local');
    assert.equal(second.method, 'form');
    assert.equal(second.user_agent, 'Alice-Browser/1');
    for (const secret of [a.session, b.session]) assert.ok(!JSON.stringify(res.body).includes(secret), 'no cookie value');
    // The detail is the list's entry: compared by what it says, not by its times.
    const detail = (await list(`${second.id}/`).expect(200)).body;
    assert.deepEqual(Object.keys(detail), FIELDS);
    for (const field of ['id', 'type', 'url', 'user', 'summary_fields', 'created', 'ip_address', 'user_agent', 'source', 'method']) {
      assert.deepEqual(detail[field], second[field], field);
    }
    // One's own list shows the same source and method.
    const mine = await a.agent.get('/api/v2/me/sessions/').expect(200);
    assert.equal(mine.body.results[0].source, 'local');
    assert.equal(mine.body.results[0].method, 'form');
  });

  it('filters on what it shows: the user, the name, the address, the source, the method, the agent', async () => {
    const names = async (query: string) => (await list(query).expect(200)).body.results.map((s: { summary_fields: { user: { username: string } } }) => s.summary_fields.user.username);
    const alices = await names('?user__username=alice');
    assert.ok(alices.length >= 1 && alices.every((n: string) => n === 'alice'));
    assert.deepEqual(await names(`?user=${alice}`), alices);
    assert.ok((await names('?user_agent__icontains=bob-browser')).every((n: string) => n === 'bob'));
    assert.ok((await names('?source=local&method=form')).length >= 2);
    assert.deepEqual(await names('?method=sso'), []);
    assert.deepEqual(await names('?ip_address=10.9.9.9'), []);
    assert.ok((await names('?order_by=created')).length >= 2);
    await list('?key_hash=x').expect(403);
    await list('?nonsense=1').expect(400);
  });

  it('names an SSO session by its provider and method', async () => {
    const browser = new Browser(t);
    const start = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
    await browser.get(await idp.authenticate(browser, start.headers.location, 'sub-olga')).expect(302);
    const [olga] = (await list('?user__username=olga').expect(200)).body.results;
    assert.equal(olga.source, 'oidc:corp');
    assert.equal(olga.method, 'sso');
  });

  it('ends a session for a superuser (revoked_by_admin, 404 after), not for an auditor; ended and unknown ids are 404', async () => {
    const a = await browserLogin(t, 'alice', 'Alice-pass-1');
    const [mine] = (await a.agent.get('/api/v2/me/sessions/').expect(200)).body.results.filter((s: { current: boolean }) => s.current);
    await t.http().delete(`/api/v2/sessions/${mine.id}/`).set('Authorization', AUDITOR).expect(403);
    await t.http().delete(`/api/v2/sessions/${mine.id}/`).set('Authorization', basic('bob', 'Bob-pass-1')).expect(403);
    await t.http().delete(`/api/v2/sessions/${mine.id}/`).set('Authorization', ADMIN).expect(204);
    const refused = await a.agent.get('/api/v2/me/').expect(401);
    assert.equal(refused.body.reason, 'revoked_by_admin');
    await t.http().delete(`/api/v2/sessions/${mine.id}/`).set('Authorization', ADMIN).expect(404);
    await list(`${mine.id}/`).expect(404);
    assert.ok(!(await list('?page_size=200').expect(200)).body.results.some((s: { id: number }) => s.id === mine.id), 'ended sessions are not listed');
    await t.http().delete('/api/v2/sessions/999999/').set('Authorization', ADMIN).expect(404);
    await list('abc/').expect(404);
  });

  it('leaves out the sessions a user\'s cut-off ended (a password change elsewhere)', async () => {
    await browserLogin(t, 'bob', 'Bob-pass-1');
    assert.ok((await list('?user__username=bob').expect(200)).body.count >= 1);
    await t.http().delete(`/api/v2/users/${(await list('?user__username=bob').expect(200)).body.results[0].user}/sessions/`).set('Authorization', ADMIN).expect(204);
    assert.equal((await list('?user__username=bob').expect(200)).body.count, 0);
  });
});
