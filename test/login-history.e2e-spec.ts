import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthenticationRecord } from '../src/common/authentication-record';
import { browserLogin } from './support/browser-login';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';

const ADMIN = basic('admin', ADMIN_PASSWORD);
type Notice = { login: { id: number; timestamp: string; ip_address: string } | null; previous_login: { id: number; timestamp: string } | null; failed_since_previous: number };

/**
 * SPEC §22's previous-login notice (AC-9, V-222437) through HTTP: `GET /api/v2/me/login_notice/` for a session's own
 * login and for other callers, the failed attempts between two logins (a `throttled` event counting its attempts),
 * the user resource's `previous_login`, the profile page's `status` line, and the login history as §23's events.
 * Behind a trusted proxy, so X-Forwarded-For names each attempt's address.
 */
describe(`the previous login and the login history (SPEC §22, ${TEST_DB})`, () => {
  let t: TestApp;
  let aliceId: number;
  const flush = () => t.app.get(AuthenticationRecord).flush();
  const from = (ip: string) => ({ 'X-Forwarded-For': ip });
  const notice = async (agent: ReturnType<TestApp['agent']>) => (await agent.get('/api/v2/me/login_notice/').expect(200)).body as Notice;
  const wrong = (ip: string) => t.http().get('/api/v2/me/').set(from(ip)).set('Authorization', basic('alice', 'not-her-password')).expect(401);

  before(async () => {
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    aliceId = await t.createUser('alice', 'Alice-pass-1');
  });
  after(() => t?.close());

  it('a first login: no previous login, nothing failed, and the profile says so', async () => {
    const first = await browserLogin(t, 'alice', 'Alice-pass-1', { headers: from('198.51.100.1') });
    const got = await notice(first.agent);
    assert.deepEqual(Object.keys(got), ['login', 'previous_login', 'failed_since_previous']);
    assert.equal(got.previous_login, null);
    assert.equal(got.failed_since_previous, 0);
    assert.equal(got.login?.ip_address, '198.51.100.1');
    const page = await first.agent.get('/accounts/profile/').expect(200);
    assert.match(page.text, /<p id="previous-login" class="status" role="status">This is your first login\. 0 failed login attempts since then\.<\/p>/);
    const user = (await t.http().get(`/api/v2/users/${aliceId}/`).set('Authorization', ADMIN).expect(200)).body;
    assert.equal(user.previous_login, null);
    assert.equal(user.last_login, got.login?.timestamp);
  });

  it('a later login: the one before it, the failures between (a throttled one counting its attempts), on the API, the profile and the user', async () => {
    const first = await notice((await browserLogin(t, 'alice', 'Alice-pass-1', { headers: from('198.51.100.2') })).agent);
    // Five wrong passwords lock the pair; three refused attempts more are one throttled event with attempts 3.
    for (let i = 0; i < 5; i++) await wrong('203.0.113.9');
    for (let i = 0; i < 3; i++) await t.http().get('/api/v2/me/').set(from('203.0.113.9')).set('Authorization', basic('alice', 'Alice-pass-1')).expect(429);
    await flush();
    const second = await browserLogin(t, 'alice', 'Alice-pass-1', { headers: from('198.51.100.3') });
    const got = await notice(second.agent);
    assert.equal(got.previous_login?.id, first.login?.id);
    assert.equal(got.failed_since_previous, 8);
    assert.equal(got.login?.ip_address, '198.51.100.3');

    const page = await second.agent.get('/accounts/profile/').expect(200);
    const line = `Previous login: ${first.login?.timestamp} from 198.51.100.2. 8 failed login attempts since then.`;
    assert.ok(page.text.includes(`role="status">${line}</p>`), page.text.slice(0, 2000));
    // Every visit shows the calling session's login; another caller reads the user's latest.
    assert.ok((await second.agent.get('/accounts/profile/').expect(200)).text.includes(line));
    const basicCaller = (await t.http().get('/api/v2/me/login_notice/').set('Authorization', basic('alice', 'Alice-pass-1')).expect(200)).body as Notice;
    assert.equal(basicCaller.login?.id, got.login?.id);
    const user = (await t.http().get(`/api/v2/users/${aliceId}/`).set('Authorization', ADMIN).expect(200)).body;
    assert.equal(user.previous_login, first.login?.timestamp);
    assert.equal(user.last_login, got.login?.timestamp);
  });

  it('is the caller\'s own only, 401 anonymous, and its writes are 405', async () => {
    await t.http().get('/api/v2/me/login_notice/').expect(401);
    const admin = (await t.http().get('/api/v2/me/login_notice/').set('Authorization', ADMIN).expect(200)).body as Notice;
    assert.equal(admin.login, null, 'admin never logged in by a form or grant');
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      const res = await t.http()[method]('/api/v2/me/login_notice/').set('Authorization', ADMIN).send({});
      assert.equal(res.status, 405);
    }
  });

  it('is §23\'s record: the history lists the logins and the failures with their addresses', async () => {
    await flush();
    const history = (await t.http().get('/api/v2/me/authentication_events/?event__in=login_succeeded,login_failed&order_by=-timestamp').set('Authorization', basic('alice', 'Alice-pass-1')).expect(200)).body.results as { event: string; ip_address: string; reason: string | null }[];
    assert.deepEqual(history.filter((e) => e.event === 'login_succeeded').map((e) => e.ip_address), ['198.51.100.3', '198.51.100.2', '198.51.100.1']);
    assert.deepEqual(history.filter((e) => e.event === 'login_failed').map((e) => e.reason), ['throttled', 'wrong_password', 'wrong_password', 'wrong_password', 'wrong_password', 'wrong_password']);
  });
});
