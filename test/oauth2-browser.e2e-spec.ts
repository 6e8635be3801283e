import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { Agent, browserLogin } from './support/browser-login';
import { hiddenFields, pkcePair, redirectParams, RegisteredApp, registerApp, tokenRequest } from './support/oauth2';

const REDIRECT = 'https://app.example.com/cb';
const bearer = (token: string) => `Bearer ${token}`;

/**
 * The flows as a browser drives them (issue 4, "Done when"): session login through /api/login/, the
 * consent page, the CSRF-protected consent form, the code read from the redirect and exchanged with
 * PKCE; the implicit flow reading the token from the fragment.
 */
describe('OAuth 2 in the browser, with a session login', () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);
  const secrets: string[] = [];
  let web: RegisteredApp;
  let implicit: RegisteredApp;
  let aliceId: number;

  const authorizeUrl = (params: Record<string, string>) => '/api/o/authorize/?' + new URLSearchParams(params).toString();

  /** Posts the consent form as the browser would: its hidden fields, the button pressed, a same-origin Referer. */
  const submitConsent = (agent: Agent, html: string, decision: 'authorize' | 'deny', referer: string) =>
    agent.post('/api/o/authorize/').type('form').set('Referer', referer).send({ ...hiddenFields(html), decision });

  before(async () => {
    t = await startTestApp();
    aliceId = await t.createUser('alice', 'Alice-pass-1');
    web = await registerApp(t, admin, { name: 'Web', client_type: 'confidential', authorization_grant_type: 'authorization-code', redirect_uris: REDIRECT });
    implicit = await registerApp(t, admin, { name: 'SPA', client_type: 'public', authorization_grant_type: 'implicit', redirect_uris: REDIRECT });
    secrets.push(web.clientSecret!);
  });
  after(() => t.close());

  it('authorization code with consent and PKCE: login redirect, session login, consent form, code, token', async () => {
    const { verifier, challenge } = pkcePair();
    const url = authorizeUrl({ response_type: 'code', client_id: web.clientId, redirect_uri: REDIRECT, scope: 'read', state: 'st-1', code_challenge: challenge, code_challenge_method: 'S256' });
    const agent = t.agent();
    // 1. Not logged in: sent to the login page, which will come back here.
    const anonymous = await agent.get(url).expect(302);
    const login = new URL(anonymous.headers.location, t.url);
    assert.equal(login.pathname, '/api/login/');
    assert.equal(login.searchParams.get('next'), url);
    // 2. The login form, as the seed describes it, with next from the redirect.
    const loggedIn = await browserLogin(t, 'alice', 'Alice-pass-1', { agent, next: login.searchParams.get('next')! });
    assert.equal(loggedIn.response.headers.location, url);
    // 3. Back at the authorization endpoint with the session: the consent page.
    const page = await agent.get(loggedIn.response.headers.location).expect(200);
    assert.match(page.text, />Authorize</);
    assert.match(page.text, />Deny</);
    assert.match(page.text, /alice/);
    // 4. Authorize: a code in the query of the redirect, with the state.
    const decision = await submitConsent(agent, page.text, 'authorize', `${t.url}${url}`).expect(302);
    const params = redirectParams(decision.headers.location);
    assert.equal(params.get('state'), 'st-1');
    const code = params.get('code')!;
    secrets.push(code);
    // 5. The client exchanges the code with its secret and the PKCE verifier.
    const token = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, { clientId: web.clientId, secret: web.clientSecret }).expect(200);
    secrets.push(token.body.access_token, token.body.refresh_token);
    assert.equal(token.body.scope, 'read');
    const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(token.body.access_token)).expect(200);
    assert.equal(me.body.results[0].username, 'alice');
    // The grant shows in the user's token list, where it can be revoked (ASVS 10.7.3).
    const listed = await agent.get(`/api/v2/users/${me.body.results[0].id}/authorized_tokens/`).expect(200);
    assert.equal(listed.body.results[0].application, web.id);
    await agent.delete(`/api/v2/tokens/${listed.body.results[0].id}/`).set('X-CSRFToken', loggedIn.csrf).expect(204);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token.body.access_token)).expect(401);
  });

  it('implicit grant: the token is read from the Location fragment', async () => {
    const { agent } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const url = authorizeUrl({ response_type: 'token', client_id: implicit.clientId, redirect_uri: REDIRECT, state: 'imp' });
    const page = await agent.get(url).expect(200);
    const res = await submitConsent(agent, page.text, 'authorize', `${t.url}${url}`).expect(302);
    const fragment = redirectParams(res.headers.location, 'fragment');
    const token = fragment.get('access_token')!;
    secrets.push(token);
    assert.equal(fragment.get('state'), 'imp');
    assert.equal(fragment.get('token_type'), 'Bearer');
    assert.equal(fragment.get('refresh_token'), null);
    const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(token)).expect(200);
    assert.equal(me.body.results[0].username, 'alice');
  });

  it('Deny sends access_denied back to the client', async () => {
    const { agent } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const url = authorizeUrl({ response_type: 'code', client_id: web.clientId, redirect_uri: REDIRECT, state: 'no' });
    const page = await agent.get(url).expect(200);
    const res = await submitConsent(agent, page.text, 'deny', `${t.url}${url}`).expect(302);
    const params = redirectParams(res.headers.location);
    assert.equal(params.get('error'), 'access_denied');
    assert.equal(params.get('state'), 'no');
  });

  it('refuses a consent POST from another site or without the CSRF token (login CSRF / clickjacking)', async () => {
    const { agent } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const url = authorizeUrl({ response_type: 'code', client_id: web.clientId, redirect_uri: REDIRECT });
    const page = await agent.get(url).expect(200);
    const foreign = await agent.post('/api/o/authorize/').type('form').set('Origin', 'https://evil.example')
      .send({ ...hiddenFields(page.text), decision: 'authorize' }).expect(403);
    assert.match(foreign.body.detail, /Origin checking failed/);
    const fields = hiddenFields(page.text);
    delete fields.csrfmiddlewaretoken;
    const missing = await agent.post('/api/o/authorize/').type('form').send({ ...fields, decision: 'authorize' }).expect(403);
    assert.match(missing.body.detail, /CSRF token missing/);
  });

  it('sends the browser to log in again after logout, and says why when its session was ended', async () => {
    const url = authorizeUrl({ response_type: 'code', client_id: web.clientId, redirect_uri: REDIRECT });
    const { agent } = await browserLogin(t, 'alice', 'Alice-pass-1');
    await agent.get('/api/logout/').expect(302);
    const afterLogout = new URL((await agent.get(url).expect(302)).headers.location, t.url);
    assert.equal(afterLogout.pathname, '/api/login/');
    assert.equal(afterLogout.searchParams.get('next'), url);
    const revoked = await browserLogin(t, 'alice', 'Alice-pass-1');
    await t.http().delete(`/api/v2/users/${aliceId}/sessions/`).set('Authorization', admin).expect(204);
    const ended = new URL((await revoked.agent.get(url).expect(302)).headers.location, t.url);
    assert.equal(ended.searchParams.get('next'), url);
    assert.equal(ended.searchParams.get('reason'), 'revoked_by_admin');
  });

  it('a session-authenticated API call can create a personal token (CSRF header required)', async () => {
    const { agent, csrf } = await browserLogin(t, 'alice', 'Alice-pass-1');
    await agent.post('/api/v2/tokens/').send({}).expect(403);
    const res = await agent.post('/api/v2/tokens/').set('X-CSRFToken', csrf).send({ description: 'from the browser' }).expect(201);
    secrets.push(res.body.token);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(res.body.token)).expect(200);
  });

  it('never logs a code, token or secret', () => {
    const joined = t.logs.join('\n');
    assert.ok(secrets.length >= 6);
    assert.deepEqual(secrets.filter((s) => s && joined.includes(s)), []);
  });
});
