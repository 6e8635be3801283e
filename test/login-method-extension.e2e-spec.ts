import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { browserLogin, cookieValue } from './support/browser-login';
import { PIN_ACCOUNT, PinDirectoryModule, pinDirectory } from './support/pin-directory';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

const TEST_DB = process.env.TEST_DB ?? 'sqlite';
const admin = basic('admin', ADMIN_PASSWORD);

/**
 * A team's own login method (test/support/pin-directory.ts: a Passport strategy, a provisioning input and a
 * registration, nothing else) gets what every password method gets without a line changed elsewhere: the
 * login form and basic, the one throttle, the session limits, the second step, DISABLE_LOCAL_AUTH, the
 * fields it manages, the 503 of a method out of reach, and the profile page's account and Security tab.
 */
describe(`a login method only the test suite defines, registered as docs/architecture.md says (issue 39) [${TEST_DB}]`, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ imports: [PinDirectoryModule], env: { TRUSTED_PROXIES: '127.0.0.1' } });
  });
  after(() => t.close());
  beforeEach(async () => {
    pinDirectory.reachable = true;
    pinDirectory.entries.clear();
    await t.settings({ LOGIN_FAILURES_ALLOWED: 3, SESSIONS_PER_USER: -1, MFA_REQUIRED_FOR: 'none', DISABLE_LOCAL_AUTH: false });
  });

  async function userNamed(username: string) {
    const res = await t.http().get(`/api/v2/users/?username=${username}`).set('Authorization', admin).expect(200);
    return res.body.results[0] as { id: number; external_account: string; email: string; is_superuser: boolean } | undefined;
  }

  it('logs a directory user in through the login form and basic, provisioned at the first login', async () => {
    pinDirectory.entries.set('pia', { pin: '4711-pin', email: 'pia@example.org', superuser: true });
    assert.equal(await userNamed('pia'), undefined, 'no user before the first login');
    const { agent } = await browserLogin(t, 'pia', '4711-pin');
    const pia = (await userNamed('pia'))!;
    assert.deepEqual([pia.external_account, pia.email, pia.is_superuser], [PIN_ACCOUNT, 'pia@example.org', true]);
    const me = await agent.get('/api/v2/me/').expect(200);
    assert.equal(me.body.results[0].id, pia.id);
    await t.http().get('/api/v2/me/').set('Authorization', basic('pia', '4711-pin')).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', basic('pia', 'wrong')).expect(401);
    // The profile page names the account as the method does, and offers the Security tab of a password method.
    const page = await agent.get('/accounts/profile/').expect(200);
    assert.match(page.text, /<dd>PIN directory<\/dd>/);
    assert.match(page.text, /id="tab-security"/);
  });

  it('counts wrong PINs in the login throttle: 429 after the allowance, the right PIN included', async () => {
    pinDirectory.entries.set('ted', { pin: 'ted-pin-1', email: 'ted@example.org' });
    const from = { 'X-Forwarded-For': '198.51.100.41' };
    for (let i = 0; i < 3; i++) await t.http().get('/api/v2/me/').set(from).set('Authorization', basic('ted', `wrong-${i}`)).expect(401);
    const throttled = await t.http().get('/api/v2/me/').set(from).set('Authorization', basic('ted', 'ted-pin-1')).expect(429);
    assert.ok(Number(throttled.headers['retry-after']) > 0);
    // Another address is not locked out (SPEC §12).
    await t.http().get('/api/v2/me/').set({ 'X-Forwarded-For': '198.51.100.42' }).set('Authorization', basic('ted', 'ted-pin-1')).expect(200);
  });

  it('holds its users to the session limits: the newest session survives', async () => {
    pinDirectory.entries.set('sam', { pin: 'sam-pin-1', email: 'sam@example.org' });
    await t.settings({ SESSIONS_PER_USER: 1 });
    const first = await browserLogin(t, 'sam', 'sam-pin-1');
    const second = await browserLogin(t, 'sam', 'sam-pin-1');
    const ended = await first.agent.get('/api/v2/me/').expect(401);
    assert.equal(ended.body.reason, 'session_limit');
    await second.agent.get('/api/v2/me/').expect(200);
  });

  it('owes the second step: MFA_REQUIRED_FOR=all sends the form to the set-up with no session, basic is refused', async () => {
    pinDirectory.entries.set('mia', { pin: 'mia-pin-1', email: 'mia@example.org' });
    await browserLogin(t, 'mia', 'mia-pin-1'); // provisioned while no second step is asked
    await t.settings({ MFA_REQUIRED_FOR: 'all' });
    const agent = t.agent();
    const page = await agent.get('/api/login/').expect(200);
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const form = await agent.post('/api/login/').set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form').send({ username: 'mia', password: 'mia-pin-1' }).expect(200);
    assert.match(form.text, /Set up two-step verification/);
    assert.equal(cookieValue(form.headers['set-cookie'], t.config.sessionCookieName), undefined, 'no session before the second step');
    const refused = await t.http().get('/api/v2/me/').set('Authorization', basic('mia', 'mia-pin-1')).expect(401);
    assert.match(refused.body.detail, /two-step verification/i);
  });

  it('is a remote method for DISABLE_LOCAL_AUTH: local users are refused, its users still log in', async () => {
    await t.http().patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ DISABLE_LOCAL_AUTH: true }).expect(400);
    pinDirectory.entries.set('lou', { pin: 'lou-pin-1', email: 'lou@example.org' });
    await t.http().patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ DISABLE_LOCAL_AUTH: true }).expect(200);
    try {
      await t.http().get('/api/v2/me/').set('Authorization', admin).expect(401);
      await t.http().get('/api/v2/me/').set('Authorization', basic('lou', 'lou-pin-1')).expect(200);
    } finally {
      await t.settings({ DISABLE_LOCAL_AUTH: false });
    }
  });

  it('refuses API changes of the fields it manages, in AWX words naming the method', async () => {
    pinDirectory.entries.set('max', { pin: 'max-pin-1', email: 'max@example.org' });
    await t.http().get('/api/v2/me/').set('Authorization', basic('max', 'max-pin-1')).expect(200);
    const max = (await userNamed('max'))!;
    const res = await t.http().patch(`/api/v2/users/${max.id}/`).set('Authorization', admin).send({ email: 'other@example.org' }).expect(400);
    assert.deepEqual(res.body, { email: ['Unable to change email on user managed by PIN directory.'] });
    await t.http().patch(`/api/v2/users/${max.id}/`).set('Authorization', admin).send({ first_name: 'Max' }).expect(200);
  });

  it('answers 503 with its own words while it is out of reach, uncounted, and local users are unaffected', async () => {
    pinDirectory.entries.set('una', { pin: 'una-pin-1', email: 'una@example.org' });
    pinDirectory.reachable = false;
    const from = { 'X-Forwarded-For': '198.51.100.43' };
    for (let i = 0; i < 4; i++) {
      const res = await t.http().get('/api/v2/me/').set(from).set('Authorization', basic('una', 'una-pin-1')).expect(503);
      assert.equal(res.body.detail, 'The PIN directory is unavailable; try again later.');
    }
    await t.http().get('/api/v2/me/').set('Authorization', admin).expect(200);
    pinDirectory.reachable = true;
    // Four refusals beyond the allowance of three, none counted: the right PIN works at once.
    await t.http().get('/api/v2/me/').set(from).set('Authorization', basic('una', 'una-pin-1')).expect(200);
  });
});
