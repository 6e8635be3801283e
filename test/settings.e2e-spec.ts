import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

const URL = '/api/v2/settings/authentication/';

describe('runtime settings (SPEC §9)', () => {
  let t: TestApp;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  before(async () => {
    t = await startTestApp({ passwordPolicy: 'spec' });
    await t.createUser('auditor', 'Reads-all-1', { is_system_auditor: true });
    await t.createUser('user', 'Plain-pass-1');
  });
  after(() => t.close());

  it('shows every key with its default', async () => {
    const res = await t.http().get(URL).set('Authorization', admin()).expect(200);
    assert.deepEqual(res.body, {
      SESSION_COOKIE_AGE: 1800,
      SESSION_ABSOLUTE_TIMEOUT: 0,
      SESSIONS_PER_USER: -1,
      SESSIONS_PER_IP: -1,
      AUTH_BASIC_ENABLED: true,
      DISABLE_LOCAL_AUTH: false,
      OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: 31536000000, REFRESH_TOKEN_EXPIRE_SECONDS: 2628000, AUTHORIZATION_CODE_EXPIRE_SECONDS: 600 },
      ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false,
      LOGIN_REDIRECT_OVERRIDE: '',
      CSRF_TRUSTED_ORIGINS: [],
      LOCAL_PASSWORD_MIN_LENGTH: 0,
      LOCAL_PASSWORD_MIN_DIGITS: 0,
      LOCAL_PASSWORD_MIN_UPPER: 0,
      LOCAL_PASSWORD_MIN_SPECIAL: 0,
      LOCAL_PASSWORD_MAX_LENGTH: 128,
      LOCAL_PASSWORD_HISTORY: 0,
      LOCAL_PASSWORD_DENY_COMMON: true,
      LOCAL_PASSWORD_DENY_USERNAME: true,
      LOGIN_FAILURES_ALLOWED: 5,
      LOGIN_FAILURE_WINDOW: 900,
      LOGIN_LOCKOUT_DURATION: 0,
      BREAK_GLASS_USERNAME: '',
      ACCOUNT_INACTIVE_DAYS: 0,
      AUTH_EVENTS_RETENTION_DAYS: 365,
      ALLOW_METRICS_FOR_ANONYMOUS_USERS: false,
      TOKEN_MAX_LIFETIME_SECONDS: 0,
      TOKEN_EXPIRY_WARNING_SECONDS: 604800,
      MFA_REQUIRED_FOR: 'none',
      MANAGE_ORGANIZATION_AUTH: true,
      ORG_ADMINS_CAN_SEE_ALL_USERS: true,
      AUTH_LDAP_CACHE_SECONDS: 60,
      // SPEC §21: AWX's global social maps, the rule engine and how long logins' claims are kept.
      SOCIAL_AUTH_ORGANIZATION_MAP: null,
      SOCIAL_AUTH_TEAM_MAP: null,
      AUTHENTICATION_MAPS: [],
      AUTH_CLAIMS_RETENTION_DAYS: 90,
    });
  });

  it('is readable by auditors, writable only by superusers', async () => {
    await t.http().get(URL).set('Authorization', basic('auditor', 'Reads-all-1')).expect(200);
    await t.http().patch(URL).set('Authorization', basic('auditor', 'Reads-all-1')).send({ SESSION_COOKIE_AGE: 600 }).expect(403);
    await t.http().put(URL).set('Authorization', basic('auditor', 'Reads-all-1')).send({ SESSION_COOKIE_AGE: 600 }).expect(403);
    await t.http().delete(URL).set('Authorization', basic('auditor', 'Reads-all-1')).expect(403);
    await t.http().get(URL).set('Authorization', basic('user', 'Plain-pass-1')).expect(403);
    await t.http().delete(URL).set('Authorization', basic('user', 'Plain-pass-1')).expect(403);
    await t.http().get('/api/v2/settings/').set('Authorization', basic('user', 'Plain-pass-1')).expect(403);
  });

  it('PATCH stores values, PUT too, and both are read back at once', async () => {
    const res = await t.http().patch(URL).set('Authorization', admin()).send({ SESSION_COOKIE_AGE: 600, SESSIONS_PER_USER: 2 }).expect(200);
    assert.equal(res.body.SESSION_COOKIE_AGE, 600);
    assert.equal(res.body.SESSIONS_PER_USER, 2);
    const put = await t.http().put(URL).set('Authorization', admin()).send({ CSRF_TRUSTED_ORIGINS: ['https://ui.example.com'] }).expect(200);
    assert.deepEqual(put.body.CSRF_TRUSTED_ORIGINS, ['https://ui.example.com']);
    const read = await t.http().get(URL).set('Authorization', admin()).expect(200);
    assert.equal(read.body.SESSION_COOKIE_AGE, 600);
  });

  it('OAUTH2_PROVIDER fills missing keys and names invalid ones', async () => {
    const ok = await t.http().patch(URL).set('Authorization', admin()).send({ OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: 3600 } }).expect(200);
    assert.deepEqual(ok.body.OAUTH2_PROVIDER, { ACCESS_TOKEN_EXPIRE_SECONDS: 3600, REFRESH_TOKEN_EXPIRE_SECONDS: 2628000, AUTHORIZATION_CODE_EXPIRE_SECONDS: 600 });
    const bad = await t.http().patch(URL).set('Authorization', admin()).send({ OAUTH2_PROVIDER: { FOO: 1 } }).expect(400);
    assert.deepEqual(bad.body, { OAUTH2_PROVIDER: ['Invalid key names: FOO'] });
  });

  it('answers invalid values with 400 naming each field, and stores nothing', async () => {
    const res = await t.http().patch(URL).set('Authorization', admin())
      .send({ SESSION_COOKIE_AGE: 59, SESSIONS_PER_USER: 0, AUTH_BASIC_ENABLED: 'no', CSRF_TRUSTED_ORIGINS: ['not a url'], LOGIN_REDIRECT_OVERRIDE: 'javascript:alert(1)', SESSIONS_PER_IP: 1.5 })
      .expect(400);
    assert.deepEqual(Object.keys(res.body).sort(), ['AUTH_BASIC_ENABLED', 'CSRF_TRUSTED_ORIGINS', 'LOGIN_REDIRECT_OVERRIDE', 'SESSIONS_PER_IP', 'SESSIONS_PER_USER', 'SESSION_COOKIE_AGE']);
    assert.deepEqual(res.body.SESSION_COOKIE_AGE, ['Ensure this value is greater than or equal to 60.']);
    const partial = await t.http().patch(URL).set('Authorization', admin()).send({ SESSION_COOKIE_AGE: 900, SESSIONS_PER_USER: 0 }).expect(400);
    assert.ok(partial.body.SESSIONS_PER_USER);
    const read = await t.http().get(URL).set('Authorization', admin()).expect(200);
    assert.equal(read.body.SESSION_COOKIE_AGE, 600, 'a rejected request changes nothing');
  });

  it('names unknown keys in a 400 and stores nothing, in a category and in all (issue 34)', async () => {
    for (const url of [URL, '/api/v2/settings/all/']) {
      const res = await t.http().patch(url).set('Authorization', admin()).send({ SESSION_COOKIE_AGE: 900, SESSION_COOKIE_AEG: 900 }).expect(400);
      assert.deepEqual(res.body, { SESSION_COOKIE_AEG: [`Unknown setting for the ${url === URL ? 'authentication' : 'all'} category.`] });
      await t.http().put(url).set('Authorization', admin()).send({ sessions_per_user: 3 }).expect(400);
    }
    // A key of another category is unknown to this one; the whole GET body can be PUT back (read-only keys ignored).
    const other = await t.http().patch(URL).set('Authorization', admin()).send({ SOCIAL_AUTH_OIDC_PROVIDERS: {} }).expect(400);
    assert.deepEqual(Object.keys(other.body), ['SOCIAL_AUTH_OIDC_PROVIDERS']);
    const read = await t.http().get(URL).set('Authorization', admin()).expect(200);
    assert.equal(read.body.SESSION_COOKIE_AGE, 600, 'a refused request changes nothing');
    await t.http().put(URL).set('Authorization', admin()).send(read.body).expect(200);
  });

  it('refuses DISABLE_LOCAL_AUTH while no remote authentication is configured', async () => {
    const res = await t.http().patch(URL).set('Authorization', admin()).send({ DISABLE_LOCAL_AUTH: true }).expect(400);
    assert.deepEqual(res.body, { DISABLE_LOCAL_AUTH: ['There are no remote authentication systems configured.'] });
  });

  it('DELETE resets every key to its default', async () => {
    await t.http().delete(URL).set('Authorization', admin()).expect(204);
    const read = await t.http().get(URL).set('Authorization', admin()).expect(200);
    assert.equal(read.body.SESSION_COOKIE_AGE, 1800);
    assert.equal(read.body.SESSIONS_PER_USER, -1);
  });

  it('lists categories and 404s unknown ones', async () => {
    const list = await t.http().get('/api/v2/settings/').set('Authorization', admin()).expect(200);
    assert.ok(list.body.results.some((c: { slug: string }) => c.slug === 'authentication'));
    await t.http().get('/api/v2/settings/nope/').set('Authorization', admin()).expect(404);
  });

  it('rejects bodies that are not objects', async () => {
    await t.http().patch(URL).set('Authorization', admin()).send([1]).expect(400);
  });
});
