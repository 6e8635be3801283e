import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthenticationRecord } from '../src/common/authentication-record';
import { NOT_AUTHENTICATED } from '../src/common/errors';
import { SessionSweeper } from '../src/sessions/session-sweeper.service';
import { browserLogin, submitLoginForm } from './support/browser-login';
import { generate } from 'otplib';
import { clientBasic, registerApp, tokenRequest } from './support/oauth2';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';
import { runManage } from './support/service-process';
import { Browser } from './support/sso-browser';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const EVENT_FIELDS = [
  'id', 'type', 'url', 'related', 'summary_fields', 'timestamp', 'event', 'user', 'username', 'source', 'method', 'reason',
  'session', 'token', 'ip_address', 'user_agent', 'request_id', 'action_node', 'details',
];
type Event = Record<string, unknown> & { id: number; event: string; details: Record<string, unknown> };

/**
 * SPEC §23's authentication events through HTTP: what each login path, logout, lock and unlock records, with the
 * request's id, address and user agent; the lists, their read rules and AWX's query language; immutability; the
 * retention setting and `cleanup_authentication_events`. Behind a trusted proxy, so X-Forwarded-For names each
 * attempt's address. Events are written just after the answer: each read first writes what is queued (the
 * record's flush, which a SIGTERM also runs), and one test reads without it.
 */
describe(`authentication events (SPEC §23, ${TEST_DB})`, () => {
  let t: TestApp;
  let oidc: OidcIdp;
  const ids: Record<string, number> = {};
  const flush = () => t.app.get(AuthenticationRecord).flush();
  const list = async (query = '', who = ADMIN, path = '/api/v2/authentication_events/') => {
    await flush();
    const res = await t.http().get(`${path}${query}`).set('Authorization', who).expect(200);
    return res.body.results as Event[];
  };
  const me = (name: string, password: string, ip: string) => t.http().get('/api/v2/me/').set('X-Forwarded-For', ip).set('Authorization', basic(name, password)).set('User-Agent', 'events-test/1');
  const manage = (args: string[]) => runManage(args, { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey });

  before(async () => {
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    ids.alice = await t.createUser('alice', 'Alice-pass-1', { first_name: 'Alice', last_name: 'Liddell' });
    ids.aud = await t.createUser('aud', 'Auditor-pass-1', { is_system_auditor: true });
    ids.olga = await t.createUser('olga', 'Olga-pass-1');
    ids.carl = await t.createUser('carl', 'Carl-pass-1');
    ids.pat = await t.createUser('pat', 'Plain-pass-1');
    ids.gone = await t.createUser('gone', 'Gone-pass-1', { first_name: 'Gone' });
    const org = await t.http().post('/api/v2/organizations/').set('Authorization', ADMIN).send({ name: 'eng' }).expect(201);
    await t.http().post(`/api/v2/organizations/${org.body.id}/admins/`).set('Authorization', ADMIN).send({ id: ids.olga }).expect(204);
    await t.http().post(`/api/v2/organizations/${org.body.id}/users/`).set('Authorization', ADMIN).send({ id: ids.carl }).expect(204);
  });
  after(async () => {
    await oidc?.close();
    await t?.close();
  });

  it('is listed by GET /api/v2/, 401 anonymous, and every write method is 405 with Allow: GET, HEAD, OPTIONS', async () => {
    const root = await t.http().get('/api/v2/').set('Authorization', ADMIN).expect(200);
    assert.equal(root.body.authentication_events, '/api/v2/authentication_events/');
    const [any] = await list();
    for (const path of ['/api/v2/authentication_events/', `/api/v2/authentication_events/${any?.id ?? 1}/`, '/api/v2/me/authentication_events/', `/api/v2/users/${ids.alice}/authentication_events/`]) {
      assert.deepEqual((await t.http().get(path).expect(401)).body, { detail: NOT_AUTHENTICATED }, path);
    }
    for (const path of ['/api/v2/authentication_events/', `/api/v2/authentication_events/${any?.id ?? 1}/`, '/api/v2/me/authentication_events/', `/api/v2/users/${ids.alice}/authentication_events/`]) {
      for (const method of ['post', 'put', 'patch', 'delete'] as const) {
        const res = await t.http()[method](path).set('Authorization', ADMIN).send({});
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.deepEqual(res.body, { detail: `Method "${method.toUpperCase()}" not allowed.` });
        assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS', `${method} ${path}`);
      }
    }
  });

  it('a form login is login_succeeded in its session: method form, source local, the session, the request id, address and agent', async () => {
    const login = await browserLogin(t, 'alice', 'Alice-pass-1', { headers: { 'X-Forwarded-For': '198.51.100.7', 'User-Agent': 'Browser/9' } });
    // Written with the session: readable at once, without the flush.
    const res = await t.http().get(`/api/v2/users/${ids.alice}/authentication_events/?event=login_succeeded`).set('Authorization', ADMIN).expect(200);
    const [event] = res.body.results as Event[];
    assert.deepEqual(Object.keys(event), EVENT_FIELDS);
    const sessions = await login.agent.get('/api/v2/me/sessions/').expect(200);
    assert.equal(event.type, 'authentication_event');
    assert.equal(event.url, `/api/v2/authentication_events/${event.id}/`);
    assert.deepEqual(event.related, { user: `/api/v2/users/${ids.alice}/` });
    assert.deepEqual(event.summary_fields, { user: { id: ids.alice, username: 'alice', first_name: 'Alice', last_name: 'Liddell' } });
    assert.equal(event.user, ids.alice);
    assert.equal(event.username, 'alice');
    assert.equal(event.source, 'local');
    assert.equal(event.method, 'form');
    assert.equal(event.reason, null);
    assert.equal(event.session, sessions.body.results[0].id);
    assert.equal(event.token, null);
    assert.equal(event.ip_address, '198.51.100.7');
    assert.equal(event.user_agent, 'Browser/9');
    assert.equal(event.request_id, login.response.headers['x-api-request-id']);
    assert.equal(event.action_node, login.response.headers['x-api-node']);
    assert.deepEqual(event.details, {});
    assert.ok(Math.abs(Date.parse(event.timestamp as string) - t.clock.now().getTime()) < 1000);
    assert.deepEqual((await t.http().get(`/api/v2/authentication_events/${event.id}/`).set('Authorization', ADMIN).expect(200)).body, event);

    // The user's own logout is `logout`, with the session; a basic success records nothing.
    await login.agent.post('/api/logout/').set('X-CSRFToken', login.csrf).set('Referer', `${t.url}/api/`).expect(302);
    await me('alice', 'Alice-pass-1', '198.51.100.7').expect(200);
    const after = await list(`?id__gt=${event.id}`, ADMIN, `/api/v2/users/${ids.alice}/authentication_events/`);
    assert.deepEqual(after.map((e) => [e.event, e.session, e.reason]), [['logout', event.session, null]]);
  });

  it('every session ends once: a bulk end and the sweep report each session with its reason, dated when it ended', async () => {
    const pass = 'Carl-pass-1';
    const [a, b] = [await browserLogin(t, 'carl', pass), await browserLogin(t, 'carl', pass)];
    const first = (await list('?order_by=-id&page_size=1'))[0]?.id ?? 0;
    const ids_ = async (login: typeof a) => (await login.agent.get('/api/v2/me/sessions/').expect(200)).body.results.map((s: { id: number }) => s.id) as number[];
    const sessions = [...new Set([...(await ids_(a)), ...(await ids_(b))])].sort((x, y) => x - y);
    await t.http().delete(`/api/v2/users/${ids.carl}/sessions/`).set('Authorization', ADMIN).expect(204);
    // One of them is presented before the clean-up stamps it: ended by the request, reported once all the same.
    await a.agent.get('/api/v2/me/').expect(401);
    await t.app.get(SessionSweeper).cleanupRevoked();
    await b.agent.get('/api/v2/me/').expect(401);
    await t.app.get(SessionSweeper).cleanupRevoked();
    const ended = await list(`?id__gt=${first}&event=session_ended`, ADMIN, `/api/v2/users/${ids.carl}/authentication_events/`);
    assert.deepEqual(ended.map((e) => e.session).sort((x, y) => (x as number) - (y as number)), sessions);
    assert.ok(ended.every((e) => e.reason === 'revoked_by_admin'));

    // A session idle past SESSION_COOKIE_AGE: the sweep ends it, dated at its expiry.
    const idle = await browserLogin(t, 'carl', pass);
    const [idleId] = await ids_(idle);
    const expires = Date.parse((await idle.agent.get('/api/v2/me/sessions/').expect(200)).body.results[0].expires);
    t.clock.advance(1900);
    await t.app.get(SessionSweeper).sweepOnce();
    await idle.agent.get('/api/v2/me/').expect(401);
    const [timedOut, ...more] = await list(`?session=${idleId}&event__in=session_ended,logout`);
    assert.deepEqual(more, []);
    assert.equal(timedOut.reason, 'idle_timeout');
    assert.equal(Date.parse(timedOut.timestamp as string), expires);
  });

  it('refusals are login_failed with the reason and the method; unknown names and basic off are bounded per window', async () => {
    const first = (await list('?order_by=-id&page_size=1'))[0]?.id ?? 0;
    await me('alice', 'wrong-password', '203.0.113.10').expect(401);
    const form = await submitLoginForm(t, 'alice', 'wrong-again', { headers: { 'X-Forwarded-For': '203.0.113.10' } });
    assert.equal(form.response.status, 401);
    // Three tries of one unknown name from one address: one event, the later ones counted in it.
    for (let i = 0; i < 3; i++) await me('nobody', 'whatever-pass', '203.0.113.11').expect(401);
    await t.settings({ AUTH_BASIC_ENABLED: false });
    for (let i = 0; i < 2; i++) await me('alice', 'Alice-pass-1', '203.0.113.12').expect(401);
    await t.settings({ AUTH_BASIC_ENABLED: true });
    await t.http().patch(`/api/v2/users/${ids.pat}/`).set('Authorization', ADMIN).send({ is_active: false }).expect(200);
    await me('pat', 'Plain-pass-1', '203.0.113.13').expect(401);

    const events = await list(`?id__gt=${first}&event=login_failed`);
    const shape = events.map((e) => [e.username, e.user, e.method, e.reason, e.ip_address, e.details.attempts ?? null]);
    assert.deepEqual(shape, [
      ['alice', ids.alice, 'basic', 'wrong_password', '203.0.113.10', null],
      ['alice', ids.alice, 'form', 'wrong_password', '203.0.113.10', null],
      ['nobody', null, 'basic', 'unknown_user', '203.0.113.11', 3],
      ['alice', null, 'basic', 'basic_disabled', '203.0.113.12', 2],
      ['pat', ids.pat, 'basic', 'user_disabled', '203.0.113.13', null],
    ]);
    assert.equal(events[2].source, null);
    assert.deepEqual(events[2].summary_fields, {});
    assert.equal(events[0].user_agent, 'events-test/1');
    // Never a password in an event.
    assert.ok(!JSON.stringify(events).includes('wrong-password') && !JSON.stringify(events).includes('Alice-pass-1'));
  });

  it('a lock is login_locked once, its refusals one throttled event counted in attempts, an unlock login_unlocked with who and where', async () => {
    const first = (await list('?order_by=-id&page_size=1'))[0]?.id ?? 0;
    for (let i = 0; i < 5; i++) await me('carl', 'wrong-password', '203.0.113.20').expect(401);
    for (let i = 0; i < 3; i++) await me('carl', 'Carl-pass-1', '203.0.113.20').expect(429);
    const [lock] = (await t.http().get('/api/v2/login_locks/?ip_address=203.0.113.20').set('Authorization', ADMIN).expect(200)).body.results;
    await t.http().delete(`/api/v2/login_locks/${lock.id}/`).set('Authorization', ADMIN).set('X-Forwarded-For', '192.0.2.99').expect(204);
    await me('carl', 'Carl-pass-1', '203.0.113.20').expect(200);

    const events = await list(`?id__gt=${first}`, ADMIN, `/api/v2/users/${ids.carl}/authentication_events/`);
    assert.deepEqual(events.map((e) => [e.event, e.reason]), [
      ...Array.from({ length: 5 }, () => ['login_failed', 'wrong_password']),
      ['login_locked', null],
      ['login_failed', 'throttled'],
      ['login_unlocked', null],
    ]);
    const locked = events[5];
    assert.equal(locked.method, 'basic');
    assert.equal(locked.ip_address, '203.0.113.20');
    assert.deepEqual(Object.keys(locked.details), ['failures', 'locked_until']);
    assert.equal(locked.details.failures, 5);
    assert.equal(events[6].details.attempts, 3);
    const unlocked = events[7];
    assert.equal(unlocked.method, 'api');
    assert.equal(unlocked.ip_address, '192.0.2.99');
    assert.deepEqual(unlocked.details, { address: '203.0.113.20', by: 'admin' });

    // unlock_user: method command, no address, no `by`.
    for (let i = 0; i < 5; i++) await me('carl', 'wrong-password', '203.0.113.21').expect(401);
    const run = manage(['unlock_user', '--user', 'carl']);
    assert.equal(run.status, 0, run.stderr);
    const [byCommand] = await list(`?event=login_unlocked&order_by=-id&page_size=1`, ADMIN, `/api/v2/users/${ids.carl}/authentication_events/`);
    assert.equal(byCommand.method, 'command');
    assert.equal(byCommand.ip_address, null);
    assert.deepEqual(byCommand.details, { address: '203.0.113.21' });
  });

  it('a password grant is login_succeeded with its token, written with it', async () => {
    const app = await registerApp(t, ADMIN, { name: 'cli', client_type: 'confidential', authorization_grant_type: 'password' });
    const res = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'Alice-pass-1', scope: 'read' }, { clientId: app.clientId, secret: app.clientSecret });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const listed = await t.http().get(`/api/v2/users/${ids.alice}/authentication_events/?event=login_succeeded&method=password_grant`).set('Authorization', ADMIN).expect(200);
    const [event] = listed.body.results as Event[];
    assert.equal(typeof event.token, 'number');
    const token = await t.http().get(`/api/v2/tokens/${event.token}/`).set('Authorization', ADMIN).expect(200);
    assert.equal(token.body.user, ids.alice);
    assert.equal(event.session, null);
    assert.ok(!JSON.stringify(event).includes(res.body.access_token));
  });

  it('tokens: token_created by the API, a command and each grant, token_rotated with the previous token, token_revoked with its reason', async () => {
    const first = (await list('?order_by=-id&page_size=1'))[0]?.id ?? 0;
    const alice = basic('alice', 'Alice-pass-1');
    const made = await t.http().post('/api/v2/tokens/').set('Authorization', alice).set('X-Forwarded-For', '198.51.100.30').send({ scope: 'read' }).expect(201);
    const rotated = await t.http().post(`/api/v2/tokens/${made.body.id}/rotate/`).set('Authorization', alice).send({}).expect(201);
    await t.http().delete(`/api/v2/tokens/${rotated.body.id}/`).set('Authorization', alice).expect(204);
    await flush(); // the command is another process: its events follow what this one has written
    const run = manage(['create_oauth2_token', '--user', 'alice']);
    assert.equal(run.status, 0, run.stderr);
    const app = await registerApp(t, ADMIN, { name: 'refreshing', client_type: 'confidential', authorization_grant_type: 'password' });
    const client = { clientId: app.clientId, secret: app.clientSecret };
    const granted = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'Alice-pass-1', scope: 'write' }, client).expect(200);
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: granted.body.refresh_token }, client).expect(200);
    await t.http().post('/api/o/revoke_token/').type('form').set('Authorization', clientBasic(app.clientId, app.clientSecret)).send({ token: refreshed.body.access_token }).expect(200);
    await t.http().patch(`/api/v2/users/${ids.alice}/`).set('Authorization', ADMIN).send({ is_active: false }).expect(200);
    await t.http().patch(`/api/v2/users/${ids.alice}/`).set('Authorization', ADMIN).send({ is_active: true }).expect(200);

    const events = (await list(`?id__gt=${first}&event__startswith=token_`, ADMIN, `/api/v2/users/${ids.alice}/authentication_events/`));
    assert.deepEqual(events.map((e) => [e.event, e.method, e.reason]), [
      ['token_created', 'api', null],
      ['token_rotated', 'api', null],
      ['token_revoked', 'api', 'deleted'],
      ['token_created', 'command', null],
      ['token_created', 'password_grant', null],
      ['token_rotated', 'refresh_token', null],
      ['token_revoked', null, 'revoke_endpoint'],
      ['token_revoked', null, 'user_disabled'],
    ]);
    assert.equal(events[0].token, made.body.id);
    assert.equal(events[0].ip_address, '198.51.100.30');
    assert.equal(events[1].token, rotated.body.id);
    assert.deepEqual(events[1].details, { previous_token: made.body.id });
    assert.equal(events[2].token, rotated.body.id);
    assert.deepEqual(events[5].details, { previous_token: events[4].token });
    assert.equal(events[6].token, events[5].token);
    assert.equal(events[7].token, null);
    const text = JSON.stringify(events);
    for (const secret of [made.body.token, rotated.body.token, granted.body.access_token, granted.body.refresh_token, refreshed.body.access_token]) {
      assert.ok(typeof secret === 'string' && !text.includes(secret));
    }
  });

  it('second factors: factor_enrolled and factor_removed with the factor, an administrator\'s reset with "by": "admin"', async () => {
    const first = (await list('?order_by=-id&page_size=1'))[0]?.id ?? 0;
    const olga = basic('olga', 'Olga-pass-1');
    const code = (secret: string, stepsAgo = 0) => generate({ secret, epoch: Math.floor(t.clock.now().getTime() / 1000) - 30 * stepsAgo });
    const { secret } = (await t.http().post('/api/v2/me/mfa/totp/').set('Authorization', olga).send({}).expect(201)).body;
    await t.http().post('/api/v2/me/mfa/totp/confirm/').set('Authorization', olga).send({ code: await code(secret, 1) }).expect(200);
    await t.http().delete(`/api/v2/users/${ids.olga}/mfa/`).set('Authorization', ADMIN).expect(204);
    const events = await list(`?id__gt=${first}&event__startswith=factor_`, ADMIN, `/api/v2/users/${ids.olga}/authentication_events/`);
    assert.deepEqual(events.map((e) => [e.event, e.method, e.details]), [
      ['factor_enrolled', 'api', { factor: 'totp' }],
      ['factor_removed', 'api', { factor: 'totp', by: 'admin' }],
    ]);
    assert.ok(!JSON.stringify(events).includes(secret));
  });

  it('single sign-on: login_succeeded with its source; a refused answer login_failed with the reason (sso_failed names the check)', async () => {
    oidc = await OidcIdp.start({ redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`, accounts: { 'sub-sam': { preferred_username: 'sam', email: 'sam@corp.example' } } });
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: oidc.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } } });
    const first = (await list('?order_by=-id&page_size=1'))[0]?.id ?? 0;
    const login = async () => {
      const browser = new Browser(t);
      const start = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
      return browser.get(await oidc.authenticate(browser, start.headers.location, 'sub-sam'));
    };
    assert.equal((await login()).status, 302);
    const [succeeded] = await list(`?id__gt=${first}&event=login_succeeded`);
    assert.equal(succeeded.method, 'sso');
    assert.equal(succeeded.username, 'sam');
    assert.equal(typeof succeeded.session, 'number');
    const sam = succeeded.user as number;
    await t.http().patch(`/api/v2/users/${sam}/`).set('Authorization', ADMIN).send({ account_expires: new Date(t.clock.now().getTime() - 60000).toISOString() }).expect(200);
    await login();
    await t.http().get('/sso/complete/oidc/?idp=corp&code=forged&state=forged').expect(302);
    const failed = await list(`?id__gt=${first}&event=login_failed`);
    assert.deepEqual(failed.map((e) => [e.user, e.username, e.method, e.reason, e.details]), [
      [sam, 'sam', 'sso', 'account_expired', {}],
      [null, '', 'sso', 'sso_failed', { check: 'no_transaction' }],
    ]);
    assert.equal(failed[0].source, 'oidc:corp');
  });

  it('read rules: all for superusers and auditors; one\'s own; an organization admin her members\'; hidden ones 404', async () => {
    await browserLogin(t, 'olga', 'Olga-pass-1');
    const all = await list();
    assert.ok(all.some((e) => e.user === null), 'events with no user');
    assert.deepEqual((await list('', basic('aud', 'Auditor-pass-1'))).map((e) => e.id), all.map((e) => e.id));

    const mine = await list('', basic('alice', 'Alice-pass-1'));
    assert.ok(mine.length > 0 && mine.every((e) => e.user === ids.alice));
    assert.deepEqual(await list('', basic('alice', 'Alice-pass-1'), '/api/v2/me/authentication_events/'), mine);
    const olga = await list('', basic('olga', 'Olga-pass-1'));
    assert.deepEqual([...new Set(olga.map((e) => e.user))].sort(), [ids.olga, ids.carl].sort());
    const other = all.find((e) => e.user === ids.alice)!;
    await t.http().get(`/api/v2/authentication_events/${other.id}/`).set('Authorization', basic('olga', 'Olga-pass-1')).expect(404);
    await t.http().get(`/api/v2/users/${ids.alice}/authentication_events/`).set('Authorization', basic('carl', 'Carl-pass-1')).expect(404);
    await t.http().get(`/api/v2/users/${ids.carl}/authentication_events/`).set('Authorization', basic('olga', 'Olga-pass-1')).expect(200);
  });

  it('AWX\'s query language: fields, user__username, search; an unknown field 400, a user\'s secret 403', async () => {
    const byName = await list('?user__username=carl&event__in=login_locked,login_unlocked');
    assert.ok(byName.length >= 2 && byName.every((e) => e.user === ids.carl && ['login_locked', 'login_unlocked'].includes(e.event)));
    const searched = await list('?search=unknown_user');
    assert.ok(searched.length >= 1 && searched.every((e) => e.reason === 'unknown_user'));
    const since = await list(`?timestamp__gte=${encodeURIComponent(new Date(t.clock.now().getTime() - 60000).toISOString())}&reason__isnull=true&order_by=-id`);
    assert.ok(since.length > 0 && since.every((e) => e.reason === null));
    assert.deepEqual(since.map((e) => e.id), [...since.map((e) => e.id)].sort((a, b) => b - a));
    const bad = await t.http().get('/api/v2/authentication_events/?nonsense=1').set('Authorization', ADMIN).expect(400);
    assert.equal(typeof bad.body.detail, 'string');
    await t.http().get('/api/v2/authentication_events/?user__password__startswith=a').set('Authorization', ADMIN).expect(403);
    await t.http().get('/api/v2/authentication_events/?user__email__startswith=a').set('Authorization', basic('alice', 'Alice-pass-1')).expect(403);
  });

  it('an event outlives its user: user null, the summary kept with "id": null', async () => {
    await browserLogin(t, 'gone', 'Gone-pass-1');
    await t.http().delete(`/api/v2/users/${ids.gone}/`).set('Authorization', ADMIN).expect(204);
    const [event] = await list('?username=gone&event=login_succeeded');
    assert.equal(event.user, null);
    assert.deepEqual(event.related, {});
    assert.deepEqual(event.summary_fields, { user: { id: null, username: 'gone', first_name: 'Gone', last_name: '' } });
  });

  it('is written after the answer without being asked: visible within 2 s', async () => {
    await me('alice', 'not-her-password', '203.0.113.40').expect(401);
    let found: Event[] = [];
    for (let i = 0; i < 50 && !found.length; i++) {
      const res = await t.http().get('/api/v2/authentication_events/?ip_address=203.0.113.40').set('Authorization', ADMIN).expect(200);
      found = res.body.results;
      if (!found.length) await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(found.map((e) => [e.event, e.reason]), [['login_failed', 'wrong_password']]);
  });

  it('AUTH_EVENTS_RETENTION_DAYS 1–3650 (else 400 naming it); cleanup_authentication_events deletes what is older, --days checked', async () => {
    for (const bad of [0, 3651, 1.5, '30', null, true]) {
      const res = await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ AUTH_EVENTS_RETENTION_DAYS: bad }).expect(400);
      assert.deepEqual(Object.keys(res.body), ['AUTH_EVENTS_RETENTION_DAYS'], JSON.stringify(bad));
    }
    const stored = await t.http().get('/api/v2/settings/authentication/').set('Authorization', ADMIN).expect(200);
    assert.equal(stored.body.AUTH_EVENTS_RETENTION_DAYS, 365);
    for (const bad of ['-1', 'x', '1.5']) {
      const run = manage(['cleanup_authentication_events', '--days', bad]);
      assert.notEqual(run.status, 0, bad);
      assert.match(run.stderr, /--days/);
    }
    await flush();
    // The command runs on the real clock, the app on its own (moved ahead by a test above): what --days 0
    // deletes is what was made before the command started, by the command's clock.
    const count = async (query = '') => (await t.http().get(`/api/v2/authentication_events/?page_size=1${query}`).set('Authorization', ADMIN).expect(200)).body.count as number;
    const total = await count();
    const kept = manage(['cleanup_authentication_events', '--days', '30']);
    assert.equal(kept.status, 0, kept.stderr);
    assert.equal(kept.stdout.trim(), 'Removed 0 items');
    const started = new Date().toISOString();
    const older = await count(`&timestamp__lt=${encodeURIComponent(started)}`);
    assert.ok(older > 0);
    const dry = manage(['cleanup_authentication_events', '--days', '0', '--dry-run']);
    assert.equal(dry.stdout.trim(), `Would remove ${older} items`);
    assert.equal(await count(), total);
    const all = manage(['cleanup_authentication_events', '--days', '0']);
    assert.equal(all.stdout.trim(), `Removed ${older} items`);
    assert.equal(await count(), total - older);
    assert.equal(await count(`&timestamp__lt=${encodeURIComponent(started)}`), 0);
  });
});
