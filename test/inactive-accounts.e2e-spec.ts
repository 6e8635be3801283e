import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { NO_REQUEST } from '../src/common/request-context';
import { InactiveAccounts } from '../src/users/inactive-accounts';
import { User } from '../src/users/user.entity';
import { browserLogin, submitLoginForm } from './support/browser-login';
import { registerApp, RegisteredApp, tokenRequest } from './support/oauth2';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';
import { runManage } from './support/service-process';
import { Browser } from './support/sso-browser';
import { sessionCount } from './support/sso-assertions';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const DAY = 86400;
const DISABLED_ALERT = 'Your account is disabled. Contact your administrator.';
const DISABLED = { detail: 'User inactive or deleted.' };

/**
 * SPEC §22's ACCOUNT_INACTIVE_DAYS through HTTP: the period from the latest login (a browser's or the password
 * grant's; basic is no use), creation or re-activation; a proven login of an idle user deactivates it and is refused
 * as disabled on every path (a wrong password changes nothing); the sweep and `disable_inactive_users [--dry-run]`;
 * service accounts and the break-glass superuser exempt. Time moves by the test app's clock (the CLI's is real:
 * its user is made old in the database).
 */
describe(`inactive accounts (SPEC §22, ${TEST_DB})`, () => {
  let t: TestApp;
  let oidc: OidcIdp;
  let app: RegisteredApp;
  let serviceId: number;
  const ids: Record<string, number> = {};
  const user = async (id: number) => (await t.http().get(`/api/v2/users/${id}/`).set('Authorization', ADMIN).expect(200)).body as Record<string, unknown>;
  const active = async (id: number) => (await user(id)).is_active;
  const grant = (username: string, password: string) => tokenRequest(t, { grant_type: 'password', username, password, scope: 'write' }, { clientId: app.clientId, secret: app.clientSecret });
  const alertOf = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];
  const me = (name: string, password: string) => t.http().get('/api/v2/me/').set('Authorization', basic(name, password));
  const setDays = (value: unknown) => t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ ACCOUNT_INACTIVE_DAYS: value });
  const oidcLogin = async (browser: Browser) => {
    const start = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
    return browser.get(await oidc.authenticate(browser, start.headers.location, 'sub-olga'));
  };

  before(async () => {
    t = await startTestApp();
    for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', 'gina']) ids[name] = await t.createUser(name, `${name[0].toUpperCase()}${name.slice(1)}-pass-1`);
    ids.root2 = await t.createUser('root2', 'Root2-pass-1', { is_superuser: true });
    app = await registerApp(t, ADMIN, { name: 'cli', client_type: 'confidential', authorization_grant_type: 'password' });
    serviceId = (await registerApp(t, ADMIN, { name: 'ci', client_type: 'confidential', authorization_grant_type: 'client-credentials' })).body.service_account as number;
    oidc = await OidcIdp.start({ redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`, accounts: { 'sub-olga': { preferred_username: 'olga', email: 'olga@corp.example' } } });
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: oidc.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } }, SESSION_COOKIE_AGE: 100 * DAY });
  });
  after(async () => {
    await oidc?.close();
    await t?.close();
  });

  it('refuses an ACCOUNT_INACTIVE_DAYS outside 0–3650 with a 400 naming it, storing nothing', async () => {
    for (const bad of [-1, 3651, 1.5, '35', null]) {
      const res = await setDays(bad).expect(400);
      assert.deepEqual(Object.keys(res.body), ['ACCOUNT_INACTIVE_DAYS'], JSON.stringify(bad));
    }
    assert.equal((await t.http().get('/api/v2/settings/authentication/').set('Authorization', ADMIN).expect(200)).body.ACCOUNT_INACTIVE_DAYS, 0);
    for (const good of [3650, 0]) await setDays(good).expect(200);
  });

  it('deactivates an idle user at a single sign-on the provider proved: the login page with its alert, no session', async () => {
    // The provider's tokens are checked on the app's clock: this runs before the clock moves, olga's period made old in the database.
    assert.equal((await oidcLogin(new Browser(t))).status, 302);
    const olgaId = ((await t.http().get('/api/v2/users/?username=olga').set('Authorization', ADMIN).expect(200)).body.results as { id: number }[])[0].id;
    const old = new Date(t.clock.now().getTime() - 40 * DAY * 1000);
    await t.app.get(DataSource).getRepository(User).update({ id: olgaId }, { created: old, lastLoginEventAt: old });
    await setDays(35).expect(200);
    const sessions = await sessionCount(t);
    const again = new Browser(t);
    const res = await oidcLogin(again);
    assert.equal(res.status, 302);
    assert.equal(new URL(res.headers.location, 'http://x').pathname, '/api/login/');
    assert.equal(alertOf((await again.get(res.headers.location).expect(200)).text), DISABLED_ALERT);
    assert.equal(await sessionCount(t), sessions);
    assert.equal(await active(olgaId), false);

    await setDays(0).expect(200);
  });

  it('0 is off: nobody is deactivated however long idle', async () => {
    t.clock.advance(400 * DAY);
    await me('gina', 'Gina-pass-1').expect(200);
    assert.deepEqual(await t.app.get(InactiveAccounts).sweep(NO_REQUEST), []);
  });

  it('deactivates an idle user at a proven login, on every path, refused as disabled; a wrong password changes nothing', async () => {
    // Each starts its period now: a browser login, the password grant.
    const session = await browserLogin(t, 'alice', 'Alice-pass-1');
    const token = await grant('alice', 'Alice-pass-1').expect(200);
    await browserLogin(t, 'bob', 'Bob-pass-1');
    await grant('carol', 'Carol-pass-1').expect(200);
    await setDays(35).expect(200);
    t.clock.advance(20 * DAY);
    // Basic is no use: alice's period still runs from her browser login.
    await me('alice', 'Alice-pass-1').expect(200);
    // carol's password grant restarts hers.
    await grant('carol', 'Carol-pass-1').expect(200);
    t.clock.advance(16 * DAY);
    await me('carol', 'Carol-pass-1').expect(200);
    assert.equal(await active(ids.alice), true);

    // A wrong password: §2's one message, nothing changes.
    assert.deepEqual((await me('alice', 'wrong-password').expect(401)).body, { detail: 'Invalid username/password.' });
    assert.equal(alertOf((await submitLoginForm(t, 'bob', 'wrong-password')).response.text) === DISABLED_ALERT, false);
    assert.equal(await active(ids.alice), true);
    assert.equal(await active(ids.bob), true);

    assert.deepEqual((await me('alice', 'Alice-pass-1').expect(401)).body, DISABLED);
    assert.equal(await active(ids.alice), false);
    // Exactly as a superuser's is_active false: the session ends with user_disabled, the token is revoked.
    assert.equal((await session.agent.get('/api/v2/me/').expect(401)).body.reason, 'user_disabled');
    await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${token.body.access_token}`).expect(401);

    const form = (await submitLoginForm(t, 'bob', 'Bob-pass-1')).response;
    assert.equal(form.status, 401);
    assert.equal(alertOf(form.text), DISABLED_ALERT);
    assert.equal(await active(ids.bob), false);

    // dave never logged in: his period runs from his creation (36 days ago).
    assert.deepEqual((await grant('dave', 'Dave-pass-1').expect(400)).body, { error: 'invalid_grant', error_description: 'User inactive or deleted.' });
    assert.equal(await active(ids.dave), false);

    // Exempt: the break-glass superuser (admin, idle for 436 days) and the service account.
    await me('admin', ADMIN_PASSWORD).expect(200);
    assert.equal(await active(serviceId), true);
    assert.equal(await active(ids.carol), true);
  });

  it('a superuser re-activating a user restarts the count', async () => {
    await t.http().patch(`/api/v2/users/${ids.alice}/`).set('Authorization', ADMIN).send({ is_active: true }).expect(200);
    await me('alice', 'Alice-pass-1').expect(200);
    t.clock.advance(34 * DAY);
    await me('alice', 'Alice-pass-1').expect(200);
  });

  it('the sweep deactivates every idle user but the exempt ones', async () => {
    const swept = await t.app.get(InactiveAccounts).sweep(NO_REQUEST, true);
    assert.ok(swept.some((u) => u.username === 'erin'));
    assert.ok(!swept.some((u) => u.username === 'admin' || u.id === serviceId || u.username === 'alice'));
    assert.equal(await active(ids.erin), true, 'a dry run changes nothing');
    await t.app.get(InactiveAccounts).sweep(NO_REQUEST);
    assert.equal(await active(ids.erin), false);
    assert.equal(await active(ids.root2), false);
    assert.equal(await active(serviceId), true);
    assert.equal(await active(ids.alice), true);
  });

  it('disable_inactive_users [--dry-run] runs the sweep now, one line per user and the count, exit 0', async () => {
    const users = t.app.get(DataSource).getRepository(User);
    // The command's clock is the real one: gina's period is made 40 real days old.
    const old = new Date(Date.now() - 40 * DAY * 1000);
    await users.update({ id: ids.gina }, { isActive: true, created: old, lastLoginEventAt: old, reactivatedAt: null });
    const manage = (args: string[]) => runManage(args, { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey });
    const dry = manage(['disable_inactive_users', '--dry-run']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.deepEqual(dry.stdout.trim().split('\n'), [`Would deactivate gina (id ${ids.gina}).`, '1 user(s) would be disabled.']);
    assert.equal(await active(ids.gina), true);
    const run = manage(['disable_inactive_users']);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n'), [`Deactivated gina (id ${ids.gina}).`, '1 user(s) disabled.']);
    assert.equal(await active(ids.gina), false);
    const none = manage(['disable_inactive_users']);
    assert.equal(none.stdout.trim(), '0 user(s) disabled.', none.stderr);
  });
});
