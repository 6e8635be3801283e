import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type request from 'supertest';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { countEvents } from './support/log-events';
import {
  csrfFromPage,
  hiddenFields,
  pkcePair,
  redirectParams,
  RegisteredApp,
  registerApp,
  RFC7636_CHALLENGE,
  RFC7636_VERIFIER,
  tokenRequest,
} from './support/oauth2';

type Agent = ReturnType<typeof request.agent>;
const REDIRECT = 'https://app.example.com/cb';
const bearer = (token: string) => `Bearer ${token}`;

describe('/api/o/authorize/: authorization code and implicit grants (RFC 6749 §4.1, §4.2, RFC 7636)', () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);
  const alice = basic('alice', 'Alice-pass-1');
  const secrets: string[] = [];
  let web: RegisteredApp; // confidential, authorization-code
  let spa: RegisteredApp; // public, authorization-code (PKCE required)
  let implicit: RegisteredApp;
  let trusted: RegisteredApp; // skip_authorization
  let other: RegisteredApp;

  const query = (params: Record<string, string>) => '/api/o/authorize/?' + new URLSearchParams(params).toString();

  /** GET the authorization page as alice (basic credentials stand in for a browser session here). */
  async function consentPage(agent: Agent, params: Record<string, string>) {
    const res = await agent.get(query(params)).set('Authorization', alice);
    assert.equal(res.status, 200, res.text);
    return res;
  }

  /** Posts the consent form back exactly as a browser would, with its CSRF token. */
  async function decide(agent: Agent, html: string, decision: 'authorize' | 'deny') {
    return agent.post('/api/o/authorize/').type('form').set('Authorization', alice).send({ ...hiddenFields(html), decision });
  }

  /** The whole browser part of the code flow: consent, then the code from the redirect. */
  async function codeFor(app: RegisteredApp, extra: Record<string, string> = {}): Promise<string> {
    const agent = t.agent();
    const page = await consentPage(agent, { response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT, state: 's1', ...extra });
    const res = await decide(agent, page.text, 'authorize');
    assert.equal(res.status, 302, res.text);
    const params = redirectParams(res.headers.location);
    assert.equal(params.get('state'), 's1');
    const code = params.get('code');
    assert.match(code ?? '', /^svcc_[0-9A-Za-z]{43}$/);
    secrets.push(code!);
    return code!;
  }

  async function redeem(app: RegisteredApp, code: string, extra: Record<string, string> = {}) {
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...extra }, { clientId: app.clientId, secret: app.clientSecret });
    if (res.status === 200) secrets.push(res.body.access_token, res.body.refresh_token);
    return res;
  }

  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1');
    const codeApp = { client_type: 'confidential', authorization_grant_type: 'authorization-code', redirect_uris: `${REDIRECT} https://app.example.com/second` };
    web = await registerApp(t, admin, { name: 'Web <App>', ...codeApp });
    other = await registerApp(t, admin, { name: 'Other', ...codeApp });
    spa = await registerApp(t, admin, { name: 'SPA', client_type: 'public', authorization_grant_type: 'authorization-code', redirect_uris: REDIRECT });
    implicit = await registerApp(t, admin, { name: 'Implicit', client_type: 'public', authorization_grant_type: 'implicit', redirect_uris: REDIRECT });
    trusted = await registerApp(t, admin, { name: 'Trusted', ...codeApp, skip_authorization: true });
    secrets.push(web.clientSecret!, other.clientSecret!, trusted.clientSecret!);
  });
  after(() => t.close());

  it('sends an anonymous browser to the login page with the full authorize URL as next', async () => {
    const url = query({ response_type: 'code', client_id: web.clientId, redirect_uri: REDIRECT, state: 'a b' });
    const res = await t.http().get(url).expect(302);
    assert.equal(res.headers.location, `/api/login/?next=${encodeURIComponent(url)}`);
  });

  it('shows a consent page: a CSRF-protected POST form with Authorize and Deny, not frameable', async () => {
    const page = await consentPage(t.agent(), { response_type: 'code', client_id: web.clientId, redirect_uri: REDIRECT, scope: 'read' });
    assert.match(page.headers['content-type'], /^text\/html; charset=utf-8/);
    assert.match(page.text, /<form method="post" action="\/api\/o\/authorize\/">/);
    assert.match(page.text, /<button type="submit" name="decision" value="authorize">Authorize<\/button>/);
    assert.match(page.text, /<button type="submit" name="decision" value="deny">Deny<\/button>/);
    assert.ok(page.text.includes('Web &lt;App&gt;'), 'the application name, escaped');
    assert.ok(!page.text.includes('Web <App>'));
    assert.ok(csrfFromPage(page.text));
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.match(page.headers['content-security-policy'], /frame-ancestors 'none'/);
    assert.equal(page.headers['referrer-policy'], 'same-origin');
  });

  it('runs the code flow end to end: consent, code in the query with state, exchange with PKCE S256 (RFC 7636 vector)', async () => {
    const code = await codeFor(web, { code_challenge: RFC7636_CHALLENGE, code_challenge_method: 'S256' });
    const res = await redeem(web, code, { code_verifier: RFC7636_VERIFIER });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.scope, 'write');
    assert.match(res.body.refresh_token, /^svcr_/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(res.body.access_token)).expect(200);
    assert.equal(me.body.results[0].username, 'alice');
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: res.body.refresh_token }, { clientId: web.clientId, secret: web.clientSecret }).expect(200);
    secrets.push(refreshed.body.access_token, refreshed.body.refresh_token);
  });

  it('refuses consent without the CSRF token, and never grants by GET', async () => {
    const agent = t.agent();
    const page = await consentPage(agent, { response_type: 'code', client_id: web.clientId, redirect_uri: REDIRECT });
    const fields = hiddenFields(page.text);
    delete fields.csrfmiddlewaretoken;
    const res = await agent.post('/api/o/authorize/').type('form').set('Authorization', alice).send({ ...fields, decision: 'authorize' }).expect(403);
    assert.match(res.body.detail, /^CSRF Failed/);
    const fresh = t.agent();
    const forged = await fresh.post('/api/o/authorize/').type('form').set('Authorization', alice)
      .send({ ...hiddenFields(page.text), decision: 'authorize' }).expect(403);
    assert.match(forged.body.detail, /CSRF cookie not set/);
    const byGet = await agent.get(query({ response_type: 'code', client_id: web.clientId, redirect_uri: REDIRECT, decision: 'authorize' })).set('Authorization', alice).expect(200);
    assert.equal(byGet.headers.location, undefined);
  });

  it('redirects with access_denied and the state when the user clicks Deny', async () => {
    const agent = t.agent();
    const page = await consentPage(agent, { response_type: 'code', client_id: web.clientId, redirect_uri: REDIRECT, state: 'x/y=z' });
    const res = await decide(agent, page.text, 'deny');
    assert.equal(res.status, 302);
    const params = redirectParams(res.headers.location);
    assert.equal(params.get('error'), 'access_denied');
    assert.equal(params.get('state'), 'x/y=z');
    assert.equal(params.get('code'), null);
  });

  it('skips the consent page for applications with skip_authorization', async () => {
    const res = await t.http().get(query({ response_type: 'code', client_id: trusted.clientId, redirect_uri: REDIRECT, state: 'k' })).set('Authorization', alice).expect(302);
    const params = redirectParams(res.headers.location);
    assert.equal(params.get('state'), 'k');
    const code = params.get('code')!;
    secrets.push(code);
    await redeem(trusted, code).then((r) => assert.equal(r.status, 200, JSON.stringify(r.body)));
  });

  it('shows an error page, never a redirect, for each mutation of a registered redirect URI (exact match)', async () => {
    const mutations = [
      'https://app.example.com/cb/',
      'https://app.example.com/cb?x=1',
      'https://app.example.com/cb/..',
      'https://app.example.com/CB',
      'https://app.example.com/cbx',
      'http://app.example.com/cb',
      'https://app.example.com@evil.example/cb',
    ];
    for (const redirectUri of mutations) {
      const res = await t.http().get(query({ response_type: 'code', client_id: web.clientId, redirect_uri: redirectUri })).set('Authorization', alice);
      assert.equal(res.status, 400, redirectUri);
      assert.equal(res.headers.location, undefined, redirectUri);
      assert.match(res.text, /role="alert"/);
    }
    const untrusted: Record<string, string>[] = [{ response_type: 'code' }, { response_type: 'code', client_id: 'unknown-client' }, { response_type: 'code', client_id: web.clientId }];
    for (const params of untrusted) {
      const res = await t.http().get(query(params)).set('Authorization', alice);
      assert.equal(res.status, 400, JSON.stringify(params));
      assert.equal(res.headers.location, undefined);
    }
    // A single registered URI may be left out; it is then the one used.
    const only = await t.http().get(query({ response_type: 'code', client_id: spa.clientId, code_challenge: RFC7636_CHALLENGE, code_challenge_method: 'S256' })).set('Authorization', alice).expect(200);
    assert.match(only.text, /Authorize/);
  });

  it('redirects every other error to the client with error and state (query for code, fragment for implicit)', async () => {
    const cases: [Record<string, string>, string, 'query' | 'fragment'][] = [
      [{ client_id: web.clientId, response_type: 'id_token' }, 'unsupported_response_type', 'query'],
      [{ client_id: web.clientId }, 'invalid_request', 'query'],
      [{ client_id: web.clientId, response_type: 'code', scope: 'admin' }, 'invalid_scope', 'query'],
      [{ client_id: web.clientId, response_type: 'token' }, 'unauthorized_client', 'fragment'],
      [{ client_id: implicit.clientId, response_type: 'code' }, 'unauthorized_client', 'query'],
      [{ client_id: implicit.clientId, response_type: 'token', scope: 'read read' }, 'invalid_scope', 'fragment'],
      [{ client_id: spa.clientId, response_type: 'code' }, 'invalid_request', 'query'],
      [{ client_id: spa.clientId, response_type: 'code', code_challenge: RFC7636_CHALLENGE, code_challenge_method: 'plain' }, 'invalid_request', 'query'],
      [{ client_id: spa.clientId, response_type: 'code', code_challenge: RFC7636_CHALLENGE }, 'invalid_request', 'query'],
      [{ client_id: spa.clientId, response_type: 'code', code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request', 'query'],
    ];
    for (const [params, error, part] of cases) {
      const res = await t.http().get(query({ redirect_uri: REDIRECT, state: 'st', ...params })).set('Authorization', alice);
      assert.equal(res.status, 302, `${JSON.stringify(params)}: ${res.status} ${res.text}`);
      assert.ok(res.headers.location.startsWith(REDIRECT), res.headers.location);
      const got = redirectParams(res.headers.location, part);
      assert.equal(got.get('error'), error, JSON.stringify(params));
      assert.equal(got.get('state'), 'st');
      assert.ok(got.get('error_description'));
    }
  });

  it('makes codes single-use: a second redemption is invalid_grant and revokes what the first one issued', async () => {
    const code = await codeFor(web);
    const first = await redeem(web, code);
    assert.equal(first.status, 200);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(first.body.access_token)).expect(200);
    const second = await redeem(web, code);
    assert.equal(second.status, 400);
    assert.equal(second.body.error, 'invalid_grant');
    await t.http().get('/api/v2/me/').set('Authorization', bearer(first.body.access_token)).expect(401);
    const refresh = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, { clientId: web.clientId, secret: web.clientSecret });
    assert.equal(refresh.body.error, 'invalid_grant');
    assert.ok(t.logs.some((l) => l.includes('"event":"authorization_code_replayed"')));
  });

  it('lets exactly one of three racing redemptions of one code win; the others are refused as a replay', async () => {
    const code = await codeFor(web);
    const logged = t.logs.length;
    const results = await Promise.all([0, 1, 2].map(() => redeem(web, code)));
    // One event per presentation: the compare-and-swap's winner redeemed, the losers replayed (a lock that
    // refused every racer would show no redemption, a broken one two).
    assert.deepEqual(countEvents(t.logs.slice(logged).join('\n'), ['authorization_code_redeemed', 'authorization_code_replayed']), {
      authorization_code_redeemed: 1,
      authorization_code_replayed: 2,
    });
    for (const r of results.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error, 'invalid_grant');
    }
    // The winner is answered with its tokens unless a replay was marked before it saved them; either way the
    // replays revoke what the code issued (RFC 6749 §4.1.2), so no token from it is left alive.
    const ok = results.filter((r) => r.status === 200);
    assert.ok(ok.length === 1 || results.every((r) => r.status === 400), results.map((r) => r.status).join(' '));
    for (const r of ok) await t.http().get('/api/v2/me/').set('Authorization', bearer(r.body.access_token)).expect(401);
  });

  it('expires codes after AUTHORIZATION_CODE_EXPIRE_SECONDS', async () => {
    const code = await codeFor(web);
    t.clock.advance(601);
    const res = await redeem(web, code);
    assert.equal(res.body.error, 'invalid_grant');
    assert.match(res.body.error_description, /expired/);
  });

  it('checks PKCE: wrong or missing verifier and downgrade attempts are refused, and consume the code', async () => {
    const pair = pkcePair();
    const wrong = await codeFor(web, { code_challenge: pair.challenge, code_challenge_method: 'S256' });
    assert.equal((await redeem(web, wrong, { code_verifier: pkcePair().verifier })).body.error, 'invalid_grant');
    assert.equal((await redeem(web, wrong, { code_verifier: pair.verifier })).body.error, 'invalid_grant', 'the code is spent');
    const missing = await codeFor(web, { code_challenge: pair.challenge, code_challenge_method: 'S256' });
    assert.equal((await redeem(web, missing)).body.error, 'invalid_grant');
    const noChallenge = await codeFor(web);
    assert.equal((await redeem(web, noChallenge, { code_verifier: pair.verifier })).body.error, 'invalid_grant', 'verifier for a code issued without challenge');
    const malformed = await codeFor(web, { code_challenge: pair.challenge, code_challenge_method: 'S256' });
    assert.equal((await redeem(web, malformed, { code_verifier: 'too-short' })).body.error, 'invalid_request');
  });

  it('runs the public-client flow with PKCE and no secret', async () => {
    const pair = pkcePair();
    const code = await codeFor(spa, { code_challenge: pair.challenge, code_challenge_method: 'S256' });
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: pair.verifier }, { clientId: spa.clientId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    secrets.push(res.body.access_token, res.body.refresh_token);
  });

  it('binds a code to its client and redirect URI', async () => {
    const code = await codeFor(web);
    const stolen = await redeem(other, code);
    assert.equal(stolen.body.error, 'invalid_grant');
    const otherUri = await codeFor(web);
    assert.equal((await redeem(web, otherUri, { redirect_uri: 'https://app.example.com/second' })).body.error, 'invalid_grant');
    const omitted = await codeFor(web);
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code: omitted }, { clientId: web.clientId, secret: web.clientSecret });
    assert.equal(res.body.error, 'invalid_grant');
  });

  it('runs the implicit flow: the token in the fragment with state, never a refresh token', async () => {
    const agent = t.agent();
    const page = await consentPage(agent, { response_type: 'token', client_id: implicit.clientId, redirect_uri: REDIRECT, scope: 'read', state: 'imp' });
    const res = await decide(agent, page.text, 'authorize');
    assert.equal(res.status, 302);
    const url = new URL(res.headers.location);
    assert.equal(url.origin + url.pathname, REDIRECT);
    assert.equal(url.search, '', 'nothing in the query');
    const fragment = redirectParams(res.headers.location, 'fragment');
    const token = fragment.get('access_token')!;
    secrets.push(token);
    assert.match(token, /^svca_/);
    assert.equal(fragment.get('token_type'), 'Bearer');
    assert.equal(fragment.get('expires_in'), '31536000000');
    assert.equal(fragment.get('scope'), 'read');
    assert.equal(fragment.get('state'), 'imp');
    assert.equal(fragment.get('refresh_token'), null);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token)).expect(200);
    await t.http().post('/api/v2/tokens/').set('Authorization', bearer(token)).send({}).expect(403);
  });

  it('never logs a code, token or secret', () => {
    const joined = t.logs.join('\n');
    assert.ok(secrets.length >= 20);
    assert.deepEqual(secrets.filter((s) => s && joined.includes(s)), []);
    assert.ok(!/svc[pacrs]_[0-9A-Za-z]{43}/.test(joined));
  });
});
