import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SessionSweeper } from '../src/sessions/session-sweeper.service';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { browserLogin } from './support/browser-login';
import { runManage } from './support/service-process';

describe('session lifetime and end reasons (SPEC §2–§3)', () => {
  let t: TestApp;
  let bobId: number;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  before(async () => {
    t = await startTestApp();
    bobId = await t.createUser('bob', 'Bob-pass-1');
  });
  beforeEach(() => t.settings({ SESSION_COOKIE_AGE: 1800, SESSION_ABSOLUTE_TIMEOUT: 0, SESSIONS_PER_USER: -1, SESSIONS_PER_IP: -1 }));
  after(() => t.close());

  it('slides the idle expiry on every request and ends an idle session (idle_timeout)', async () => {
    await t.settings({ SESSION_COOKIE_AGE: 60 });
    const { agent } = await browserLogin(t, 'bob', 'Bob-pass-1');
    t.clock.advance(59);
    const alive = await agent.get('/api/v2/me/').expect(200);
    assert.equal(alive.headers['session-timeout'], '60');
    t.clock.advance(59); // 118 s after login, 59 s after the last request
    await agent.get('/api/v2/me/').expect(200);
    t.clock.advance(61);
    const idle = await agent.get('/api/v2/me/').expect(401);
    assert.equal(idle.body.reason, 'idle_timeout');
    assert.match(idle.body.detail, /idle/);
  });

  it('does not slide on requests that carry X-WS-Session-Quiet', async () => {
    await t.settings({ SESSION_COOKIE_AGE: 60 });
    const { agent } = await browserLogin(t, 'bob', 'Bob-pass-1');
    t.clock.advance(30);
    const quiet = await agent.get('/api/v2/me/').set('X-WS-Session-Quiet', '1').expect(200);
    assert.equal(quiet.headers['session-timeout'], undefined);
    assert.equal(quiet.headers['set-cookie'], undefined);
    t.clock.advance(31);
    const res = await agent.get('/api/v2/me/').expect(401);
    assert.equal(res.body.reason, 'idle_timeout');
  });

  it('caps a busy session at SESSION_ABSOLUTE_TIMEOUT (absolute_timeout)', async () => {
    await t.settings({ SESSION_COOKIE_AGE: 60, SESSION_ABSOLUTE_TIMEOUT: 100 });
    const { agent, response } = await browserLogin(t, 'bob', 'Bob-pass-1');
    assert.equal(response.headers['session-timeout'], '60');
    t.clock.advance(50);
    const mid = await agent.get('/api/v2/me/').expect(200);
    assert.equal(mid.headers['session-timeout'], '50', 'min(age, what is left of the absolute lifetime)');
    assert.match(String(mid.headers['set-cookie']), /Max-Age=50;/);
    t.clock.advance(45);
    const late = await agent.get('/api/v2/me/').expect(200);
    assert.equal(late.headers['session-timeout'], '5');
    // The lists test the idle expiry alone: it was capped at the absolute one, so the session leaves them then.
    const listed = async () => (await t.http().get('/api/v2/me/sessions/').set('Authorization', basic('bob', 'Bob-pass-1')).expect(200)).body.count;
    assert.equal(await listed(), 1);
    t.clock.advance(10);
    assert.equal(await listed(), 0, 'a session past its absolute expiry is not listed');
    const over = await agent.get('/api/v2/me/').expect(401);
    assert.equal(over.body.reason, 'absolute_timeout');
    assert.match(over.body.detail, /expired/);
  });

  it('a password change ends the user\'s other sessions but keeps the one that made it (password_changed)', async () => {
    const a = await browserLogin(t, 'bob', 'Bob-pass-1');
    const b = await browserLogin(t, 'bob', 'Bob-pass-1');
    await a.agent.patch(`/api/v2/users/${bobId}/`).set('X-CSRFToken', a.csrf).send({ password: 'Bob-pass-2', old_password: 'Bob-pass-1' }).expect(200);
    await a.agent.get('/api/v2/me/').expect(200);
    const other = await b.agent.get('/api/v2/me/').expect(401);
    assert.equal(other.body.reason, 'password_changed');
    assert.match(other.body.detail, /password/);
    await t.http().patch(`/api/v2/users/${bobId}/`).set('Authorization', admin()).send({ password: 'Bob-pass-1' }).expect(200);
    await a.agent.get('/api/v2/me/').expect(401); // an admin's change ends every session of the user
  });

  it('deactivating a user ends all their sessions (user_disabled)', async () => {
    const id = await t.createUser('carol', 'Carol-pass-1');
    const { agent } = await browserLogin(t, 'carol', 'Carol-pass-1');
    await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', admin()).send({ is_active: false }).expect(200);
    const res = await agent.get('/api/v2/me/').expect(401);
    assert.equal(res.body.reason, 'user_disabled');
    assert.match(res.body.detail, /disabled/);
  });

  it('lists one\'s live sessions, marks the current one, never shows the cookie, and ends another (ended_by_user)', async () => {
    const id = await t.createUser('dave', 'Dave-pass-1');
    const a = await browserLogin(t, 'dave', 'Dave-pass-1');
    const b = await browserLogin(t, 'dave', 'Dave-pass-1', { headers: { 'User-Agent': 'Second Browser/1.0' } });
    const list = await a.agent.get('/api/v2/me/sessions/').expect(200);
    assert.equal(list.body.count, 2);
    for (const s of list.body.results) {
      assert.deepEqual(Object.keys(s).sort(), ['created', 'current', 'expires', 'id', 'ip_address', 'last_seen', 'method', 'source', 'type', 'user_agent']);
    }
    assert.ok(!JSON.stringify(list.body).includes(a.session) && !JSON.stringify(list.body).includes(b.session));
    const current = list.body.results.filter((s: { current: boolean }) => s.current);
    assert.equal(current.length, 1);
    const other = list.body.results.find((s: { current: boolean }) => !s.current);
    assert.equal(other.user_agent, 'Second Browser/1.0');
    assert.equal(other.ip_address, '127.0.0.1');
    await a.agent.delete(`/api/v2/me/sessions/${other.id}/`).expect(403); // CSRF
    await a.agent.delete(`/api/v2/me/sessions/${other.id}/`).set('X-CSRFToken', a.csrf).expect(204);
    const ended = await b.agent.get('/api/v2/me/').expect(401);
    assert.equal(ended.body.reason, 'ended_by_user');
    assert.match(ended.body.detail, /logged out/);
    await a.agent.delete(`/api/v2/me/sessions/${other.id}/`).set('X-CSRFToken', a.csrf).expect(404);
    // someone else's session is not found
    const eve = await browserLogin(t, 'bob', 'Bob-pass-1');
    const eveList = await eve.agent.get('/api/v2/me/sessions/').expect(200);
    await a.agent.delete(`/api/v2/me/sessions/${eveList.body.results[0].id}/`).set('X-CSRFToken', a.csrf).expect(404);
    // a superuser sees and ends them all (revoked_by_admin); a normal user cannot
    const asAdmin = await t.http().get(`/api/v2/users/${id}/sessions/`).set('Authorization', admin()).expect(200);
    assert.equal(asAdmin.body.count, 1);
    await t.http().get(`/api/v2/users/${id}/sessions/`).set('Authorization', basic('bob', 'Bob-pass-1')).expect(403);
    await t.http().delete(`/api/v2/users/${id}/sessions/`).set('Authorization', basic('bob', 'Bob-pass-1')).expect(403);
    await t.http().delete(`/api/v2/users/${id}/sessions/`).set('Authorization', admin()).expect(204);
    const revoked = await a.agent.get('/api/v2/me/').expect(401);
    assert.equal(revoked.body.reason, 'revoked_by_admin');
    assert.match(revoked.body.detail, /revoked/);
    await t.http().get('/api/v2/users/999999/sessions/').set('Authorization', admin()).expect(404);
  });

  it('an ended session cookie next to a basic header lets basic decide', async () => {
    const { agent, session } = await browserLogin(t, 'bob', 'Bob-pass-1');
    await agent.get('/api/logout/').expect(302);
    const res = await t.http().get('/api/v2/me/').set('Cookie', `svc_session_id=${session}`).set('Authorization', basic('bob', 'Bob-pass-1')).expect(200);
    assert.equal(res.body.results[0].username, 'bob');
  });

  it('the login page tells a browser whose session was ended why', async () => {
    await t.settings({ SESSIONS_PER_USER: 1 });
    const first = await browserLogin(t, 'bob', 'Bob-pass-1');
    await browserLogin(t, 'bob', 'Bob-pass-1');
    const page = await first.agent.get('/api/login/').expect(200);
    assert.match(page.text, /role="alert"[^>]*>You were logged out: the session limit was reached/);
    const byQuery = await t.http().get('/api/login/?reason=idle_timeout').expect(200);
    assert.match(byQuery.text, /role="alert"[^>]*>[^<]*idle/);
    const bogus = await t.http().get('/api/login/?reason=<script>').expect(200);
    assert.doesNotMatch(bogus.text, /<script>/);
  });

  it('the sweeper stamps timed-out sessions and deletes ended ones only after 24 hours', async () => {
    await t.settings({ SESSION_COOKIE_AGE: 60 });
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const { session } = await browserLogin(t, 'bob', 'Bob-pass-1');
    t.clock.advance(120);
    await t.app.get(SessionSweeper).sweepAll();
    const [row] = await ds.query("SELECT ended_reason FROM user_session WHERE key_hash = ?", [require('node:crypto').createHash('sha256').update(session).digest('hex')]);
    assert.equal(row.ended_reason, 'idle_timeout');
    const res = await t.http().get('/api/v2/me/').set('Cookie', `svc_session_id=${session}`).expect(401);
    assert.equal(res.body.reason, 'idle_timeout');
    t.clock.advance(23 * 3600);
    await t.app.get(SessionSweeper).sweepAll();
    assert.equal((await ds.query("SELECT id FROM user_session WHERE ended_reason = 'idle_timeout'")).length > 0, true, 'kept for 24 hours');
    t.clock.advance(2 * 3600);
    await t.app.get(SessionSweeper).sweepAll();
    const left = await ds.query('SELECT id FROM user_session WHERE ended_at IS NOT NULL');
    assert.equal(left.length, 0, 'ended sessions older than 24 hours are gone');
  });

  it('expire_sessions and cleanup_sessions work from the command line', async () => {
    const env = { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: 'test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz' };
    const { agent } = await browserLogin(t, 'bob', 'Bob-pass-1');
    const unknown = runManage(['expire_sessions', '--user', 'ghost'], env);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /The user 'ghost' does not exist\./);
    const ok = runManage(['expire_sessions', '--user', 'bob'], env);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /Expired [1-9]\d* session/);
    const res = await agent.get('/api/v2/me/').expect(401);
    assert.equal(res.body.reason, 'revoked_by_admin');
    const cleanup = runManage(['cleanup_sessions'], env);
    assert.equal(cleanup.status, 0, cleanup.stderr);
    assert.match(cleanup.stdout, /Expired sessions marked: \d+; ended sessions deleted: \d+/);
  });
});
