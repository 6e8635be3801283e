import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import request from 'supertest';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { CLIENT_ID, CLIENT_SECRET, OidcAccount, OidcIdp } from './support/oidc-idp';
import { spawnService } from './support/service-process';
import { Browser } from './support/sso-browser';
import { assertLoggedIn, assertRefused, lastEvent, pendingStateKeys, sessionCount, setCookies, startCookie, userCount } from './support/sso-assertions';

const ACCOUNTS: Record<string, OidcAccount> = {
  'sub-alice': { preferred_username: 'alice', email: 'alice@corp.example', given_name: 'Alice', family_name: 'Anders' },
  'sub-bob': { preferred_username: 'bob', email: 'bob@corp.example', given_name: 'Bob', family_name: 'Berg' },
  'sub-carol': { preferred_username: 'carol', email: 'carol@corp.example' },
  'sub-dave': { preferred_username: 'dave' },
  'sub-erin': { preferred_username: 'erin' },
  'sub-frank': { preferred_username: 'frank' },
  'sub-gail': { preferred_username: 'gail' },
};

describe('single sign-on with OpenID Connect against a real provider (SPEC §7)', () => {
  let t: TestApp;
  let idp: OidcIdp;

  before(async () => {
    t = await startTestApp();
    idp = await OidcIdp.start({ redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`, accounts: ACCOUNTS });
    await t.settings({
      SOCIAL_AUTH_OIDC_PROVIDERS: {
        corp: { issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
        // Discovery at this URL answers the metadata of another issuer (mix-up).
        mirror: { issuer: `${idp.issuer}/mirror`, client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
      },
    });
  });
  after(async () => {
    await idp.close();
    await t.close();
  });
  beforeEach(() => {
    idp.tamperIdToken = undefined;
  });

  /** Login URL → provider (sign in, consent) → back with the callback URL, not yet followed. */
  async function toCallback(browser: Browser, account: string, loginUrl = '/sso/login/oidc/?idp=corp'): Promise<string> {
    const start = await browser.get(loginUrl).expect(302);
    assert.ok(start.headers.location.startsWith(`${idp.issuer}/auth?`), start.headers.location);
    return idp.authenticate(browser, start.headers.location, account);
  }

  async function login(browser: Browser, account: string, loginUrl?: string) {
    return browser.get(await toCallback(browser, account, loginUrl));
  }

  it('redirects to the provider with PKCE S256, state, nonce, the callback URL and an HttpOnly binding cookie', async () => {
    const browser = new Browser(t);
    const res = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
    const url = new URL(res.headers.location);
    assert.equal(url.origin + url.pathname, `${idp.issuer}/auth`);
    assert.equal(url.searchParams.get('client_id'), CLIENT_ID);
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.equal(url.searchParams.get('redirect_uri'), `${t.config.publicUrl}/sso/complete/oidc/`);
    assert.equal(url.searchParams.get('scope'), 'openid profile email');
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.match(url.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
    assert.match(url.searchParams.get('state')!, /^[A-Za-z0-9_-]{43}$/);
    assert.match(url.searchParams.get('nonce')!, /^[A-Za-z0-9_-]{43}$/);
    // One cookie per start, named by a digest of its state: the state, nonce and verifier sealed inside.
    const binding = setCookies(res).find((c) => /^sso_oidc_[A-Za-z0-9_-]{16}=/.test(c));
    assert.ok(binding, setCookies(res).join('\n'));
    assert.match(binding, /HttpOnly/);
    assert.match(binding, /SameSite=Lax/);
    assert.match(binding, /Path=\/sso\//);
    assert.match(binding, /Max-Age=600/);
    for (const value of ['state', 'nonce']) assert.ok(!binding.includes(url.searchParams.get(value)!), `no plain ${value} in the cookie`);
    assert.ok(!setCookies(res).some((c) => c.startsWith('svc_session_id=')));
  });

  it('answers 404 for a protocol no module registered, and for a leg by the wrong method', async () => {
    for (const [method, path] of [['get', '/sso/login/github/?idp=corp'], ['get', '/sso/complete/github/'], ['post', '/sso/complete/oidc/'], ['get', '/sso/complete/saml/']] as const) {
      const res = await t.http()[method](path).expect(404);
      assert.equal(typeof res.body.detail, 'string', `${method} ${path} answers JSON`);
    }
    // The registered protocol's leg works on the same route shape.
    await t.http().get('/sso/login/oidc/?idp=corp').expect(302);
  });

  it('first login creates an external user linked to (provider, sub); the session is a normal one', async () => {
    const users = await userCount(t);
    const browser = new Browser(t);
    const res = await login(browser, 'sub-alice');
    const me = await assertLoggedIn(t, browser, res);
    assert.equal(me.username, 'alice');
    assert.equal(me.first_name, 'Alice');
    assert.equal(me.last_name, 'Anders');
    assert.equal(me.email, 'alice@corp.example');
    assert.equal(me.external_account, 'social');
    assert.deepEqual(me.auth, [{ provider: 'oidc:corp', uid: 'sub-alice' }]);
    assert.equal(me.is_superuser, false);
    assert.ok(!('password' in me), 'external users show no password');
    assert.equal(await userCount(t), users + 1);
    const sessions = await browser.get('/api/v2/me/sessions/').expect(200);
    assert.equal(sessions.body.count, 1);
    const event = lastEvent(t, 'sso_login');
    assert.equal(event?.outcome, 'success');
    assert.equal(event?.provider, 'oidc:corp');
    assert.equal(event?.user_id, me.id);
    // An SSO user has no usable local password.
    await t.http().get('/api/v2/me/').set('Authorization', basic('alice', '')).expect(401);
  });

  it('a second login reuses the user and refreshes name and email from the provider', async () => {
    const browser1 = new Browser(t);
    const first = await assertLoggedIn(t, browser1, await login(browser1, 'sub-bob'));
    const users = await userCount(t);
    ACCOUNTS['sub-bob'].email = 'robert@corp.example';
    ACCOUNTS['sub-bob'].given_name = 'Robert';
    try {
      const browser = new Browser(t);
      const again = await assertLoggedIn(t, browser, await login(browser, 'sub-bob'));
      assert.equal(again.id, first.id);
      assert.equal(again.email, 'robert@corp.example');
      assert.equal(again.first_name, 'Robert');
      assert.equal(await userCount(t), users);
    } finally {
      ACCOUNTS['sub-bob'].email = 'bob@corp.example';
      ACCOUNTS['sub-bob'].given_name = 'Bob';
    }
  });

  it('never links to a local user of the same name: the SSO user gets "<name>-2" and the local one is untouched', async () => {
    const localId = await t.createUser('carol', 'Carol-local-pass-1', { email: 'carol@local.example' });
    const browser = new Browser(t);
    const me = await assertLoggedIn(t, browser, await login(browser, 'sub-carol'));
    assert.equal(me.username, 'carol-2');
    assert.notEqual(me.id, localId);
    const local = await t.http().get(`/api/v2/users/${localId}/`).set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(200);
    assert.equal(local.body.email, 'carol@local.example');
    assert.equal(local.body.external_account, null);
    assert.deepEqual(local.body.auth, []);
    await t.http().get('/api/v2/me/').set('Authorization', basic('carol', 'Carol-local-pass-1')).expect(200);
  });

  it('carries `next` through the round trip and refuses an unsafe one', async () => {
    const browser = new Browser(t);
    await assertLoggedIn(t, browser, await login(browser, 'sub-alice', '/sso/login/oidc/?idp=corp&next=%2Fapi%2Fv2%2Fme%2Fsessions%2F'), '/api/v2/me/sessions/');
    const other = new Browser(t);
    await assertLoggedIn(t, other, await login(other, 'sub-alice', '/sso/login/oidc/?idp=corp&next=https%3A%2F%2Fevil.example%2F'));
  });

  it('40 anonymous starts from the same address neither refuse a start nor end a colleague\'s login in progress, and store nothing (issue 56)', async () => {
    // A colleague starts a login and is at the provider; then 40 anonymous starts (no cookies) from the same
    // address (everyone here is 127.0.0.1, as an office behind one NAT).
    const colleague = new Browser(t);
    const callback = await toCallback(colleague, 'sub-erin', '/sso/login/oidc/?idp=corp&next=%2Fapi%2Fv2%2Fme%2F');
    const keys = await pendingStateKeys(t);
    for (let i = 0; i < 40; i++) {
      const start = await request(t.server).get('/sso/login/oidc/?idp=corp').expect(302);
      assert.ok(start.headers.location.startsWith(`${idp.issuer}/auth?`), start.headers.location);
    }
    const added = [...(await pendingStateKeys(t))].filter((key) => !keys.has(key));
    assert.deepEqual(added, [], 'a start writes no pending-state row');
    // The colleague's login completes: 302 to its `next`, a session.
    const me = await assertLoggedIn(t, colleague, await colleague.get(callback), '/api/v2/me/');
    assert.equal(me.username, 'erin');
  });

  it('refuses a completion replayed with its start cookie sent again (single use, the replay record)', async () => {
    const browser = new Browser(t);
    const start = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
    const binding = startCookie(start, 'sso_oidc_');
    assert.ok(binding, 'a start cookie');
    const callback = await idp.authenticate(browser, start.headers.location, 'sub-alice');
    await assertLoggedIn(t, browser, await browser.get(callback));
    // The same state, with the cookie the browser was told to drop, sent again by hand.
    const sessions = await sessionCount(t);
    const replay = await request(t.server).get(browser.url(callback).slice(t.url.length)).set('Cookie', binding).redirects(0);
    await assertRefused(t, new Browser(t), replay, 'no_transaction', sessions);
    assert.match(String(lastEvent(t, 'sso_login')?.detail), /already completed/);
  });

  it("refuses another browser's callback in a browser that has a login of its own started; the one that started it still completes", async () => {
    const victim = new Browser(t);
    const callback = await toCallback(victim, 'sub-alice');
    const attacker = new Browser(t);
    await attacker.get('/sso/login/oidc/?idp=corp').expect(302);
    const sessions = await sessionCount(t);
    await assertRefused(t, attacker, await attacker.get(callback), 'no_transaction', sessions);
    await assertLoggedIn(t, victim, await victim.get(callback));
  });

  it('two tabs of one browser complete their own logins; the browser keeps its five newest starts', async () => {
    const browser = new Browser(t);
    // (One browser holds one session at the provider: both tabs sign in as alice there.)
    const first = await toCallback(browser, 'sub-alice');
    const second = await toCallback(browser, 'sub-alice');
    assert.equal((await assertLoggedIn(t, browser, await browser.get(second))).username, 'alice');
    assert.equal((await assertLoggedIn(t, browser, await browser.get(first))).username, 'alice');
    // Six starts in one browser: its oldest is ended (its cookie cleared), the other five still complete.
    const tabs = new Browser(t);
    const callbacks: string[] = [];
    for (let i = 0; i < 6; i++) callbacks.push(await toCallback(tabs, 'sub-alice'));
    await assertRefused(t, tabs, await tabs.get(callbacks[0]), 'no_transaction', await sessionCount(t));
    await assertLoggedIn(t, tabs, await tabs.get(callbacks[5]));
    await assertLoggedIn(t, tabs, await tabs.get(callbacks[1]));
  });

  it('a login started on one node completes on another (the state travels sealed in the browser)', async () => {
    const node = await spawnService({ DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey, PUBLIC_URL: t.config.publicUrl });
    try {
      // One browser: the start goes to this app, the provider's redirect back to the other node.
      const browser = new Browser({ url: node.url, config: t.config });
      const start = await browser.get(`${t.url}/sso/login/oidc/?idp=corp`).expect(302);
      const callback = await idp.authenticate(browser, start.headers.location, 'sub-dave');
      const res = await browser.get(callback);
      assert.equal(res.status, 302, node.output.join('').slice(-2000));
      assert.equal(res.headers.location, '/accounts/profile/');
      assert.equal((await browser.get('/api/v2/me/').expect(200)).body.results[0].username, 'dave');
    } finally {
      await node.stop();
    }
  });

  it('session limits apply to SSO sessions', async () => {
    await t.settings({ SESSIONS_PER_USER: 1 });
    try {
      const first = new Browser(t);
      await assertLoggedIn(t, first, await login(first, 'sub-dave'));
      const second = new Browser(t);
      await assertLoggedIn(t, second, await login(second, 'sub-dave'));
      const ended = await first.get('/api/v2/me/').expect(401);
      assert.equal(ended.body.reason, 'session_limit');
      await second.get('/api/v2/me/').expect(200);
    } finally {
      await t.settings({ SESSIONS_PER_USER: -1 });
    }
  });

  it('applies a changed provider setting to the next login, without a restart', async () => {
    const corp = { issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET };
    const mirror = { issuer: `${idp.issuer}/mirror`, client_id: CLIENT_ID, client_secret: CLIENT_SECRET };
    const admin = basic('admin', ADMIN_PASSWORD);
    await t.http().patch('/api/v2/settings/oidc/').set('Authorization', admin)
      .send({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { ...corp, client_secret: 'a-wrong-secret' }, mirror } }).expect(200);
    try {
      const browser = new Browser(t);
      await assertRefused(t, browser, await login(browser, 'sub-alice'), 'invalid_response', await sessionCount(t));
      assert.match(String(lastEvent(t, 'sso_login')?.detail), /invalid_client/);
    } finally {
      await t.http().patch('/api/v2/settings/oidc/').set('Authorization', admin).send({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp, mirror } }).expect(200);
    }
    const browser = new Browser(t);
    await assertLoggedIn(t, browser, await login(browser, 'sub-alice'));
    const metrics = await t.http().get('/api/v2/metrics/').set('Authorization', admin).expect(200);
    assert.match(metrics.text, /svc_logins_total\{method="oidc",outcome="success"\} [1-9]/);
    assert.match(metrics.text, /svc_logins_total\{method="oidc",outcome="failure"\} [1-9]/);
  });

  it('with DISABLE_LOCAL_AUTH on, SSO users still log in and keep their sessions (they are external)', async () => {
    await t.settings({ DISABLE_LOCAL_AUTH: true });
    try {
      const browser = new Browser(t);
      await assertLoggedIn(t, browser, await login(browser, 'sub-alice'));
      await browser.get('/api/v2/me/').expect(200);
      await t.http().get('/api/v2/me/').set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(401);
    } finally {
      await t.settings({ DISABLE_LOCAL_AUTH: false });
    }
  });

  it('under MFA_REQUIRED_FOR=all an SSO user logs in at once, while a local user must set up a factor (SPEC §16)', async () => {
    await t.settings({ MFA_REQUIRED_FOR: 'all' });
    try {
      // SSO users verify at their identity provider and are never asked: no set-up page, no second step.
      const browser = new Browser(t);
      const res = await login(browser, 'sub-gail');
      assert.ok(!setCookies(res).some((c) => c.startsWith('mfa_pending=')), 'no pending second step');
      const me = await assertLoggedIn(t, browser, res);
      assert.equal(me.username, 'gail');
      const factors = (await browser.get('/api/v2/me/mfa/').expect(200)).body;
      assert.equal(factors.totp, false);
      assert.deepEqual(factors.security_keys, []);
      // The same setting holds a local user with a password at the set-up page, without a session.
      await t.createUser('hal', 'Hal-pass-1');
      const local = new Browser(t);
      const page = await local.get('/api/login/').expect(200);
      const csrf = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(page.text)![1];
      const form = await local.postForm('/api/login/', { csrfmiddlewaretoken: csrf, username: 'hal', password: 'Hal-pass-1' }, { Referer: `${t.url}/api/login/` });
      assert.equal(form.status, 200, form.text);
      assert.match(form.text, /Set up two-step verification/);
      assert.ok(!setCookies(form).some((c) => c.startsWith(`${t.config.sessionCookieName}=`)), 'no session before the set-up');
    } finally {
      await t.settings({ MFA_REQUIRED_FOR: 'none' });
    }
  });

  it('an SSO user is external for the tokens rule: no token while ALLOW_OAUTH2_FOR_EXTERNAL_USERS is false', async () => {
    const browser = new Browser(t);
    await assertLoggedIn(t, browser, await login(browser, 'sub-alice'));
    const csrf = browser.cookie('csrftoken')!;
    const refused = await browser.agent.post(browser.url('/api/v2/tokens/')).set('X-CSRFToken', csrf).send({}).expect(403);
    assert.match(refused.body.detail, /external authentication provider \(social\)/);
    await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
    try {
      await browser.agent.post(browser.url('/api/v2/tokens/')).set('X-CSRFToken', csrf).send({}).expect(201);
    } finally {
      await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
    }
  });

  it('refuses a callback whose state was changed (no start of this browser has it)', async () => {
    const browser = new Browser(t);
    const callback = new URL(await toCallback(browser, 'sub-alice'));
    callback.searchParams.set('state', 'x'.repeat(43));
    const before = await sessionCount(t);
    await assertRefused(t, browser, await browser.get(callback.href), 'no_transaction', before);
    assert.match(String(lastEvent(t, 'sso_login')?.detail), /no pending login for this state/);
  });

  it('refuses a callback replayed in another browser, and the same callback twice', async () => {
    const victim = new Browser(t);
    const callback = await toCallback(victim, 'sub-alice');
    const attacker = new Browser(t);
    const before = await sessionCount(t);
    await assertRefused(t, attacker, await attacker.get(callback), 'no_transaction', before);
    // The browser that started the login still completes it, then cannot use the answer again.
    await assertLoggedIn(t, victim, await victim.get(callback));
    const after = await sessionCount(t);
    await assertRefused(t, victim, await victim.get(callback), 'no_transaction', after);
  });

  it('refuses a callback that arrives without a login started (login CSRF)', async () => {
    const browser = new Browser(t);
    const before = await sessionCount(t);
    await assertRefused(t, browser, await browser.get('/sso/complete/oidc/?code=abc&state=def'), 'no_transaction', before);
    await assertRefused(t, browser, await browser.get('/sso/complete/oidc/'), 'no_transaction', before);
  });

  const idTokenCases: { name: string; tamper: NonNullable<OidcIdp['tamperIdToken']>; detail: RegExp }[] = [
    { name: 'a wrong nonce', tamper: (claims) => ({ claims: { ...claims, nonce: 'another-nonce' } }), detail: /"nonce"/ },
    { name: 'a wrong issuer', tamper: (claims) => ({ claims: { ...claims, iss: 'https://evil.example' } }), detail: /"iss"/ },
    { name: 'a wrong audience', tamper: (claims) => ({ claims: { ...claims, aud: 'another-client' } }), detail: /"aud"/ },
    {
      name: 'an expired ID token',
      tamper: (claims) => ({ claims: { ...claims, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 } }),
      detail: /"exp"/,
    },
    { name: 'a signature by another key', tamper: () => ({ key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey }), detail: /signature verification failed/ },
    { name: 'an unsigned ("alg": "none") ID token', tamper: (_c, header) => ({ key: 'none', header: { ...header, alg: 'none' } }), detail: /"alg"/ },
  ];
  for (const { name, tamper, detail } of idTokenCases) {
    it(`refuses ${name}`, async () => {
      const browser = new Browser(t);
      const callback = await toCallback(browser, 'sub-erin');
      idp.tamperIdToken = tamper;
      const users = await userCount(t);
      const before = await sessionCount(t);
      await assertRefused(t, browser, await browser.get(callback), 'invalid_response', before);
      assert.match(String(lastEvent(t, 'sso_login')?.detail), detail);
      assert.equal(await userCount(t), users, 'no user created');
    });
  }

  it('refuses a provider whose discovery document names another issuer', async () => {
    const browser = new Browser(t);
    const before = await sessionCount(t);
    await assertRefused(t, browser, await browser.get('/sso/login/oidc/?idp=mirror'), 'unavailable', before);
    assert.match(String(lastEvent(t, 'sso_login')?.detail), /issuer does not match/);
  });

  it('reports a login the user cancelled at the provider', async () => {
    const browser = new Browser(t);
    const start = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
    const callback = await idp.authenticate(browser, start.headers.location, 'sub-alice', { abort: true });
    assert.match(callback, /error=access_denied/);
    await assertRefused(t, browser, await browser.get(callback), 'denied', await sessionCount(t));
  });

  it('refuses an unknown provider and a deactivated user', async () => {
    const browser = new Browser(t);
    await assertRefused(t, browser, await browser.get('/sso/login/oidc/?idp=nope'), 'unknown_provider', await sessionCount(t));
    const me = await assertLoggedIn(t, browser, await login(browser, 'sub-frank'));
    await t.http().patch(`/api/v2/users/${me.id}/`).set('Authorization', basic('admin', ADMIN_PASSWORD)).send({ is_active: false }).expect(200);
    const again = new Browser(t);
    await assertRefused(t, again, await login(again, 'sub-frank'), 'inactive', await sessionCount(t));
  });

  it('never logs a code, a token, a nonce or the client secret', async () => {
    const browser = new Browser(t);
    const callback = new URL(await toCallback(browser, 'sub-alice'));
    await assertLoggedIn(t, browser, await browser.get(callback.href));
    const logs = t.logs.join('\n');
    for (const secret of [callback.searchParams.get('code')!, callback.searchParams.get('state')!, CLIENT_SECRET]) {
      assert.ok(!logs.includes(secret), 'secret value in the logs');
    }
    assert.doesNotMatch(logs, /eyJ[A-Za-z0-9_-]{10,}\.eyJ/, 'no JWT in the logs');
  });
});
