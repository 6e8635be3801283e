import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Response, Test } from 'supertest';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { cookieValue } from './support/browser-login';
import { registerApp, tokenRequest } from './support/oauth2';

/** Events the background loops write: they belong to no request, so they carry no request id. */
const BACKGROUND = new Set(['sessions_swept', 'revocation_cleaned', 'tokens_cleared', 'background_loop_failed', 'last_used_flush_failed', 'session_watch_failed', 'token_expiring']);

/**
 * SPEC §1: a request's X-API-Request-Id is on every log line written while serving it. The id travels
 * explicitly from the request to the services that log (common/request-context.ts), so a log call that
 * is not handed it would write a line without it: every request below sends its own id and every line
 * written before its answer must carry exactly that id, whichever service, listener or strategy wrote it.
 */
describe('the request id on every log line of a request (SPEC §1)', () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);

  let ritaId: number;

  before(async () => {
    t = await startTestApp();
    ritaId = await t.createUser('rita', 'Rita-pass-1');
  });
  after(() => t.close());

  /** Sends one request with a fresh id; returns its answer after checking the lines it wrote. */
  async function traced(expected: string[], send: (id: string) => Test): Promise<Response> {
    const id = randomBytes(16).toString('hex');
    const from = t.logs.length;
    const res = await send(id);
    assert.equal(res.headers['x-api-request-id'], id);
    const lines = t.logs.slice(from).filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const line of lines) {
      if (line.request_id === undefined && BACKGROUND.has(String(line.event))) continue;
      assert.equal(line.request_id, id, `a line written while serving the request lacks its id: ${JSON.stringify(line)}`);
    }
    const events = lines.map((l) => l.event);
    for (const event of expected) assert.ok(events.includes(event), `expected a ${event} line, got ${JSON.stringify(events)}`);
    return res;
  }

  it('logins, refusals, the throttle and logout', async () => {
    const agent = t.agent();
    const page = await agent.get('/api/login/').expect(200);
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const login = (id: string, password: string) =>
      agent.post('/api/login/').set('X-API-Request-Id', id).set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form').send({ username: 'rita', password });
    await traced(['login_failed'], (id) => login(id, 'wrong'));
    await traced(['login'], (id) => login(id, 'Rita-pass-1'));
    await traced(['login_failed'], (id) => t.http().get('/api/v2/me/').set('X-API-Request-Id', id).set('Authorization', basic('rita', 'wrong')));
    await traced(['api_auth'], (id) => t.http().get('/api/v2/me/').set('X-API-Request-Id', id).set('Authorization', basic('rita', 'Rita-pass-1')));
    await traced(['session_ended', 'logout'], (id) => agent.get('/api/logout/').set('X-API-Request-Id', id));

    await t.settings({ LOGIN_FAILURES_ALLOWED: 1 });
    try {
      await traced(['login_failed'], (id) => t.http().get('/api/v2/me/').set('X-API-Request-Id', id).set('Authorization', basic('rita', 'wrong-again')));
      const throttled = await traced(['login_throttled'], (id) => t.http().get('/api/v2/me/').set('X-API-Request-Id', id).set('Authorization', basic('rita', 'Rita-pass-1')));
      assert.equal(throttled.status, 429);
    } finally {
      await t.settings({ LOGIN_FAILURES_ALLOWED: 5 });
      // A lock keeps the end it was taken with (SPEC §22): a raised allowance does not release it, an unlock does.
      await t.http().delete(`/api/v2/users/${ritaId}/login_locks/`).set('Authorization', admin).expect(204);
    }
  });

  it('a wrong current password on a password change, then the throttle, counted in the metrics', async () => {
    const patId = await t.createUser('pat', 'Pat-pass-12');
    const token = (await t.http().post('/api/v2/tokens/').set('Authorization', basic('pat', 'Pat-pass-12')).send({ scope: 'write' }).expect(201)).body.token as string;
    const throttledCount = async () => {
      const text = (await t.http().get('/api/v2/metrics/').set('Authorization', admin).expect(200)).text;
      return Number(/^svc_login_throttled_total\{method="password_change"\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const before = await throttledCount();
    const change = (id: string) =>
      t.http().patch(`/api/v2/users/${patId}/`).set('X-API-Request-Id', id).set('Authorization', `Bearer ${token}`).send({ password: 'Pat-pass-34', old_password: 'wrong' });
    await t.settings({ LOGIN_FAILURES_ALLOWED: 1 });
    try {
      assert.equal((await traced(['login_failed'], change)).status, 400);
      assert.equal((await traced(['login_throttled'], change)).status, 429);
    } finally {
      await t.settings({ LOGIN_FAILURES_ALLOWED: 5 });
    }
    assert.equal(await throttledCount(), before + 1);
  });

  it('account changes and the sessions and tokens they end (listeners included)', async () => {
    const created = await traced(['user_created'], (id) =>
      t.http().post('/api/v2/users/').set('X-API-Request-Id', id).set('Authorization', admin).send({ username: 'sam', password: 'Sam-pass-12' }),
    );
    const userId = created.body.id as number;
    const sam = basic('sam', 'Sam-pass-12');
    await traced(['token_created'], (id) => t.http().post(`/api/v2/users/${userId}/personal_tokens/`).set('X-API-Request-Id', id).set('Authorization', sam).send({ scope: 'read' }));
    await traced(['password_changed', 'sessions_cut_off'], (id) =>
      t.http().patch(`/api/v2/users/${userId}/`).set('X-API-Request-Id', id).set('Authorization', admin).send({ password: 'Sam-pass-34' }),
    );
    await traced(['sessions_cut_off', 'user_tokens_revoked'], (id) =>
      t.http().patch(`/api/v2/users/${userId}/`).set('X-API-Request-Id', id).set('Authorization', admin).send({ is_active: false }),
    );
    await traced(['sessions_cut_off'], (id) => t.http().delete(`/api/v2/users/${userId}/sessions/`).set('X-API-Request-Id', id).set('Authorization', admin));
    await traced(['user_deleted', 'user_tokens_revoked'], (id) => t.http().delete(`/api/v2/users/${userId}/`).set('X-API-Request-Id', id).set('Authorization', admin));
    await traced(['settings_changed'], (id) =>
      t.http().patch('/api/v2/settings/authentication/').set('X-API-Request-Id', id).set('Authorization', admin).send({ SESSION_COOKIE_AGE: 1500 }),
    );
  });

  it('tokens, applications and the OAuth 2 endpoints', async () => {
    const rita = basic('rita', 'Rita-pass-1');
    const token = await traced(['token_created'], (id) => t.http().post('/api/v2/tokens/').set('X-API-Request-Id', id).set('Authorization', rita).send({ scope: 'write' }));
    await traced(['token_updated'], (id) => t.http().patch(`/api/v2/tokens/${token.body.id}/`).set('X-API-Request-Id', id).set('Authorization', rita).send({ description: 'x' }));
    await traced(['tokens_revoked'], (id) => t.http().delete(`/api/v2/tokens/${token.body.id}/`).set('X-API-Request-Id', id).set('Authorization', rita));
    const refused = await traced(['api_auth'], (id) => t.http().get('/api/v2/me/').set('X-API-Request-Id', id).set('Authorization', `Bearer ${token.body.token}`));
    assert.equal(refused.status, 401);

    const app = await registerApp(t, rita, { client_type: 'confidential', authorization_grant_type: 'password' });
    await traced(['application_updated'], (id) => t.http().patch(`/api/v2/applications/${app.id}/`).set('X-API-Request-Id', id).set('Authorization', rita).send({ description: 'd' }));
    const client = { clientId: app.clientId, secret: app.clientSecret! };
    const grant = await traced(['login', 'token_created'], (id) =>
      tokenRequest(t, { grant_type: 'password', username: 'rita', password: 'Rita-pass-1', scope: 'read' }, client).set('X-API-Request-Id', id),
    );
    assert.equal(grant.status, 200, grant.text);
    const refresh = { grant_type: 'refresh_token', refresh_token: grant.body.refresh_token as string };
    await traced(['refresh_token_rotated', 'tokens_revoked', 'token_created'], (id) => tokenRequest(t, refresh, client).set('X-API-Request-Id', id));
    await traced(['refresh_token_reused', 'token_family_revoked'], (id) => tokenRequest(t, refresh, client).set('X-API-Request-Id', id));
    await traced(['client_auth_failed'], (id) => tokenRequest(t, refresh, { clientId: app.clientId, secret: 'wrong' }).set('X-API-Request-Id', id));
    await traced(['client_auth_failed'], (id) =>
      t.http().post('/api/o/revoke_token/').set('X-API-Request-Id', id).type('form').send({ token: 'x', client_id: app.clientId, client_secret: 'wrong' }),
    );
    await traced(['application_deleted'], (id) => t.http().delete(`/api/v2/applications/${app.id}/`).set('X-API-Request-Id', id).set('Authorization', rita));
  });

  it('an id the client did not send is generated, and a malformed one is replaced', async () => {
    const generated = await t.http().get('/api/v2/ping/').expect(200);
    assert.match(String(generated.headers['x-api-request-id']), /^[0-9a-f]{32}$/);
    const upper = 'ABCDEF0123456789ABCDEF0123456789';
    assert.equal((await t.http().get('/api/v2/ping/').set('X-API-Request-Id', upper)).headers['x-api-request-id'], upper.toLowerCase());
    const replaced = await t.http().get('/api/v2/ping/').set('X-API-Request-Id', 'not-an-id').expect(200);
    assert.match(String(replaced.headers['x-api-request-id']), /^[0-9a-f]{32}$/);
  });
});
