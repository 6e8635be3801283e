import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { browserLogin, cookieValue } from './support/browser-login';

const IP_A = { 'X-Forwarded-For': '203.0.113.10' };
const IP_B = { 'X-Forwarded-For': '203.0.113.20' };

async function formLogin(t: TestApp, username: string, password: string, headers: Record<string, string>) {
  const agent = t.agent();
  const page = await agent.get('/api/login/').set(headers);
  const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
  return agent.post('/api/login/').set(headers).set('X-CSRFToken', csrf).type('form').send({ username, password });
}

describe('login throttling (SPEC §12)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    await t.createUser('gina', 'Gina-pass-1');
  });
  beforeEach(() => t.settings({ LOGIN_FAILURES_ALLOWED: 5, LOGIN_FAILURE_WINDOW: 900 }));
  after(() => t.close());

  it('the login form answers 429 with Retry-After after 5 failures, even for the right password', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await formLogin(t, 'gina', 'wrong', IP_A)).status, 401);
    const throttled = await formLogin(t, 'gina', 'Gina-pass-1', IP_A);
    assert.equal(throttled.status, 429);
    assert.ok(Number(throttled.headers['retry-after']) > 890 && Number(throttled.headers['retry-after']) <= 900);
    assert.match(throttled.text, /role="alert"[^>]*>Too many failed login attempts/);
    assert.equal(cookieValue(throttled.headers['set-cookie'], 'svc_session_id'), undefined);
    // another address is unaffected: no lockout of the user
    assert.equal((await formLogin(t, 'gina', 'Gina-pass-1', IP_B)).status, 302);
    // the window passing lets the pair in again
    t.clock.advance(901);
    assert.equal((await formLogin(t, 'gina', 'Gina-pass-1', IP_A)).status, 302);
  });

  it('basic auth shares the same counter and answers 429 JSON with Retry-After', async () => {
    for (let i = 0; i < 3; i++) await formLogin(t, 'gina', 'wrong', IP_B);
    for (let i = 0; i < 2; i++) await t.http().get('/api/v2/me/').set(IP_B).set('Authorization', basic('gina', 'wrong')).expect(401);
    const res = await t.http().get('/api/v2/me/').set(IP_B).set('Authorization', basic('gina', 'Gina-pass-1')).expect(429);
    assert.match(res.body.detail, /^Too many failed login attempts\. Try again in \d+ seconds\.$/);
    assert.ok(Number(res.headers['retry-after']) > 0);
    await t.http().get('/api/v2/me/').set(IP_A).set('Authorization', basic('gina', 'Gina-pass-1')).expect(200);
    t.clock.advance(901);
  });

  it('a success resets the pair', async () => {
    for (let i = 0; i < 4; i++) await t.http().get('/api/v2/me/').set(IP_A).set('Authorization', basic('gina', 'nope')).expect(401);
    await t.http().get('/api/v2/me/').set(IP_A).set('Authorization', basic('gina', 'Gina-pass-1')).expect(200);
    for (let i = 0; i < 4; i++) await t.http().get('/api/v2/me/').set(IP_A).set('Authorization', basic('gina', 'nope')).expect(401);
    await t.http().get('/api/v2/me/').set(IP_A).set('Authorization', basic('gina', 'Gina-pass-1')).expect(200);
  });

  it('unknown usernames are throttled the same way', async () => {
    for (let i = 0; i < 5; i++) await t.http().get('/api/v2/me/').set(IP_A).set('Authorization', basic('ghost', 'nope')).expect(401);
    await t.http().get('/api/v2/me/').set(IP_A).set('Authorization', basic('ghost', 'nope')).expect(429);
  });

  it('honours LOGIN_FAILURES_ALLOWED and LOGIN_FAILURE_WINDOW', async () => {
    await t.settings({ LOGIN_FAILURES_ALLOWED: 2, LOGIN_FAILURE_WINDOW: 60 });
    await t.createUser('hank', 'Hank-pass-1');
    for (let i = 0; i < 2; i++) await t.http().get('/api/v2/me/').set(IP_B).set('Authorization', basic('hank', 'x')).expect(401);
    const res = await t.http().get('/api/v2/me/').set(IP_B).set('Authorization', basic('hank', 'Hank-pass-1')).expect(429);
    assert.ok(Number(res.headers['retry-after']) <= 60);
    t.clock.advance(61);
    await t.http().get('/api/v2/me/').set(IP_B).set('Authorization', basic('hank', 'Hank-pass-1')).expect(200);
  });
});

describe('authentication events, metrics and the OpenAPI document (SPEC §12)', () => {
  let t: TestApp;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  before(async () => {
    t = await startTestApp();
    await t.createUser('ivy', 'Ivy-pass-1');
    await t.createUser('auditor', 'Auditor-pass-1', { is_system_auditor: true });
  });
  after(() => t.close());

  function events(name: string): Record<string, unknown>[] {
    return t.logs.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).filter((e) => e.event === name);
  }

  it('writes one structured event per outcome, with request id, user, method, address and outcome', async () => {
    const { agent, session, csrf } = await browserLogin(t, 'ivy', 'Ivy-pass-1');
    await t.http().get('/api/v2/me/').set('Authorization', basic('ivy', 'wrong-password-xyz')).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', basic('ivy', 'Ivy-pass-1')).expect(200);
    await agent.get('/api/logout/').expect(302);
    await t.http().patch('/api/v2/settings/authentication/').set('Authorization', admin()).send({ SESSION_COOKIE_AGE: 1200 }).expect(200);
    const login = events('login').find((e) => e.username === 'ivy' && e.method === 'session');
    assert.ok(login, 'login event');
    assert.equal(login.outcome, 'success');
    assert.match(String(login.request_id), /^[0-9a-f]{32}$/);
    assert.equal(login.client_ip, '127.0.0.1');
    const failed = events('login_failed').find((e) => e.username === 'ivy' && e.method === 'basic');
    assert.ok(failed && failed.outcome === 'invalid_credentials' && failed.request_id);
    assert.ok(events('api_auth').some((e) => e.username === 'ivy' && e.method === 'basic' && e.outcome === 'success'));
    assert.ok(events('logout').some((e) => e.username === 'ivy'));
    assert.ok(events('session_ended').some((e) => e.reason === 'logged_out'));
    assert.ok(events('settings_changed').some((e) => (e.keys as string[]).includes('SESSION_COOKIE_AGE') && e.user === 'admin'));
    const joined = t.logs.join('\n');
    for (const secret of ['Ivy-pass-1', 'wrong-password-xyz', ADMIN_PASSWORD, session, csrf]) assert.ok(!joined.includes(secret), 'a secret reached the log');
  });

  it('samples basic successes instead of logging every request', async () => {
    const before = events('api_auth').filter((e) => e.username === 'auditor').length;
    for (let i = 0; i < 5; i++) await t.http().get('/api/v2/me/').set('Authorization', basic('auditor', 'Auditor-pass-1')).expect(200);
    assert.equal(events('api_auth').filter((e) => e.username === 'auditor').length - before, 1);
  });

  it('serves Prometheus metrics to superusers and auditors, and moves with real logins', async () => {
    await t.http().get('/api/v2/metrics/').expect(401);
    await t.http().get('/api/v2/metrics/').set('Authorization', basic('ivy', 'Ivy-pass-1')).expect(403);
    const read = async () => (await t.http().get('/api/v2/metrics/').set('Authorization', basic('auditor', 'Auditor-pass-1')).expect(200)).text;
    const metric = (text: string, name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    const first = await read();
    assert.match(first, /# TYPE svc_http_request_duration_seconds histogram/);
    const sessionLogins = metric(first, 'svc_logins_total{method="session",outcome="success"}');
    const live = metric(first, 'svc_live_sessions');
    await browserLogin(t, 'ivy', 'Ivy-pass-1');
    await t.http().get('/api/v2/me/').set('Authorization', basic('ivy', 'bad')).expect(401);
    const second = await read();
    assert.equal(metric(second, 'svc_logins_total{method="session",outcome="success"}'), sessionLogins + 1);
    assert.equal(metric(second, 'svc_live_sessions'), live + 1);
    assert.ok(metric(second, 'svc_logins_total{method="basic",outcome="invalid_credentials"}') >= 1);
    assert.ok(metric(second, 'svc_sessions_ended_total{reason="logged_out"}') >= 1);
    await t.settings({ ALLOW_METRICS_FOR_ANONYMOUS_USERS: true });
    await t.http().get('/api/v2/metrics/').expect(200);
    await t.settings({ ALLOW_METRICS_FOR_ANONYMOUS_USERS: false });
  });

  it('publishes an OpenAPI document listing every route, with the security schemes', async () => {
    const doc = (await t.http().get('/api/swagger/json/').expect(200)).body;
    assert.equal(doc.openapi.startsWith('3.'), true);
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['basic', 'bearer', 'session']);
    const routes = t.routes.map((r) => ({ method: r.method.toLowerCase(), path: r.path })).filter((r) => !r.path.startsWith('/api/swagger'));
    assert.ok(routes.length > 10);
    for (const { method, path } of routes) {
      const openApiPath = (path.endsWith('/') ? path : `${path}/`).replace(/:([A-Za-z_]+)/g, '{$1}');
      assert.ok(doc.paths[openApiPath]?.[method], `${method.toUpperCase()} ${openApiPath} is documented`);
    }
    const page = await t.http().get('/api/swagger/').expect(200);
    assert.match(page.text, /swagger-ui/);
  });
});
