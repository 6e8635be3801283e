import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { browserLogin, cookieValue } from './support/browser-login';
import { CorporateEndpoint } from './support/corporate-endpoint';
import { HttpCheckModule } from './support/http-check-method/http-check.module';
import { HTTP_CHECK, HTTP_CHECK_UNAVAILABLE } from './support/http-check-method/http-check';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

const TEST_DB = process.env.TEST_DB ?? 'sqlite';
const admin = basic('admin', ADMIN_PASSWORD);
const MAPS = [
  { name: 'Corporate staff only', sources: [HTTP_CHECK], map_type: 'allow', triggers: { groups: { has_or: ['staff'] } } },
  { name: 'Corporate admins', sources: [HTTP_CHECK], map_type: 'is_superuser', triggers: { groups: { has_or: ['corp-admins'] } } },
  { name: 'Corporate ops', sources: [HTTP_CHECK], map_type: 'organization', organization: 'Corporate Ops', triggers: { groups: { has_or: ['ops'] } } },
];

/**
 * A team's own password method, defined outside src/ exactly as docs/architecture.md ("A new login method")
 * says: test/support/http-check-method/ (a proof that asks a corporate HTTP endpoint and one registration),
 * loaded by the one import of its module. Its users get what every password method gets, with no file of the
 * service changed: the form and basic, the throttle, the session limits, the second step, DISABLE_LOCAL_AUTH,
 * its managed fields, the 503 of a method out of reach, AUTHENTICATION_MAPS rules naming it, the dry run over
 * its stored claims, its settings category with its label, and the explainer (issue 55).
 */
describe(`a login method only the test suite defines, registered as docs/architecture.md says (issues 39, 55) [${TEST_DB}]`, () => {
  let t: TestApp;
  const endpoint = new CorporateEndpoint();
  before(async () => {
    const url = await endpoint.start();
    t = await startTestApp({ imports: [HttpCheckModule], env: { TRUSTED_PROXIES: '127.0.0.1' } });
    await t.http().patch('/api/v2/settings/http_check/').set('Authorization', admin).send({ HTTP_CHECK_URL: url }).expect(200);
  });
  after(async () => {
    await t.close();
    await endpoint.stop();
  });
  beforeEach(async () => {
    endpoint.down = false;
    endpoint.accounts.clear();
    await t.settings({ LOGIN_FAILURES_ALLOWED: 3, SESSIONS_PER_USER: -1, MFA_REQUIRED_FOR: 'none', DISABLE_LOCAL_AUTH: false, AUTHENTICATION_MAPS: [] });
  });

  async function userNamed(username: string) {
    const res = await t.http().get(`/api/v2/users/?username=${username}`).set('Authorization', admin).expect(200);
    return res.body.results[0] as { id: number; external_account: string; email: string; is_superuser: boolean } | undefined;
  }
  const explain = (username: string, password: string) => t.http().post('/api/v2/settings/http_check/test/').set('Authorization', admin).send({ username, password }).expect(200);

  it('logs a user the endpoint accepts in through the login form and basic, provisioned at the first login', async () => {
    endpoint.accounts.set('pia', { password: 'Pia-corp-pass-1', email: 'pia@example.org', groups: ['staff'] });
    assert.equal(await userNamed('pia'), undefined, 'no user before the first login');
    const { agent } = await browserLogin(t, 'pia', 'Pia-corp-pass-1');
    const pia = (await userNamed('pia'))!;
    assert.deepEqual([pia.external_account, pia.email, pia.is_superuser], [HTTP_CHECK, 'pia@example.org', false]);
    assert.equal((await agent.get('/api/v2/me/').expect(200)).body.results[0].id, pia.id);
    await t.http().get('/api/v2/me/').set('Authorization', basic('pia', 'Pia-corp-pass-1')).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', basic('pia', 'wrong')).expect(401);
    // The profile page names the account as the method does, and offers the Security tab of a password method.
    const page = await agent.get('/accounts/profile/').expect(200);
    assert.match(page.text, /<dd>Corporate login check<\/dd>/);
    assert.match(page.text, /id="tab-security"/);
    // Its settings category is listed under its label.
    const categories = await t.http().get('/api/v2/settings/').set('Authorization', admin).expect(200);
    assert.deepEqual(categories.body.results.find((c: { slug: string }) => c.slug === 'http_check'), { url: '/api/v2/settings/http_check/', slug: 'http_check', name: 'Corporate login check' });
  });

  it('counts wrong passwords in the login throttle: 429 after the allowance, the right password included', async () => {
    endpoint.accounts.set('ted', { password: 'Ted-corp-pass-1', email: 'ted@example.org', groups: [] });
    const from = { 'X-Forwarded-For': '198.51.100.41' };
    for (let i = 0; i < 3; i++) await t.http().get('/api/v2/me/').set(from).set('Authorization', basic('ted', `wrong-${i}`)).expect(401);
    const asked = endpoint.asked.length;
    const throttled = await t.http().get('/api/v2/me/').set(from).set('Authorization', basic('ted', 'Ted-corp-pass-1')).expect(429);
    assert.ok(Number(throttled.headers['retry-after']) > 0);
    assert.equal(endpoint.asked.length, asked, 'a throttled attempt never reaches the endpoint');
    // Another address is not locked out (SPEC §12).
    await t.http().get('/api/v2/me/').set({ 'X-Forwarded-For': '198.51.100.42' }).set('Authorization', basic('ted', 'Ted-corp-pass-1')).expect(200);
  });

  it('holds its users to the session limits: the newest session survives', async () => {
    endpoint.accounts.set('sam', { password: 'Sam-corp-pass-1', email: 'sam@example.org', groups: [] });
    await t.settings({ SESSIONS_PER_USER: 1 });
    const first = await browserLogin(t, 'sam', 'Sam-corp-pass-1');
    const second = await browserLogin(t, 'sam', 'Sam-corp-pass-1');
    assert.equal((await first.agent.get('/api/v2/me/').expect(401)).body.reason, 'session_limit');
    await second.agent.get('/api/v2/me/').expect(200);
  });

  it('owes the second step: MFA_REQUIRED_FOR=all sends the form to the set-up with no session, basic is refused', async () => {
    endpoint.accounts.set('mia', { password: 'Mia-corp-pass-1', email: 'mia@example.org', groups: [] });
    await browserLogin(t, 'mia', 'Mia-corp-pass-1'); // provisioned while no second step is asked
    await t.settings({ MFA_REQUIRED_FOR: 'all' });
    const agent = t.agent();
    const page = await agent.get('/api/login/').expect(200);
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const form = await agent.post('/api/login/').set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form').send({ username: 'mia', password: 'Mia-corp-pass-1' }).expect(200);
    assert.match(form.text, /Set up two-step verification/);
    assert.equal(cookieValue(form.headers['set-cookie'], t.config.sessionCookieName), undefined, 'no session before the second step');
    const refused = await t.http().get('/api/v2/me/').set('Authorization', basic('mia', 'Mia-corp-pass-1')).expect(401);
    assert.match(refused.body.detail, /two-step verification/i);
  });

  it('is a remote method for DISABLE_LOCAL_AUTH: local users are refused, its users still log in', async () => {
    endpoint.accounts.set('lou', { password: 'Lou-corp-pass-1', email: 'lou@example.org', groups: [] });
    await t.http().patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ DISABLE_LOCAL_AUTH: true }).expect(200);
    try {
      await t.http().get('/api/v2/me/').set('Authorization', admin).expect(401);
      await t.http().get('/api/v2/me/').set('Authorization', basic('lou', 'Lou-corp-pass-1')).expect(200);
    } finally {
      await t.settings({ DISABLE_LOCAL_AUTH: false });
    }
  });

  it('refuses API changes of the fields it manages, in AWX words naming the method', async () => {
    endpoint.accounts.set('max', { password: 'Max-corp-pass-1', email: 'max@example.org', groups: [] });
    await t.http().get('/api/v2/me/').set('Authorization', basic('max', 'Max-corp-pass-1')).expect(200);
    const max = (await userNamed('max'))!;
    const res = await t.http().patch(`/api/v2/users/${max.id}/`).set('Authorization', admin).send({ email: 'other@example.org' }).expect(400);
    assert.deepEqual(res.body, { email: ['Unable to change email on user managed by Corporate login check.'] });
    await t.http().patch(`/api/v2/users/${max.id}/`).set('Authorization', admin).send({ first_name: 'Max' }).expect(200);
  });

  it('answers 503 with its own words while the endpoint cannot answer, uncounted, and local users are unaffected', async () => {
    endpoint.accounts.set('una', { password: 'Una-corp-pass-1', email: 'una@example.org', groups: [] });
    endpoint.down = true;
    const from = { 'X-Forwarded-For': '198.51.100.43' };
    for (let i = 0; i < 4; i++) {
      const res = await t.http().get('/api/v2/me/').set(from).set('Authorization', basic('una', 'Una-corp-pass-1')).expect(503);
      assert.equal(res.body.detail, HTTP_CHECK_UNAVAILABLE);
    }
    await t.http().get('/api/v2/me/').set('Authorization', admin).expect(200);
    endpoint.down = false;
    // Four refusals beyond the allowance of three, none counted: the right password works at once.
    await t.http().get('/api/v2/me/').set(from).set('Authorization', basic('una', 'Una-corp-pass-1')).expect(200);
  });

  it('AUTHENTICATION_MAPS rules naming it decide who may log in and what they get; the explainer and the dry run agree with the login', async () => {
    endpoint.accounts.set('ada', { password: 'Ada-corp-pass-1', email: 'ada@example.org', groups: ['staff', 'corp-admins', 'ops'] });
    endpoint.accounts.set('gus', { password: 'Gus-corp-pass-1', email: 'gus@example.org', groups: ['contractors'] });
    const saved = await t.http().patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ AUTHENTICATION_MAPS: MAPS });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    // The explainer first: it changes nothing, and says what the login then does.
    const before = await explain('ada', 'Ada-corp-pass-1');
    assert.equal(before.body.would_login, true);
    assert.deepEqual([before.body.status, before.body.groups], [200, ['staff', 'corp-admins', 'ops']]);
    assert.deepEqual(before.body.flags, { is_superuser: true, is_system_auditor: false });
    assert.match(before.body.steps.join('\n'), /is_superuser: set, by AUTHENTICATION_MAPS\[1\]\.[\s\S]*It would create the user "ada" \(external_account "httpcheck"; email "ada@example\.org", is_superuser set\)/);
    assert.equal(await userNamed('ada'), undefined, 'the explainer created no one');
    await t.http().get('/api/v2/me/').set('Authorization', basic('ada', 'Ada-corp-pass-1')).expect(200);
    assert.equal((await userNamed('ada'))!.is_superuser, true, 'the login set what the explainer said');
    const orgs = await t.http().get('/api/v2/organizations/?name=Corporate%20Ops').set('Authorization', admin).expect(200);
    const members = await t.http().get(`/api/v2/organizations/${orgs.body.results[0].id}/users/`).set('Authorization', admin).expect(200);
    assert.deepEqual(members.body.results.map((u: { username: string }) => u.username), ['ada']);
    // gus is not staff: refused as a wrong password, and the explainer names the rule.
    await t.http().get('/api/v2/me/').set('Authorization', basic('gus', 'Gus-corp-pass-1')).expect(401);
    assert.equal(await userNamed('gus'), undefined);
    const refused = await explain('gus', 'Gus-corp-pass-1');
    assert.deepEqual([refused.body.would_login, refused.body.maps.refused_by], [false, 'AUTHENTICATION_MAPS[0]']);
    // The dry run replays ada's stored claims, which hold what the endpoint said and never the password.
    const replay = await t.http().post('/api/v2/settings/maps/test/').set('Authorization', admin).send({ source: HTTP_CHECK, username: 'ada' }).expect(200);
    assert.deepEqual(replay.body.claims.groups, ['staff', 'corp-admins', 'ops']);
    assert.equal(replay.body.current.flags.is_superuser.decided_by, 'AUTHENTICATION_MAPS[1]');
    assert.ok(!JSON.stringify(replay.body).includes('Ada-corp-pass-1'), 'no password in the stored claims');
    // A rule naming a method nobody registered is still a 400.
    await t.http().patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ AUTHENTICATION_MAPS: [{ ...MAPS[0], sources: ['nosuchmethod'] }] }).expect(400);
  });
});
