import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { submitLoginForm, browserLogin } from './support/browser-login';
import { registerApp, RegisteredApp, tokenRequest } from './support/oauth2';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';
import { Browser } from './support/sso-browser';
import { lastEvent, sessionCount } from './support/sso-assertions';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const ROOT2 = basic('root2', 'Root2-pass-1');
const EXPIRED_ALERT = 'Your account has expired. Contact your administrator.';
const EXPIRED = { detail: 'User account has expired.' };
const CANNOT_EXPIRE = { account_expires: ['The break-glass superuser cannot expire.'] };

/**
 * SPEC §22's `account_expires` and the break-glass superuser, through HTTP: who may write the date, what every
 * login path answers an expired account once its password (or its identity provider) proved it, and its sessions
 * and tokens refused but kept, working again once the date is cleared. Time moves by the test app's clock.
 */
describe(`account expiry and the break-glass superuser (SPEC §22, ${TEST_DB})`, () => {
  let t: TestApp;
  let oidc: OidcIdp;
  let app: RegisteredApp;
  const ids: Record<string, number> = {};
  const user = async (id: number, who = ADMIN) => (await t.http().get(`/api/v2/users/${id}/`).set('Authorization', who).expect(200)).body as Record<string, unknown>;
  const patch = (id: number, body: Record<string, unknown>, who = ADMIN) => t.http().patch(`/api/v2/users/${id}/`).set('Authorization', who).send(body);
  const inSeconds = (s: number) => new Date(t.clock.now().getTime() + s * 1000).toISOString();
  const grant = (username: string, password: string) => tokenRequest(t, { grant_type: 'password', username, password, scope: 'write' }, { clientId: app.clientId, secret: app.clientSecret });
  const alertOf = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];

  before(async () => {
    t = await startTestApp();
    ids.alice = await t.createUser('alice', 'Alice-pass-1');
    ids.bob = await t.createUser('bob', 'Bob-pass-1');
    ids.root2 = await t.createUser('root2', 'Root2-pass-1', { is_superuser: true });
    ids.admin = (await t.http().get('/api/v2/me/').set('Authorization', ADMIN).expect(200)).body.results[0].id;
    app = await registerApp(t, ADMIN, { name: 'cli', client_type: 'confidential', authorization_grant_type: 'password' });
    oidc = await OidcIdp.start({ redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`, accounts: { 'sub-olga': { preferred_username: 'olga', email: 'olga@corp.example' } } });
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: oidc.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } } });
  });
  after(async () => {
    await oidc?.close();
    await t?.close();
  });

  it('shows account_expires (null) and the read-only break_glass: the first-start admin is the break-glass superuser', async () => {
    const admin = await user(ids.admin);
    assert.equal(admin.account_expires, null);
    assert.equal(admin.break_glass, true);
    const alice = await user(ids.alice);
    assert.equal(alice.account_expires, null);
    assert.equal(alice.break_glass, false);
    await patch(ids.alice, { break_glass: true }).expect(200);
    assert.equal((await user(ids.alice)).break_glass, false);
    const listed = (await t.http().get('/api/v2/users/').set('Authorization', ADMIN).expect(200)).body.results as Record<string, unknown>[];
    assert.deepEqual(listed.filter((u) => u.break_glass).map((u) => u.username), ['admin']);
  });

  it('lets only superusers write a different account_expires: anyone else 403 and nothing changes', async () => {
    const when = inSeconds(86400);
    await patch(ids.alice, { account_expires: when }, basic('alice', 'Alice-pass-1')).expect(403);
    assert.equal((await user(ids.alice)).account_expires, null);
    // The value it has is no change: allowed (AWX's PUT of the whole resource sends it back).
    await patch(ids.alice, { account_expires: null, first_name: 'Al' }, basic('alice', 'Alice-pass-1')).expect(200);
    const set = await patch(ids.alice, { account_expires: when }).expect(200);
    assert.equal(set.body.account_expires, when);
    await patch(ids.alice, { account_expires: null }, basic('alice', 'Alice-pass-1')).expect(403);
    assert.equal((await user(ids.alice)).account_expires, when);
    await patch(ids.alice, { account_expires: null }).expect(200);
  });

  it('refuses a value that is not a date-time with a 400 naming it, changing nothing', async () => {
    for (const bad of ['tomorrow', '2030-13-01T00:00:00Z', '2030-01-01', 5, true, {}]) {
      const res = await patch(ids.alice, { account_expires: bad, first_name: 'Changed' }).expect(400);
      assert.deepEqual(Object.keys(res.body), ['account_expires'], JSON.stringify(bad));
    }
    const alice = await user(ids.alice);
    assert.equal(alice.account_expires, null);
    assert.equal(alice.first_name, 'Al');
  });

  it('refuses account_expires on the break-glass superuser with its 400, changing nothing', async () => {
    const res = await patch(ids.admin, { account_expires: inSeconds(86400), first_name: 'Changed' }).expect(400);
    assert.deepEqual(res.body, CANNOT_EXPIRE);
    const admin = await user(ids.admin);
    assert.equal(admin.account_expires, null);
    assert.equal(admin.first_name, '');
    // Another superuser may expire: it is not the break-glass one.
    await patch(ids.root2, { account_expires: inSeconds(86400) }).expect(200);
    await patch(ids.root2, { account_expires: null }).expect(200);
  });

  it('BREAK_GLASS_USERNAME names a local superuser without account_expires, else 400 naming it and nothing stored', async () => {
    for (const bad of ['alice', 'nobody', 5]) {
      const res = await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ BREAK_GLASS_USERNAME: bad }).expect(400);
      assert.deepEqual(Object.keys(res.body), ['BREAK_GLASS_USERNAME'], JSON.stringify(bad));
    }
    await patch(ids.root2, { account_expires: inSeconds(86400) }).expect(200);
    await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ BREAK_GLASS_USERNAME: 'root2' }).expect(400);
    await patch(ids.root2, { account_expires: null }).expect(200);
    assert.equal((await t.http().get('/api/v2/settings/authentication/').set('Authorization', ADMIN).expect(200)).body.BREAK_GLASS_USERNAME, '');
    await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ BREAK_GLASS_USERNAME: 'root2' }).expect(200);
    try {
      assert.equal((await user(ids.root2)).break_glass, true);
      assert.equal((await user(ids.admin)).break_glass, false);
      assert.deepEqual((await patch(ids.root2, { account_expires: inSeconds(60) }).expect(400)).body, CANNOT_EXPIRE);
      // admin is no longer break-glass: it may expire, and "" then falls to the lowest id without a date.
      await patch(ids.admin, { account_expires: inSeconds(86400) }, ROOT2).expect(200);
      await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ROOT2).send({ BREAK_GLASS_USERNAME: '' }).expect(200);
      assert.equal((await user(ids.root2, ROOT2)).break_glass, true);
      await patch(ids.admin, { account_expires: null }, ROOT2).expect(200);
      assert.equal((await user(ids.admin)).break_glass, true);
    } finally {
      await t.settings({ BREAK_GLASS_USERNAME: '' });
    }
  });

  it('refuses a single sign-on of an expired account with the login page and its alert, and no session', async () => {
    const first = new Browser(t);
    const start = await first.get('/sso/login/oidc/?idp=corp').expect(302);
    assert.equal((await first.get(await oidc.authenticate(first, start.headers.location, 'sub-olga'))).status, 302);
    const olga = ((await t.http().get('/api/v2/users/?username=olga').set('Authorization', ADMIN).expect(200)).body.results as { id: number }[])[0];
    await patch(olga.id, { account_expires: inSeconds(-1) }).expect(200);
    const sessions = await sessionCount(t);
    const browser = new Browser(t);
    const again = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
    const res = await browser.get(await oidc.authenticate(browser, again.headers.location, 'sub-olga'));
    assert.equal(res.status, 302);
    assert.equal(new URL(res.headers.location, 'http://x').pathname, '/api/login/');
    assert.equal(await sessionCount(t), sessions);
    const page = await browser.get(res.headers.location).expect(200);
    assert.equal(alertOf(page.text), EXPIRED_ALERT);
    // Its earlier browser session is refused with the reason, and kept.
    assert.deepEqual((await first.get('/api/v2/me/').expect(401)).body, { ...EXPIRED, reason: 'account_expired' });
    await patch(olga.id, { account_expires: null }).expect(200);
    await first.get('/api/v2/me/').expect(200);
  });
  it('from the instant it names, refuses every login path as expired once the password proved it, uncounted by the throttle', async () => {
    const session = await browserLogin(t, 'bob', 'Bob-pass-1');
    const token = await grant('bob', 'Bob-pass-1').expect(200);
    const bearer = `Bearer ${token.body.access_token}`;
    await patch(ids.bob, { account_expires: inSeconds(300) }).expect(200);
    // Before the instant everything works.
    await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'Bob-pass-1')).expect(200);
    await session.agent.get('/api/v2/me/').expect(200);
    t.clock.advance(300);
    await t.settings({ LOGIN_FAILURES_ALLOWED: 2 });
    try {
      for (let i = 0; i < 4; i++) {
        const form = (await submitLoginForm(t, 'bob', 'Bob-pass-1')).response;
        assert.equal(form.status, 401);
        assert.equal(alertOf(form.text), EXPIRED_ALERT);
        assert.deepEqual((await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'Bob-pass-1')).expect(401)).body, EXPIRED);
        assert.deepEqual((await grant('bob', 'Bob-pass-1').expect(400)).body, { error: 'invalid_grant', error_description: 'User account has expired.' });
      }
      assert.equal(lastEvent(t, 'login_failed')?.outcome, 'account_expired');
      // Before the proof: §2's one message, and a wrong password is counted as ever.
      const wrong = (await submitLoginForm(t, 'bob', 'wrong-password')).response;
      assert.equal(wrong.status, 401);
      assert.notEqual(alertOf(wrong.text), EXPIRED_ALERT);
      assert.deepEqual((await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'wrong-password')).expect(401)).body, { detail: 'Invalid username/password.' });
      await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'wrong-password')).expect(429);
    } finally {
      await t.settings({ LOGIN_FAILURES_ALLOWED: 5 });
    }
    // The session and the token are refused, not ended or revoked.
    const refused = await session.agent.get('/api/v2/me/').expect(401);
    assert.deepEqual(refused.body, { ...EXPIRED, reason: 'account_expired' });
    assert.deepEqual((await t.http().get('/api/v2/me/').set('Authorization', bearer).expect(401)).body, EXPIRED);
    const bobNow = await user(ids.bob);
    assert.equal(bobNow.is_active, true);
    // Clearing the date: the same session and token work again.
    await patch(ids.bob, { account_expires: null }).expect(200);
    await session.agent.get('/api/v2/me/').expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', bearer).expect(200);
  });

});
