import { unlimited } from '../src/sessions/session-limit.interceptor';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generate } from 'otplib';
import type { Test } from 'supertest';
import { NO_REQUEST } from '../src/common/request-context';
import { SessionsService } from '../src/sessions/sessions.service';
import { UsersService } from '../src/users/users.service';
import { Agent, cookieValue } from './support/browser-login';
import { registerApp, tokenRequest } from './support/oauth2';
import { runManage } from './support/service-process';
import { SoftwareKey } from './support/software-key';
import { FRESH_SECOND_STEP_SECONDS } from '../src/mfa/factor-change-proof';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

const MFA_REQUIRED = 'This account uses two-step verification; use a token.';
const PROOF_NEEDED = /^Changing second factors needs proof: send "code"/;

/**
 * Two-step verification (SPEC §16, issue 31): enrolment through the API, the second step of the form
 * login, the password paths that cannot take one, MFA_REQUIRED_FOR, and the resets.
 */
describe('two-step verification (SPEC §16)', () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);

  /** The current code of `secret` on the test clock, `stepsAgo` steps back (drift of one step is allowed). */
  const code = (secret: string, stepsAgo = 0) => generate({ secret, epoch: Math.floor(t.clock.now().getTime() / 1000) - 30 * stepsAgo });

  /** A user with a confirmed authenticator app; the confirming code is a step back, so the current one is still unused. */
  async function enrolled(username: string): Promise<{ id: number; auth: string; secret: string; recovery: string[] }> {
    const id = await t.createUser(username, 'Strong-pass-1');
    const auth = basic(username, 'Strong-pass-1');
    const started = await t.http().post('/api/v2/me/mfa/totp/').set('Authorization', auth).send({}).expect(201);
    // A code one step back is refused once the step ends before it is checked (two steps back): start the
    // confirmation at the beginning of a step on the test clock, so only a check 25 s late could cross one.
    const intoStep = t.clock.now().getTime() % 30_000;
    if (intoStep > 5_000) t.clock.advance((30_000 - intoStep) / 1000);
    const confirmed = await t.http().post('/api/v2/me/mfa/totp/confirm/').set('Authorization', auth).send({ code: await code(started.body.secret, 1) }).expect(200);
    return { id, auth, secret: started.body.secret, recovery: confirmed.body.recovery_codes };
  }

  /** The password step of the form: the second page and the pending cookie, no session. */
  async function passwordStep(username: string, next = '') {
    const agent = t.agent();
    const page = await agent.get('/api/login/').expect(200);
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const res = await agent.post('/api/login/').set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form')
      .send({ username, password: 'Strong-pass-1', ...(next ? { next } : {}) });
    return { agent, csrf, res };
  }

  function secondStep(agent: Agent, csrf: string, form: Record<string, string>, path = '/api/login/mfa/') {
    return agent.post(path).set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form').send(form);
  }

  before(async () => {
    t = await startTestApp();
  });
  after(() => t?.close());

  it('enrols an authenticator app: pending secret, QR code made on the server, confirmation, ten recovery codes shown once', async () => {
    await t.createUser('erin', 'Strong-pass-1');
    const erin = basic('erin', 'Strong-pass-1');
    assert.deepEqual((await t.http().get('/api/v2/me/mfa/').set('Authorization', erin).expect(200)).body, { totp: false, security_keys: [], recovery_codes_left: 0 });
    const started = await t.http().post('/api/v2/me/mfa/totp/').set('Authorization', erin).send({}).expect(201);
    assert.match(started.body.secret, /^[A-Z2-7]{16,}$/);
    assert.equal(started.body.otpauth_url, `otpauth://totp/Automation%20Service:erin?secret=${started.body.secret}&issuer=Automation%20Service`);
    assert.match(started.body.qr_code, /^data:image\/png;base64,/);
    // Pending until confirmed: the password alone still works.
    await t.http().get('/api/v2/me/').set('Authorization', erin).expect(200);
    const wrong = await t.http().post('/api/v2/me/mfa/totp/confirm/').set('Authorization', erin).send({ code: '000000' });
    assert.equal(wrong.status, 400);
    assert.equal(typeof wrong.body.detail, 'string');
    const confirmed = await t.http().post('/api/v2/me/mfa/totp/confirm/').set('Authorization', erin).send({ code: await code(started.body.secret) }).expect(200);
    const codes: string[] = confirmed.body.recovery_codes;
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const c of codes) assert.match(c, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
    // Now the password alone is refused, with the SPEC's words.
    const refused = await t.http().get('/api/v2/me/').set('Authorization', erin).expect(401);
    assert.deepEqual(refused.body, { detail: MFA_REQUIRED });
    // Never a secret or a code in the logs.
    const logs = t.logs.join('\n');
    for (const secret of [started.body.secret, ...codes]) assert.ok(!logs.includes(secret), 'a secret reached the log');
    assert.match(logs, /"event":"mfa_factor_added"/);
  });

  it('asks for the second step on the form: 200 page and a pending cookie, no session until a code completes it as §2 does', async () => {
    const bob = await enrolled('bob');
    const { agent, csrf, res } = await passwordStep('bob', '/api/v2/me/');
    assert.equal(res.status, 200);
    assert.match(res.text, /<label for="code">Authentication code<\/label>/);
    assert.match(res.text, /<button type="submit">Verify<\/button>/);
    assert.doesNotMatch(res.text, /Use a security key/, 'no key, no key button');
    const setCookie = res.headers['set-cookie'] as unknown as string[];
    assert.ok(!cookieValue(setCookie, t.config.sessionCookieName), 'no session cookie before the second step');
    const pending = setCookie.find((c) => c.startsWith('mfa_pending='))!;
    assert.match(pending, /HttpOnly/);
    assert.match(pending, /Max-Age=300/);
    assert.match(pending, /Path=\/api\/login\/mfa\//);
    await agent.get('/api/v2/me/').expect(401);

    const wrong = await secondStep(agent, csrf, { code: '123456' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.text, /role="alert">The code is not valid/);
    const done = await secondStep(agent, csrf, { code: await code(bob.secret) });
    assert.equal(done.status, 302, done.text);
    assert.equal(done.headers.location, '/api/v2/me/');
    const cookies = done.headers['set-cookie'] as unknown as string[];
    assert.ok(cookieValue(cookies, t.config.sessionCookieName), 'the session cookie');
    assert.ok(cookieValue(cookies, 'csrftoken'), 'the CSRF token is rotated');
    assert.ok(done.headers['session-timeout'], 'Session-Timeout');
    const me = await agent.get('/api/v2/me/').expect(200);
    assert.equal(me.body.results[0].username, 'bob');
    // The pending login is spent: replaying the completed step finds nothing.
    const again = await secondStep(agent, cookieValue(cookies, 'csrftoken')!, { code: await code(bob.secret) });
    assert.equal(again.status, 401);
  });

  it('uses each TOTP code once, and each recovery code once', async () => {
    const carol = await enrolled('carol');
    const current = await code(carol.secret);
    const first = await passwordStep('carol');
    assert.equal((await secondStep(first.agent, first.csrf, { code: current })).status, 302);
    const second = await passwordStep('carol');
    assert.equal((await secondStep(second.agent, second.csrf, { code: current })).status, 401, 'a code already used is refused');
    assert.equal((await secondStep(second.agent, second.csrf, { code: carol.recovery[0].toUpperCase().replace('-', ' ') })).status, 302, 'case, spaces and the dash do not matter');
    const third = await passwordStep('carol');
    assert.equal((await secondStep(third.agent, third.csrf, { code: carol.recovery[0] })).status, 401, 'a recovery code works once');
    assert.equal((await t.http().get('/api/v2/me/').set('Authorization', carol.auth).expect(401)).body.detail, MFA_REQUIRED, 'the factor is still set');
  });

  it('throttles second-step failures per user (429 with Retry-After), and a pending login lasts five minutes', async () => {
    const dan = await enrolled('dan');
    await t.settings({ LOGIN_FAILURES_ALLOWED: 3 });
    try {
      const { agent, csrf } = await passwordStep('dan');
      for (let i = 0; i < 3; i++) assert.equal((await secondStep(agent, csrf, { code: '000000' })).status, 401);
      const throttled = await secondStep(agent, csrf, { code: await code(dan.secret) });
      assert.equal(throttled.status, 429);
      assert.ok(Number(throttled.headers['retry-after']) > 0);
      // Per user: a fresh pending login of the same user is throttled as well.
      const other = await passwordStep('dan');
      assert.equal((await secondStep(other.agent, other.csrf, { code: await code(dan.secret) })).status, 429);
    } finally {
      await t.settings({ LOGIN_FAILURES_ALLOWED: 5 });
    }
    t.clock.advance(901);
    const late = await passwordStep('dan');
    t.clock.advance(301);
    const expired = await secondStep(late.agent, late.csrf, { code: await code(dan.secret) });
    assert.equal(expired.status, 401);
    assert.match(expired.text, /Your login took too long/);
  });

  it('holds the second step to the CSRF rules of §2', async () => {
    const { agent } = await passwordStep('bob');
    const res = await agent.post('/api/login/mfa/').type('form').send({ code: '123456' });
    assert.equal(res.status, 403);
  });

  it('refuses the password alone on basic and the password grant; tokens keep working', async () => {
    await t.createUser('gail', 'Strong-pass-1');
    const auth = basic('gail', 'Strong-pass-1');
    const token = (await t.http().post('/api/v2/tokens/').set('Authorization', auth).send({}).expect(201)).body.token;
    const cli = await registerApp(t, admin, { name: 'cli', client_type: 'confidential', authorization_grant_type: 'password' });
    const started = await t.http().post('/api/v2/me/mfa/totp/').set('Authorization', auth).send({}).expect(201);
    await t.http().post('/api/v2/me/mfa/totp/confirm/').set('Authorization', auth).send({ code: await code(started.body.secret) }).expect(200);
    assert.deepEqual((await t.http().get('/api/v2/me/').set('Authorization', auth).expect(401)).body, { detail: MFA_REQUIRED });
    const grant = await tokenRequest(t, { grant_type: 'password', username: 'gail', password: 'Strong-pass-1' }, { clientId: cli.clientId, secret: cli.clientSecret });
    assert.equal(grant.status, 400);
    assert.deepEqual({ error: grant.body.error, error_description: grant.body.error_description }, { error: 'invalid_grant', error_description: MFA_REQUIRED });
    await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${token}`).expect(200);
    // A wrong password still reads as a wrong password, not as "uses two-step verification".
    const wrong = await t.http().get('/api/v2/me/').set('Authorization', basic('gail', 'wrong-pass')).expect(401);
    assert.deepEqual(wrong.body, { detail: 'Invalid username/password.' });
  });

  it('removes the authenticator app only with a code, and makes new recovery codes with one', async () => {
    const hana = await enrolled('hana');
    const bearer = `Bearer ${await personalToken(hana.id)}`;
    await t.http().delete('/api/v2/me/mfa/totp/').set('Authorization', bearer).send({ code: '000000' }).expect(400);
    const fresh = await t.http().post('/api/v2/me/mfa/recovery_codes/').set('Authorization', bearer).send({ code: hana.recovery[1] }).expect(200);
    assert.equal(fresh.body.recovery_codes.length, 10);
    await t.http().delete('/api/v2/me/mfa/totp/').set('Authorization', bearer).send({ code: hana.recovery[2] }).expect(400);
    await t.http().delete('/api/v2/me/mfa/totp/').set('Authorization', bearer).send({ code: fresh.body.recovery_codes[0] }).expect(204);
    assert.deepEqual((await t.http().get('/api/v2/me/mfa/').set('Authorization', bearer).expect(200)).body, { totp: false, security_keys: [], recovery_codes_left: 0 });
    await t.http().get('/api/v2/me/').set('Authorization', hana.auth).expect(200);
  });

  it('counts every code check of a user in one throttle: past the allowance each route answers 429, even to a right code, until the window passes', async () => {
    const lena = await enrolled('lena');
    const bearer = `Bearer ${await personalToken(lena.id)}`;
    const removeTotp = (c: string) => t.http().delete('/api/v2/me/mfa/totp/').set('Authorization', bearer).send({ code: c });
    const newCodes = (c: string) => t.http().post('/api/v2/me/mfa/recovery_codes/').set('Authorization', bearer).send({ code: c });
    const status = async () => (await t.http().get('/api/v2/me/mfa/').set('Authorization', bearer).expect(200)).body;
    const asLena: Caller = (method, path) => t.http()[method](path).set('Authorization', bearer);
    await t.settings({ LOGIN_FAILURES_ALLOWED: 4, LOGIN_FAILURE_WINDOW: 600 });
    try {
      // Control: within the allowance a right code works (and forgives the failure before it).
      assert.deepEqual((await newCodes('000000').expect(400)).body, { detail: 'The code is not valid.' });
      const recovery: string[] = (await newCodes(lena.recovery[0]).expect(200)).body.recovery_codes;
      // A request without a code is no check: a 400 that counts nothing.
      for (let i = 0; i < 4; i++) await removeTotp('').expect(400);
      // Four wrong codes, one on each route, spend the allowance they share (the fourth: the proof of a factor change).
      await removeTotp('111111').expect(400);
      await newCodes('222222').expect(400);
      await addKey(asLena, { code: '444444', status: 400 });
      const { agent, csrf } = await passwordStep('lena');
      assert.equal((await secondStep(agent, csrf, { code: '333333' })).status, 401);
      // Past it: 429 with Retry-After on every route, for a right code too, and nothing is spent or changed.
      t.clock.advance(30);
      const refusals = [
        await removeTotp(await code(lena.secret)),
        await newCodes(recovery[0]),
        await removeTotp(recovery[1]),
        await secondStep(agent, csrf, { code: recovery[2] }),
        await addKey(asLena, { code: recovery[3] }),
      ];
      for (const res of refusals) {
        assert.equal(res.status, 429, res.text.slice(0, 200));
        const retryAfter = Number(res.headers['retry-after']);
        assert.ok(retryAfter > 0 && retryAfter <= 600, `Retry-After ${res.headers['retry-after']}`);
      }
      assert.match(refusals[0].body.detail, /^Too many wrong codes\. Try again in \d+ seconds\.$/);
      assert.deepEqual(await status(), { totp: true, security_keys: [], recovery_codes_left: 10 });
      assert.match(t.logs.join('\n'), /"event":"login_throttled","method":"second_factor","stage":"remove_totp"/);
      // Still refused just before the window ends; once it has passed the right code works again.
      t.clock.advance(600 - 31);
      assert.equal((await newCodes(recovery[0])).status, 429);
      t.clock.advance(2);
      assert.equal((await newCodes(recovery[0]).expect(200)).body.recovery_codes.length, 10);
    } finally {
      await t.settings({ LOGIN_FAILURES_ALLOWED: 5, LOGIN_FAILURE_WINDOW: 900 });
    }
  });

  /** One way of calling the API as a user: a bearer token, or a session with its CSRF token as the Security tab sends it. */
  type Caller = (method: 'get' | 'post' | 'delete', path: string) => Test;
  const byToken = (token: string): Caller => (method, path) => t.http()[method](path).set('Authorization', `Bearer ${token}`);
  const bySession = (agent: Agent, csrf: string): Caller => (method, path) => agent[method](path).set('X-CSRFToken', csrf).set('Referer', `${t.url}/`);

  /** A session made without any second step (as a login before one was set up), with a CSRF token. */
  async function plainSession(userId: number): Promise<Caller> {
    const { token } = await t.app.get(SessionsService).create((await t.app.get(UsersService).findById(userId))!, unlimited('127.0.0.1'), 'test', NO_REQUEST);
    const agent = t.agent();
    const csrf = cookieValue((await agent.get('/api/login/').expect(200)).headers['set-cookie'], 'csrftoken')!;
    return (method, path) => bySession(agent, csrf)(method, path).set('Cookie', `${t.config.sessionCookieName}=${token}; csrftoken=${csrf}`);
  }

  /** A session through the form and its second step, completed now with a TOTP code or a key's assertion. */
  async function secondStepSession(username: string, proof: { secret?: string; key?: SoftwareKey }): Promise<Caller> {
    const { agent, csrf, res } = await passwordStep(username);
    assert.equal(res.status, 200, 'the second page');
    let form: Record<string, string>;
    if (proof.key) {
      const options = /data-options="([^"]+)"/.exec(res.text)![1].replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
      form = { credential: JSON.stringify(proof.key.assertion((JSON.parse(options) as { challenge: string }).challenge)) };
    } else {
      t.clock.advance(30); // an unused code
      form = { code: await code(proof.secret!) };
    }
    const done = await secondStep(agent, csrf, form);
    assert.equal(done.status, 302, done.text.slice(0, 200));
    return bySession(agent, cookieValue(done.headers['set-cookie'], 'csrftoken')!);
  }

  /** A key in software for this service's relying party (PUBLIC_URL). */
  const softwareKey = () => new SoftwareKey(new URL(t.config.publicUrl).hostname, new URL(t.config.publicUrl).origin);

  /** Creation options (they need no proof), then the key's answer, with `code` in the body when given; `status` is asserted. */
  async function addKey(as: Caller, opts: { key?: SoftwareKey; code?: string; status?: number } = {}) {
    const options = await as('post', '/api/v2/me/mfa/security_keys/options/').send({}).expect(200);
    const credential = (opts.key ?? softwareKey()).registration((options.body as { challenge: string }).challenge);
    const res = await as('post', '/api/v2/me/mfa/security_keys/').send({ name: 'Desk key', credential, ...(opts.code === undefined ? {} : { code: opts.code }) });
    if (opts.status) assert.equal(res.status, opts.status, res.text);
    return res;
  }

  async function mfaStatus(as: Caller): Promise<{ totp: boolean; security_keys: { id: number }[]; recovery_codes_left: number }> {
    return (await as('get', '/api/v2/me/mfa/').expect(200)).body;
  }

  it('a key is added or removed with proof only, once a user has a factor: 403 for a token or an old session, a code or a fresh second step works', async () => {
    const nora = await enrolled('nora');
    const token = byToken(await personalToken(nora.id));
    const plain = await plainSession(nora.id);
    const stale = await secondStepSession('nora', { secret: nora.secret });
    t.clock.advance(FRESH_SECOND_STEP_SECONDS + 1);

    // Adding: refused without proof, before the key's answer is even read; a wrong code is a 400; nothing is added.
    for (const as of [token, plain, stale]) {
      const refused = await addKey(as);
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.body.detail, PROOF_NEEDED);
    }
    assert.deepEqual((await addKey(token, { code: '000000', status: 400 })).body, { detail: 'The code is not valid.' });
    assert.deepEqual((await mfaStatus(token)).security_keys, []);
    // A right code in the body works (here a recovery code, which it spends).
    const added = await addKey(token, { code: nora.recovery[0], status: 201 });
    assert.equal((await addKey(token, { code: nora.recovery[0] })).status, 400, 'a recovery code proves once');
    assert.equal((await mfaStatus(token)).security_keys.length, 1);

    // Removing: the same refusals, nothing removed; then a current code of the app works.
    const removeKey = (as: Caller) => as('delete', `/api/v2/me/mfa/security_keys/${added.body.id}/`);
    for (const as of [token, plain, stale]) {
      const refused = await removeKey(as).send({});
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.body.detail, PROOF_NEEDED);
    }
    assert.equal((await mfaStatus(token)).security_keys.length, 1, 'nothing was removed');
    t.clock.advance(30);
    await removeKey(token).send({ code: await code(nora.secret) }).expect(204);

    // A session whose second step is less than five minutes old needs no code, for either change.
    const fresh = await secondStepSession('nora', { secret: nora.secret });
    t.clock.advance(FRESH_SECOND_STEP_SECONDS - 1);
    const second = await addKey(fresh, { status: 201 });
    await fresh('delete', `/api/v2/me/mfa/security_keys/${second.body.id}/`).send({}).expect(204);
    t.clock.advance(1);
    assert.equal((await addKey(fresh)).status, 403, 'five minutes on, the same session needs a code');
  });

  it("deleting a user's only key needs proof (it would switch the second step off); so does starting an authenticator app", async () => {
    // No factor yet: the first is added freely (here with basic), and brings the recovery codes.
    const kaiId = await t.createUser('kai', 'Strong-pass-1');
    const kaiBasic = basic('kai', 'Strong-pass-1');
    const key = softwareKey();
    const first = await addKey((method, path) => t.http()[method](path).set('Authorization', kaiBasic), { key, status: 201 });
    const recovery: string[] = first.body.recovery_codes;
    assert.equal(recovery.length, 10);
    assert.deepEqual((await t.http().get('/api/v2/me/').set('Authorization', kaiBasic).expect(401)).body, { detail: MFA_REQUIRED });

    const token = byToken(await personalToken(kaiId));
    const plain = await plainSession(kaiId);
    for (const as of [token, plain]) {
      const refused = await as('delete', `/api/v2/me/mfa/security_keys/${first.body.id}/`).send({});
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.body.detail, PROOF_NEEDED);
      const app = await as('post', '/api/v2/me/mfa/totp/').send({});
      assert.equal(app.status, 403, app.text);
    }
    assert.equal((await mfaStatus(token)).security_keys.length, 1, 'the key is still there');
    await t.http().get('/api/v2/me/').set('Authorization', kaiBasic).expect(401);
    // With a recovery code an authenticator app is started (confirming it would replace the recovery codes).
    assert.match((await token('post', '/api/v2/me/mfa/totp/').send({ code: recovery[0] }).expect(201)).body.secret, /^[A-Z2-7]+$/);

    // A session whose login completed the second step with the key just now removes it without a code.
    const fresh = await secondStepSession('kai', { key });
    await fresh('delete', `/api/v2/me/mfa/security_keys/${first.body.id}/`).send({}).expect(204);
    assert.deepEqual(await mfaStatus(token), { totp: false, security_keys: [], recovery_codes_left: 0 });
    await t.http().get('/api/v2/me/').set('Authorization', kaiBasic).expect(200);
  });

  /** A personal token made for a user directly (the user's basic is refused once a factor is set). */
  async function personalToken(userId: number): Promise<string> {
    const { TokensService } = await import('../src/tokens/tokens.service');
    const user = (await t.app.get(UsersService).findById(userId))!;
    return (await t.app.get(TokensService).issue({ user, application: null, scope: 'write', trace: NO_REQUEST })).token;
  }

  it('lets a superuser reset a user\'s factors (403 for anyone else), and so does reset_mfa', async () => {
    const ivan = await enrolled('ivan');
    await t.http().delete(`/api/v2/users/${ivan.id}/mfa/`).set('Authorization', `Bearer ${await personalToken(ivan.id)}`).expect(403);
    await t.http().delete(`/api/v2/users/${ivan.id}/mfa/`).set('Authorization', admin).expect(204);
    await t.http().get('/api/v2/me/').set('Authorization', ivan.auth).expect(200);
    await t.http().delete('/api/v2/users/999999/mfa/').set('Authorization', admin).expect(404);

    const jane = await enrolled('jane');
    await t.http().get('/api/v2/me/').set('Authorization', jane.auth).expect(401);
    const run = runManage(['reset_mfa', '--user', 'jane'], { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /Two-step verification reset for user 'jane'/);
    await t.http().get('/api/v2/me/').set('Authorization', jane.auth).expect(200);
    const missing = runManage(['reset_mfa', '--user', 'nobody'], { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey });
    assert.notEqual(missing.status, 0);
  });

  it('MFA_REQUIRED_FOR: a required user sets up TOTP on the form before the login completes; basic refuses them meanwhile', async () => {
    await t.createUser('root2', 'Strong-pass-1', { is_superuser: true });
    await t.createUser('kate', 'Strong-pass-1');
    await t.settings({ MFA_REQUIRED_FOR: 'superusers' });
    try {
      await t.http().get('/api/v2/me/').set('Authorization', basic('kate', 'Strong-pass-1')).expect(200);
      assert.deepEqual((await t.http().get('/api/v2/me/').set('Authorization', basic('root2', 'Strong-pass-1')).expect(401)).body, { detail: MFA_REQUIRED });
      const { agent, csrf, res } = await passwordStep('root2', '/api/v2/me/');
      assert.equal(res.status, 200);
      assert.match(res.text, /<img class="qr" src="data:image\/png;base64,[^"]+" alt="QR code for your authenticator app[^"]*"/);
      assert.match(res.text, /<label for="code">Authentication code<\/label>/);
      assert.match(res.text, /<button type="submit">Confirm<\/button>/);
      const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(res.text)![1];
      await agent.get('/api/v2/me/').expect(401);
      const wrong = await secondStep(agent, csrf, { code: '000000' }, '/api/login/mfa/setup/');
      assert.equal(wrong.status, 401);
      assert.ok(wrong.text.includes(secret), 'the same secret is shown again');
      const done = await secondStep(agent, csrf, { code: await code(secret) }, '/api/login/mfa/setup/');
      assert.equal(done.status, 200, done.text);
      assert.equal(done.text.match(/<li><code>[a-z2-9]{5}-[a-z2-9]{5}<\/code><\/li>/g)?.length, 10);
      assert.match(done.text, /<a class="button" href="\/api\/v2\/me\/">Continue<\/a>/);
      assert.ok(cookieValue(done.headers['set-cookie'], t.config.sessionCookieName), 'the login completed');
      assert.equal((await agent.get('/api/v2/me/').expect(200)).body.results[0].username, 'root2');
      await t.settings({ MFA_REQUIRED_FOR: 'all' });
      const kate = await passwordStep('kate');
      assert.match(kate.res.text, /Set up two-step verification/);
    } finally {
      await t.settings({ MFA_REQUIRED_FOR: 'none' });
    }
  });

  it('never asks SSO users, who cannot enrol here; refuses a bad security key registration with a 400', async () => {
    const sso = await t.app.get(UsersService).create({ username: 'sso-lee' }, NO_REQUEST, { externalAccount: 'social' });
    const { token } = await t.app.get(SessionsService).create(sso, unlimited('127.0.0.1'), 'test', NO_REQUEST);
    const agent = t.agent();
    const cookie = `${t.config.sessionCookieName}=${token}`;
    await agent.get('/api/v2/me/mfa/').set('Cookie', cookie).expect(200);
    const page = await agent.get('/api/login/').expect(200);
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const refused = await agent.post('/api/v2/me/mfa/totp/').set('Cookie', `${cookie}; csrftoken=${csrf}`).set('X-CSRFToken', csrf).set('Referer', `${t.url}/`).send({});
    assert.equal(refused.status, 403, JSON.stringify(refused.body));

    await t.createUser('mia', 'Strong-pass-1');
    const mia = basic('mia', 'Strong-pass-1');
    await t.http().post('/api/v2/me/mfa/security_keys/').set('Authorization', mia).send({ name: 'k', credential: { id: 'x' } }).expect(400);
    const options = await t.http().post('/api/v2/me/mfa/security_keys/options/').set('Authorization', mia).send({}).expect(200);
    assert.equal(options.body.rp.id, new URL(t.config.publicUrl).hostname);
    assert.equal(typeof options.body.challenge, 'string');
    const bad = await t.http().post('/api/v2/me/mfa/security_keys/').set('Authorization', mia).send({ name: 'k', credential: { id: 'x', response: {} } });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    await t.http().post('/api/v2/me/mfa/security_keys/').set('Authorization', mia).send({ name: '', credential: {} }).expect(400);
    await t.http().delete('/api/v2/me/mfa/security_keys/12345/').set('Authorization', mia).expect(404);
    await t.http().get('/api/v2/me/').set('Authorization', mia).expect(200);
  });
});
