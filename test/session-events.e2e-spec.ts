import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:net';
import { SessionWatcher } from '../src/sessions/session-watcher.service';
import { ADMIN_PASSWORD, startTestApp, TestApp } from './support/test-app';
import { browserLogin } from './support/browser-login';
import { openEventStream } from './support/event-stream';

const EVENTS = '/api/v2/me/session/events/';
const NO_CACHE = 'max-age=0, no-cache, no-store, must-revalidate, private';

/** GET /api/v2/me/session/events/: the live notice of SPEC §13 over server-sent events. */
describe('session events (server-sent events)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1');
  });
  after(() => t.close());

  const cookieOf = (session: string) => ({ Cookie: `${t.config.sessionCookieName}=${session}` });
  const idOf = async (agent: Awaited<ReturnType<typeof browserLogin>>['agent']) =>
    (await agent.get('/api/v2/me/sessions/').set('X-WS-Session-Quiet', '1').expect(200)).body.results.find((s: { current: boolean }) => s.current)
      .id as number;

  it('refuses anonymous callers with 401 and a non-Basic challenge', async () => {
    const res = await t.http().get(EVENTS).expect(401);
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="api"');
    assert.match(res.body.detail, /Authentication credentials were not provided/);
  });

  it('refuses a basic-auth caller: there is no session to follow', async () => {
    const res = await t.http().get(EVENTS).auth('alice', 'Alice-pass-1').expect(400);
    assert.match(res.body.detail, /browser session/);
  });

  it('streams the time left without sliding the session', async () => {
    const { agent, session } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const before = (await agent.get('/api/v2/me/sessions/').set('X-WS-Session-Quiet', '1')).body.results[0];
    t.clock.advance(30);
    const stream = await openEventStream(t.url, EVENTS, cookieOf(session));
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
      assert.equal(stream.headers['cache-control'], NO_CACHE);
      assert.equal(stream.headers['set-cookie'], undefined, 'no re-set session cookie');
      assert.equal(stream.headers['session-timeout'], undefined);
      const first = await stream.next('session');
      const left = (first.data as { expires_in: number }).expires_in;
      assert.ok(left <= 1770 && left >= 1765, `expires_in ${left}`);
      const after = (await agent.get('/api/v2/me/sessions/').set('X-WS-Session-Quiet', '1')).body.results[0];
      assert.equal(after.last_seen, before.last_seen);
      assert.equal(after.expires, before.expires);
    } finally {
      stream.close();
    }
  });

  it('never slides the session, however the stream path is spelled', async () => {
    const { agent, session } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const before = (await agent.get('/api/v2/me/sessions/').set('X-WS-Session-Quiet', '1')).body.results[0];
    for (const path of [`${EVENTS}?since=0`, EVENTS.replace('events', '%65vents')]) {
      t.clock.advance(30);
      const stream = await openEventStream(t.url, path, cookieOf(session));
      try {
        assert.equal(stream.status, 200, path);
        assert.equal(stream.headers['set-cookie'], undefined, `${path}: no re-set session cookie`);
        await stream.next('session');
      } finally {
        stream.close();
      }
    }
    const after = (await agent.get('/api/v2/me/sessions/').set('X-WS-Session-Quiet', '1')).body.results[0];
    assert.equal(after.expires, before.expires);
  });

  it('tells the page when another tab slides the session', async () => {
    const { agent, session } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const stream = await openEventStream(t.url, EVENTS, cookieOf(session));
    try {
      await stream.next('session');
      t.clock.advance(600);
      await agent.get('/api/v2/me/').expect(200);
      const moved = await stream.next('session');
      const left = (moved.data as { expires_in: number }).expires_in;
      // Slid to a full SESSION_COOKIE_AGE, less the real seconds the watcher took to notice.
      assert.ok(left > 1780 && left <= 1800, `expires_in ${left}`);
    } finally {
      stream.close();
    }
  });

  it('sends "ended" with the reason when the session is ended from the sessions list, then closes', async () => {
    const watched = await browserLogin(t, 'alice', 'Alice-pass-1');
    const other = await browserLogin(t, 'alice', 'Alice-pass-1');
    const stream = await openEventStream(t.url, EVENTS, cookieOf(watched.session));
    await stream.next('session');
    await other.agent.delete(`/api/v2/me/sessions/${await idOf(watched.agent)}/`).set('X-CSRFToken', other.csrf).expect(204);
    const ended = await stream.next('ended', 10000);
    assert.deepEqual(ended.data, { reason: 'ended_by_user', detail: 'You were logged out: this session was ended from your sessions list.' });
    await stream.closed;
  });

  it('sends "ended" with session_limit when a login elsewhere pushes the session out', async () => {
    await t.settings({ SESSIONS_PER_USER: 1 });
    try {
      const first = await browserLogin(t, 'alice', 'Alice-pass-1');
      const stream = await openEventStream(t.url, EVENTS, cookieOf(first.session));
      await stream.next('session');
      await browserLogin(t, 'alice', 'Alice-pass-1');
      const ended = await stream.next('ended', 10000);
      const data = ended.data as { reason: string; detail: string };
      assert.equal(data.reason, 'session_limit');
      assert.match(data.detail, /session limit/);
      await stream.closed;
    } finally {
      await t.settings({ SESSIONS_PER_USER: -1 });
    }
  });

  it('a stream opened on an ended session is refused with the 401 reason', async () => {
    const { agent, session } = await browserLogin(t, 'alice', 'Alice-pass-1');
    await agent.get('/api/logout/').expect(302);
    const stream = await openEventStream(t.url, EVENTS, cookieOf(session));
    assert.equal(stream.status, 401);
    assert.deepEqual(stream.body, { detail: 'You logged out.', reason: 'logged_out' });
  });

  it('sends idle_timeout when the session runs out, and forgets closed streams', async () => {
    const { session } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const stream = await openEventStream(t.url, EVENTS, cookieOf(session));
    await stream.next('session');
    t.clock.advance(1801);
    const ended = await stream.next('ended', 10000);
    assert.equal((ended.data as { reason: string }).reason, 'idle_timeout');
    await stream.closed;
    const watcher = t.app.get(SessionWatcher);
    for (let i = 0; i < 50 && watcher.watching > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(watcher.watching, 0);
    // A stream's lifetime is not a request latency: it stays out of the duration histogram.
    const metrics = await t.http().get('/api/v2/metrics/').auth('admin', ADMIN_PASSWORD).expect(200);
    assert.match(metrics.text, /svc_http_request_duration_seconds_count\{[^}]*route="\/api\/v2\/me\/sessions"/);
    assert.match(metrics.text, /route="\/api\/v2\/me\/session\/events",status="401"/, 'refusals are still measured');
    assert.doesNotMatch(metrics.text, /route="\/api\/v2\/me\/session\/events",status="200"/);
  });

  // The server is half-open (sendHeldEndsOn): a stream must still hear a client that ends its side at once,
  // not at the heartbeat's failed write (third review of the held end).
  it('forgets a stream whose client closes it (its FIN), before any heartbeat', async () => {
    const { session } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const watcher = t.app.get(SessionWatcher);
    const watchingBefore = watcher.watching;
    const { hostname, port } = new URL(t.url);
    const socket = connect({ host: hostname, port: Number(port) }, () =>
      socket.write(`GET ${EVENTS} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nCookie: ${t.config.sessionCookieName}=${session}\r\n\r\n`),
    );
    let text = '';
    await new Promise<void>((resolve, reject) => socket.setEncoding('latin1').on('data', (d: string) => (text += d) && text.includes('event: session') && resolve()).on('error', reject));
    assert.equal(watcher.watching, watchingBefore + 1);
    socket.end();
    try {
      for (let i = 0; i < 50 && watcher.watching > watchingBefore; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(watcher.watching, watchingBefore);
    } finally {
      socket.destroy();
    }
  });
});
