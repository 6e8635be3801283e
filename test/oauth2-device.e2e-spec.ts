import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { Scheduler } from '../src/common/scheduler';
import { NO_REQUEST } from '../src/common/request-context';
import { SessionsService } from '../src/sessions/sessions.service';
import { unlimited } from '../src/sessions/session-limit.interceptor';
import { UsersService } from '../src/users/users.service';
import { Agent, browserLogin } from './support/browser-login';
import {
  decideDevice,
  DEVICE_CODE_GRANT,
  deviceAuthorization,
  devicePoll,
  hiddenFields,
  RegisteredApp,
  registerApp,
  secretsInLogs,
  tokenRequest,
} from './support/oauth2';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

const bearer = (token: string) => `Bearer ${token}`;
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const EXTERNAL_REFUSAL = '(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (social)';

/** A browser's way into the device page: a cookie jar (or a bare cookie) and the address it comes from. */
interface Person {
  post(url: string): ReturnType<Agent['post']>;
  get(url: string): ReturnType<Agent['get']>;
  csrf: string;
}

/**
 * The device authorization grant (RFC 8628, SPEC §15) over HTTP on the real app: the client endpoint,
 * the page a person types the code on (session, CSRF, consent), and every answer of the polling side,
 * in RFC 6749 §5.2's error shape.
 */
describe('device authorization grant (RFC 8628)', () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);
  const secrets: string[] = [];
  let tv: RegisteredApp; // public, device-code
  let console_: RegisteredApp; // confidential, device-code
  let password: RegisteredApp; // public, password grant
  let aliceId: number;
  let bobId: number;
  let ip = 0;

  /** A fresh client address (TRUSTED_PROXIES is the loopback): each test's guesses count on their own. */
  const address = () => `10.20.${Math.floor(++ip / 250)}.${ip % 250}`;

  /** A person signed in through the login form, coming from `from`. */
  async function signIn(username: string, pass: string, from = address()): Promise<Person> {
    const headers = { 'X-Forwarded-For': from };
    const { agent, csrf } = await browserLogin(t, username, pass, { headers });
    return { post: (url) => agent.post(url).set(headers), get: (url) => agent.get(url).set(headers), csrf };
  }

  /** A person with a session made directly (external and service accounts have no password). */
  async function sessionOf(userId: number, from = address()): Promise<Person> {
    const user = (await t.app.get(UsersService).findById(userId))!;
    const { token } = await t.app.get(SessionsService).create(user, unlimited(from), 'test', NO_REQUEST);
    const csrf = 'device-test-csrf-token-0123456789abcdef';
    const cookie = `${t.config.sessionCookieName}=${token}; csrftoken=${csrf}`;
    const headers = { Cookie: cookie, 'X-Forwarded-For': from };
    return { post: (url) => t.http().post(url).set(headers), get: (url) => t.http().get(url).set(headers), csrf };
  }

  async function newCode(app: RegisteredApp = tv, form: Record<string, string> = {}) {
    const res = await deviceAuthorization(t, { clientId: app.clientId, secret: app.clientSecret }, form);
    assert.equal(res.status, 200, res.text);
    secrets.push(res.body.device_code);
    return res.body as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number };
  }

  /** Polls as the device would; successful answers' secrets are kept for the log scan. */
  async function poll(deviceCode: string, app: RegisteredApp = tv) {
    const res = await devicePoll(t, deviceCode, { clientId: app.clientId, secret: app.clientSecret });
    if (res.status === 200) secrets.push(res.body.access_token, res.body.refresh_token);
    return res;
  }

  function assertError(res: { status: number; body: Record<string, unknown>; headers: Record<string, string> }, status: number, error: string) {
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.error, error);
    assert.equal(typeof res.body.error_description, 'string');
    assert.deepEqual(Object.keys(res.body).sort(), ['error', 'error_description']);
    assert.equal(res.headers['cache-control'], 'no-store');
  }

  const pollInterval = async (deviceCode: string) => {
    const hash = createHash('sha256').update(deviceCode).digest('hex');
    const [row] = await t.app.get(DataSource).query('SELECT poll_interval, state FROM oauth2_device_code WHERE device_code_hash = ?', [hash]);
    return { interval: Number(row.poll_interval), state: String(row.state) };
  };

  before(async () => {
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    aliceId = await t.createUser('alice', 'Alice-pass-1');
    bobId = await t.createUser('bob', 'Bob-pass-1');
    await t.createUser('dave', 'Dave-pass-1');
    tv = await registerApp(t, admin, { name: 'Living-room <TV>', client_type: 'public', authorization_grant_type: 'device-code' });
    console_ = await registerApp(t, admin, { name: 'Console', client_type: 'confidential', authorization_grant_type: 'device-code' });
    password = await registerApp(t, admin, { name: 'CLI', client_type: 'public', authorization_grant_type: 'password' });
    secrets.push(console_.clientSecret!);
    // Most tests type a wrong code or two; the throttle test sets its own allowance.
    await t.settings({ LOGIN_FAILURES_ALLOWED: 1000 });
  });
  after(() => t?.close());

  it('lists device_authorization and the device page in /api/o/', async () => {
    const res = await t.http().get('/api/o/').expect(200);
    assert.equal(res.body.device_authorization, '/api/o/device_authorization/');
    assert.equal(res.body.device, '/api/o/device/');
  });

  it('answers a public client with a device code, a user code and the verification URIs (RFC 8628 §3.2)', async () => {
    const res = await deviceAuthorization(t, { clientId: tv.clientId }).expect(200);
    secrets.push(res.body.device_code);
    assert.match(res.headers['content-type'], /^application\/json/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(Object.keys(res.body).sort(), ['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri', 'verification_uri_complete']);
    assert.match(res.body.device_code, /^svcd_[0-9A-Za-z]{43}$/);
    assert.match(res.body.user_code, USER_CODE);
    assert.equal(res.body.verification_uri, `${t.config.publicUrl}/api/o/device/`);
    assert.equal(res.body.verification_uri_complete, `${t.config.publicUrl}/api/o/device/?user_code=${res.body.user_code}`);
    assert.equal(res.body.expires_in, 600);
    assert.equal(res.body.interval, 5);
    const other = await deviceAuthorization(t, { clientId: tv.clientId }).expect(200);
    secrets.push(other.body.device_code);
    assert.notEqual(other.body.device_code, res.body.device_code);
    assert.notEqual(other.body.user_code, res.body.user_code);
  });

  it('refuses clients that may not ask, in the RFC 6749 error shape', async () => {
    const unknown = await deviceAuthorization(t, { clientId: 'no-such-client' });
    assertError(unknown, 401, 'invalid_client');
    assertError(await t.http().post('/api/o/device_authorization/').type('form').send({}), 401, 'invalid_client');
    // A confidential client authenticates: no secret, or a wrong one, is invalid_client with a Basic challenge.
    assertError(await deviceAuthorization(t, { clientId: console_.clientId }), 401, 'invalid_client');
    const wrong = await deviceAuthorization(t, { clientId: console_.clientId, secret: 'svcs_wrong' });
    assertError(wrong, 401, 'invalid_client');
    assert.equal(wrong.headers['www-authenticate'], 'Basic realm="api"');
    // A public client has no secret to present.
    assertError(await deviceAuthorization(t, { clientId: tv.clientId, secret: 'anything' }), 401, 'invalid_client');
    // Only applications registered for the device grant may use it.
    assertError(await deviceAuthorization(t, { clientId: password.clientId }), 400, 'unauthorized_client');
    assertError(await deviceAuthorization(t, { clientId: tv.clientId }, { scope: 'admin' }), 400, 'invalid_scope');
    assertError(await deviceAuthorization(t, { clientId: tv.clientId }, { scope: 'read read' }), 400, 'invalid_scope');
    const repeated = await t.http().post('/api/o/device_authorization/').type('form').send(`client_id=${tv.clientId}&scope=read&scope=write`);
    assertError(repeated, 400, 'invalid_request');
    await t.http().post('/api/o/device_authorization/').send({ client_id: tv.clientId }).expect(415);
  });

  it('runs the flow: login with next, the Code page, consent, Device connected, then the token once', async () => {
    const code = await newCode(tv, { scope: 'read' });
    const complete = new URL(code.verification_uri_complete);
    const target = complete.pathname + complete.search;
    // An anonymous browser goes to the login page and comes back with the code.
    const anonymous = await t.http().get(target).expect(302);
    assert.equal(anonymous.headers.location, `/api/login/?next=${encodeURIComponent(target)}`);
    const from = address();
    const { agent, response, csrf } = await browserLogin(t, 'alice', 'Alice-pass-1', { headers: { 'X-Forwarded-For': from }, next: target });
    assert.equal(response.headers.location, target);
    const page = await agent.get(target).set('X-Forwarded-For', from).expect(200);
    assert.match(page.text, /<label for="user_code">Code<\/label>/);
    assert.ok(page.text.includes(`name="user_code" type="text" value="${code.user_code}"`), 'prefilled from ?user_code=');
    assert.match(page.text, /<button type="submit">Continue<\/button>/);
    assert.equal(page.headers['referrer-policy'], 'same-origin');
    assert.equal(page.headers['x-frame-options'], 'DENY');
    // Before the person decides, the device hears authorization_pending.
    assertError(await poll(code.device_code), 400, 'authorization_pending');
    // Typed in lower case without the dash: the same code.
    const typed = code.user_code.toLowerCase().replace('-', '');
    const consent = await agent.post('/api/o/device/').set('X-Forwarded-For', from).type('form').send({ csrfmiddlewaretoken: csrf, user_code: typed }).expect(200);
    assert.match(consent.text, /<form method="post" action="\/api\/o\/device\/">/);
    assert.match(consent.text, />Authorize<\/button>/);
    assert.match(consent.text, />Deny<\/button>/);
    assert.ok(consent.text.includes('Living-room &lt;TV&gt;'), 'the application name, escaped');
    assert.match(consent.text, /read-only access \(scope <code>read<\/code>\)/);
    assert.equal(hiddenFields(consent.text).user_code, code.user_code);
    const done = await agent.post('/api/o/device/').set('X-Forwarded-For', from).type('form').send({ ...hiddenFields(consent.text), decision: 'authorize' }).expect(200);
    assert.match(done.text, /<h1>Device connected<\/h1>/);
    // The device gets an access and a refresh token for alice, with the scope it asked for.
    const token = await poll(code.device_code);
    assert.equal(token.status, 200, token.text);
    assert.equal(token.headers['cache-control'], 'no-store');
    assert.equal(token.body.token_type, 'Bearer');
    assert.equal(token.body.scope, 'read');
    assert.match(token.body.access_token, /^svca_/);
    assert.match(token.body.refresh_token, /^svcr_/);
    const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(token.body.access_token)).expect(200);
    assert.equal(me.body.results[0].username, 'alice');
    await t.http().post('/api/v2/tokens/').set('Authorization', bearer(token.body.access_token)).send({}).expect(403);
    // Once: the code is spent.
    assertError(await poll(code.device_code), 400, 'invalid_grant');
    // The refresh token refreshes (rotation as for the other grants).
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: token.body.refresh_token }, { clientId: tv.clientId }).expect(200);
    secrets.push(refreshed.body.access_token, refreshed.body.refresh_token);
    assert.equal(refreshed.body.scope, 'read');
    await t.http().get('/api/v2/me/').set('Authorization', bearer(refreshed.body.access_token)).expect(200);
    // The grant is alice's authorized token of the application.
    const listed = await t.http().get(`/api/v2/users/${aliceId}/authorized_tokens/`).set('Authorization', admin).expect(200);
    assert.ok(listed.body.results.some((r: { application: number }) => r.application === tv.id));
  });

  it('takes a confidential client only with its secret, at both endpoints', async () => {
    const alice = await signIn('alice', 'Alice-pass-1');
    const code = await newCode(console_);
    assert.equal((await decideDevice(alice, alice.csrf, code.user_code)).status, 200);
    assertError(await devicePoll(t, code.device_code, { clientId: console_.clientId }), 401, 'invalid_client');
    assertError(await devicePoll(t, code.device_code, { clientId: console_.clientId, secret: 'svcs_wrong' }), 401, 'invalid_client');
    const token = await poll(code.device_code, console_);
    assert.equal(token.status, 200, token.text);
    assert.equal(token.body.scope, 'write');
  });

  it('refuses a token request without a device code, with another client\'s code, or from a client of another grant', async () => {
    const code = await newCode();
    assertError(await tokenRequest(t, { grant_type: DEVICE_CODE_GRANT }, { clientId: tv.clientId }), 400, 'invalid_request');
    assertError(await devicePoll(t, 'svcd_not-a-code', { clientId: tv.clientId }), 400, 'invalid_grant');
    // Bound to its client: another device-code client cannot poll it (and learns nothing).
    assertError(await devicePoll(t, code.device_code, { clientId: console_.clientId, secret: console_.clientSecret }), 400, 'invalid_grant');
    assertError(await devicePoll(t, code.device_code, { clientId: password.clientId }), 400, 'unauthorized_client');
    assertError(await devicePoll(t, code.device_code, { clientId: 'no-such-client' }), 401, 'invalid_client');
    // None of that counted as a poll of the right client.
    assertError(await poll(code.device_code), 400, 'authorization_pending');
  });

  it('answers slow_down to a poll within the interval, and the interval grows by five seconds each time (stored)', async () => {
    const alice = await signIn('alice', 'Alice-pass-1');
    const code = await newCode();
    assertError(await poll(code.device_code), 400, 'authorization_pending');
    assertError(await poll(code.device_code), 400, 'slow_down');
    assert.deepEqual(await pollInterval(code.device_code), { interval: 10, state: 'pending' });
    // Six seconds later is enough for 5, not for the grown 10.
    t.clock.advance(6);
    assertError(await poll(code.device_code), 400, 'slow_down');
    assert.deepEqual(await pollInterval(code.device_code), { interval: 15, state: 'pending' });
    t.clock.advance(16);
    assertError(await poll(code.device_code), 400, 'authorization_pending');
    assert.deepEqual(await pollInterval(code.device_code), { interval: 15, state: 'pending' });
    // An approved code is answered at once, however soon.
    assert.equal((await decideDevice(alice, alice.csrf, code.user_code)).status, 200);
    assert.equal((await poll(code.device_code)).status, 200);
  });

  it('a denied code answers access_denied, and cannot be approved afterwards', async () => {
    const alice = await signIn('alice', 'Alice-pass-1');
    const code = await newCode();
    const denied = await decideDevice(alice, alice.csrf, code.user_code, 'deny');
    assert.equal(denied.status, 200);
    assert.match(denied.text, /<h1>Access denied<\/h1>/);
    assertError(await poll(code.device_code), 400, 'access_denied');
    t.clock.advance(10);
    assertError(await poll(code.device_code), 400, 'access_denied');
    const again = await alice.post('/api/o/device/').type('form').send({ csrfmiddlewaretoken: alice.csrf, user_code: code.user_code, decision: 'authorize' });
    assert.equal(again.status, 400);
    assert.match(again.text, /role="alert">That code has already been used\./);
  });

  it('decides a code once: the second of two decisions is refused', async () => {
    const alice = await signIn('alice', 'Alice-pass-1');
    const code = await newCode();
    const consent = await alice.post('/api/o/device/').type('form').send({ csrfmiddlewaretoken: alice.csrf, user_code: code.user_code }).expect(200);
    const bob = await signIn('bob', 'Bob-pass-1');
    const bobsConsent = await bob.post('/api/o/device/').type('form').send({ csrfmiddlewaretoken: bob.csrf, user_code: code.user_code }).expect(200);
    const [first, second] = await Promise.all([
      alice.post('/api/o/device/').type('form').send({ ...hiddenFields(consent.text), decision: 'authorize' }),
      bob.post('/api/o/device/').type('form').send({ ...hiddenFields(bobsConsent.text), decision: 'authorize' }),
    ]);
    assert.deepEqual([first.status, second.status].sort(), [200, 400]);
    const token = await poll(code.device_code);
    const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(token.body.access_token)).expect(200);
    assert.equal(me.body.results[0].username, first.status === 200 ? 'alice' : 'bob');
  });

  it('issues once when polls race: exactly one token, the others invalid_grant', async () => {
    const alice = await signIn('alice', 'Alice-pass-1');
    const code = await newCode();
    assert.equal((await decideDevice(alice, alice.csrf, code.user_code)).status, 200);
    const answers = await Promise.all(Array.from({ length: 4 }, () => poll(code.device_code)));
    assert.equal(answers.filter((r) => r.status === 200).length, 1, answers.map((r) => r.text).join('\n'));
    for (const r of answers.filter((a) => a.status !== 200)) assertError(r, 400, 'invalid_grant');
    const issued = await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM oauth2_access_token WHERE application_id = ? AND user_id = ?', [tv.id, aliceId]);
    assert.ok(Number(issued[0].n) >= 1);
  });

  it('caps the token it issues with TOKEN_MAX_LIFETIME_SECONDS like every grant', async () => {
    await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 7200 });
    try {
      const alice = await signIn('alice', 'Alice-pass-1');
      const code = await newCode();
      assert.equal((await decideDevice(alice, alice.csrf, code.user_code)).status, 200);
      const issued = await poll(code.device_code);
      assert.equal(issued.status, 200, issued.text);
      assert.equal(issued.body.expires_in, 7200);
    } finally {
      await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 0 });
    }
  });

  it('expires after 600 seconds: the poll hears expired_token, the page says so', async () => {
    const alice = await signIn('alice', 'Alice-pass-1');
    const code = await newCode();
    assertError(await poll(code.device_code), 400, 'authorization_pending');
    t.clock.advance(601);
    assertError(await poll(code.device_code), 400, 'expired_token');
    const page = await alice.post('/api/o/device/').type('form').send({ csrfmiddlewaretoken: alice.csrf, user_code: code.user_code });
    assert.equal(page.status, 400);
    assert.match(page.text, /role="alert">That code has expired\./);
    // An approved code not redeemed in time expires too.
    const late = await newCode();
    assert.equal((await decideDevice(alice, alice.csrf, late.user_code)).status, 200);
    t.clock.advance(601);
    assertError(await poll(late.device_code), 400, 'expired_token');
    // The sweep deletes codes an hour past their expiry; then the code is simply unknown.
    t.clock.advance(3600);
    await t.app.get(Scheduler).runNow('device-code-sweep');
    assertError(await poll(late.device_code), 400, 'invalid_grant');
  });

  it('re-shows the page with an error for a wrong code, and refuses a form without CSRF', async () => {
    const alice = await signIn('alice', 'Alice-pass-1');
    for (const typed of ['BCDF-GHJK', 'nonsense', '']) {
      const res = await alice.post('/api/o/device/').type('form').send({ csrfmiddlewaretoken: alice.csrf, user_code: typed });
      assert.equal(res.status, 400, typed);
      assert.match(res.text, /role="alert">That code is not valid\./);
      assert.match(res.text, /<label for="user_code">Code<\/label>/);
    }
    const code = await newCode();
    const forged = await t.agent().post('/api/o/device/').type('form').set('Authorization', basic('alice', 'Alice-pass-1')).send({ user_code: code.user_code, decision: 'authorize' }).expect(403);
    assert.match(forged.body.detail, /^CSRF Failed/);
    const noToken = await alice.post('/api/o/device/').type('form').send({ user_code: code.user_code, decision: 'authorize' }).expect(403);
    assert.match(noToken.body.detail, /^CSRF Failed: CSRF token missing/);
    assertError(await poll(code.device_code), 400, 'authorization_pending');
  });

  it('does not take a bearer token on the device page: the token cannot approve grants', async () => {
    const pat = await t.http().post('/api/v2/tokens/').set('Authorization', basic('alice', 'Alice-pass-1')).send({}).expect(201);
    secrets.push(pat.body.token);
    const res = await t.http().get('/api/o/device/').set('Authorization', bearer(pat.body.token)).expect(302);
    assert.equal(res.headers.location, '/api/login/?next=%2Fapi%2Fo%2Fdevice%2F');
    await t.http().post('/api/o/device/').set('Authorization', bearer(pat.body.token)).type('form').send({ user_code: 'BCDF-GHJK' }).expect(302);
  });

  it('throttles user-code guessing per address and per user; a right code forgives nothing', async () => {
    await t.settings({ LOGIN_FAILURES_ALLOWED: 3 });
    try {
      const code = await newCode();
      const wrong = (p: Person) => p.post('/api/o/device/').type('form').send({ csrfmiddlewaretoken: p.csrf, user_code: 'BCDF-GHJK' });
      const right = (p: Person) => p.post('/api/o/device/').type('form').send({ csrfmiddlewaretoken: p.csrf, user_code: code.user_code });
      const addressA = address();
      const guesser = await signIn('bob', 'Bob-pass-1', addressA);
      for (let i = 0; i < 3; i++) assert.equal((await wrong(guesser)).status, 400);
      const throttled = await right(guesser);
      assert.equal(throttled.status, 429);
      assert.match(throttled.headers['retry-after'], /^\d+$/);
      assert.match(throttled.text, /role="alert">Too many wrong codes\. Try again in \d+ seconds\./);
      // Bob from another address: his own counter is full.
      assert.equal((await right(await signIn('bob', 'Bob-pass-1'))).status, 429);
      // Alice from bob's address: the address's counter is full.
      const aliceThere = await signIn('alice', 'Alice-pass-1', addressA);
      assert.equal((await right(aliceThere)).status, 429);
      // Dave from his own address is not bothered.
      assert.equal((await right(await signIn('dave', 'Dave-pass-1'))).status, 200);
      // A right code between wrong ones does not reset the count (a guesser would interleave its own codes).
      const carol = await t.createUser('carol', 'Carol-pass-1').then(() => signIn('carol', 'Carol-pass-1'));
      assert.equal((await wrong(carol)).status, 400);
      assert.equal((await wrong(carol)).status, 400);
      assert.equal((await right(carol)).status, 200);
      assert.equal((await wrong(carol)).status, 400);
      assert.equal((await right(carol)).status, 429);
      assertError(await poll(code.device_code), 400, 'authorization_pending');
    } finally {
      await t.settings({ LOGIN_FAILURES_ALLOWED: 1000 });
    }
  });

  it('a service account cannot approve a device', async () => {
    const service = await t.app.get(UsersService).create({ username: 'svc-robot' }, NO_REQUEST, { externalAccount: 'service' });
    const robot = await sessionOf(service.id);
    const code = await newCode();
    const res = await robot.post('/api/o/device/').type('form').send({ csrfmiddlewaretoken: robot.csrf, user_code: code.user_code, decision: 'authorize' });
    assert.equal(res.status, 403);
    assert.match(res.text, /role="alert">Service accounts cannot connect devices\./);
    assertError(await poll(code.device_code), 400, 'authorization_pending');
  });

  it('ALLOW_OAUTH2_FOR_EXTERNAL_USERS applies to the approving user, at approval and again at issue', async () => {
    const sso = await t.app.get(UsersService).create({ username: 'sso-sue' }, NO_REQUEST, { externalAccount: 'social' });
    const sue = await sessionOf(sso.id);
    const code = await newCode();
    const refused = await sue.post('/api/o/device/').type('form').send({ csrfmiddlewaretoken: sue.csrf, user_code: code.user_code });
    assert.equal(refused.status, 403);
    assert.ok(refused.text.includes(`role="alert">${EXTERNAL_REFUSAL}</div>`), refused.text);
    await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
    try {
      assert.equal((await decideDevice(sue, sue.csrf, code.user_code)).status, 200);
      // Switched off between the approval and the poll: the token endpoint refuses, as for every grant ...
      await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
      const denied = await poll(code.device_code);
      assert.equal(denied.status, 403);
      assert.deepEqual(denied.body, { error: 'access_denied', error_description: EXTERNAL_REFUSAL });
      // ... and the code was not spent by the refusal: switched back on, the device gets its token.
      await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
      const token = await poll(code.device_code);
      assert.equal(token.status, 200, token.text);
      const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(token.body.access_token)).expect(200);
      assert.equal(me.body.results[0].username, 'sso-sue');
    } finally {
      await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
    }
  });

  it('an approved code issues nothing after its user\'s tokens are revoked, or the user is deactivated', async () => {
    const alice = await signIn('alice', 'Alice-pass-1');
    const code = await newCode();
    assert.equal((await decideDevice(alice, alice.csrf, code.user_code)).status, 200);
    t.clock.advance(1);
    await t.http().delete(`/api/v2/users/${aliceId}/tokens/`).set('Authorization', admin).expect(204);
    assertError(await poll(code.device_code), 400, 'invalid_grant');
    const bob = await signIn('bob', 'Bob-pass-1');
    const other = await newCode();
    t.clock.advance(1);
    assert.equal((await decideDevice(bob, bob.csrf, other.user_code)).status, 200);
    await t.http().patch(`/api/v2/users/${bobId}/`).set('Authorization', admin).send({ is_active: false }).expect(200);
    assertError(await poll(other.device_code), 400, 'invalid_grant');
    await t.http().patch(`/api/v2/users/${bobId}/`).set('Authorization', admin).send({ is_active: true }).expect(200);
  });

  it('writes no device code or token into the logs', () => {
    assert.deepEqual(secretsInLogs(t, secrets), []);
  });
});

describe('device authorization without OAuth 2 (SPEC §6)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { OAUTH2_PROVIDER_ENABLED: 'false' } });
  });
  after(() => t?.close());

  it('answers 404 on the device routes, to everyone', async () => {
    const admin = basic('admin', ADMIN_PASSWORD);
    await t.http().post('/api/o/device_authorization/').type('form').send({ client_id: 'x' }).expect(404);
    await t.http().get('/api/o/device/').expect(404);
    await t.http().get('/api/o/device/').set('Authorization', admin).expect(404);
    await t.http().post('/api/o/device/').set('Authorization', admin).type('form').send({ user_code: 'BCDF-GHJK' }).expect(404);
    await t.http().post('/api/o/token/').type('form').send({ grant_type: DEVICE_CODE_GRANT, device_code: 'x', client_id: 'x' }).expect(404);
  });
});
