import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SessionsService } from '../src/sessions/sessions.service';
import { unlimited } from '../src/sessions/session-limit.interceptor';
import { UsersService } from '../src/users/users.service';
import { startTestApp, TestApp } from './support/test-app';
import { browserLogin } from './support/browser-login';
import { NO_REQUEST } from '../src/common/request-context';

const TOKENS_TAB = /role="tab"[^>]*>Tokens</;
const SESSIONS_TAB = /role="tab"[^>]*>Sessions</;
const SECURITY_TAB = /role="tab"[^>]*>Security</;

/** The frame of /accounts/profile/ as the server renders it (SPEC §13); the browser tests drive it. */
describe('profile page (GET /accounts/profile/)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1', { first_name: 'Alice', last_name: 'Liddell', email: 'alice@example.com' });
  });
  after(() => t.close());

  it('shows who you are, the Tokens, Sessions and Security tabs, Log out and the live-notice frame', async () => {
    const { agent, csrf } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const res = await agent.get('/accounts/profile/').expect(200);
    assert.match(res.headers['content-type'], /^text\/html; charset=utf-8/);
    assert.match(res.text, /<h1 id="identity-name">alice<\/h1>/);
    assert.match(res.text, /Alice Liddell/);
    assert.match(res.text, /alice@example\.com/);
    assert.match(res.text, TOKENS_TAB);
    assert.match(res.text, SESSIONS_TAB);
    assert.match(res.text, /role="tablist"/);
    assert.match(res.text, SECURITY_TAB);
    assert.equal(res.text.match(/role="tabpanel"/g)?.length, 3);
    // The Security tab's controls, by the names SPEC §16 gives them.
    assert.match(res.text, /<button type="button" id="totp-start" hidden>Set up authenticator app<\/button>/);
    assert.match(res.text, /<label for="totp-code">Authentication code<\/label>/);
    assert.match(res.text, /<button type="submit">Confirm<\/button>/);
    assert.match(res.text, /<label for="key-name">Key name<\/label>/);
    assert.match(res.text, /<button type="submit">Add security key<\/button>/);
    assert.match(res.text, /<script src="\/static\/webauthn.js" defer><\/script><script src="\/static\/security.js" defer><\/script><script src="\/static\/profile.js" defer>/);
    assert.match(res.text, /<button type="submit" class="secondary">Log out<\/button>/);
    assert.match(res.text, new RegExp(`name="csrfmiddlewaretoken" value="${csrf}"`));
    assert.match(res.text, /id="session-notice" class="notice" role="alert"/);
    assert.match(res.text, /role="alertdialog"[\s\S]*Stay signed in/);
    assert.match(res.text, /<label for="token-scope">Scope<\/label><select id="token-scope"[^>]*><option value="read">read<\/option><option value="write" selected>write<\/option>/);
    assert.match(res.text, /<label for="token-description">Description<\/label>/);
    assert.match(res.text, /<button type="submit">Create token<\/button>/);
    assert.match(res.text, /<th scope="col">Last used<\/th><th scope="col">Expires<\/th>/);
    assert.match(res.text, /data-session-timeout="1800"/);
    // SPEC §15: the Tokens tab marks tokens within TOKEN_EXPIRY_WARNING_SECONDS, measured on the server's clock.
    assert.match(res.text, /data-token-expiry-warning="604800" data-server-time="\d{4}-\d\d-\d\dT[\d:.]+Z"/);
  });

  it('the Log out button logs out (POST with the CSRF token) and lands on the login page', async () => {
    const { agent, csrf } = await browserLogin(t, 'alice', 'Alice-pass-1');
    await agent.get('/accounts/profile/').expect(200);
    const out = await agent.post('/api/logout/').set('Origin', t.url)
      .type('form').send({ csrfmiddlewaretoken: csrf, next: '/api/login/' }).expect(302);
    assert.equal(out.headers.location, '/api/login/');
    await agent.get('/accounts/profile/').expect(302);
  });

  it('a basic-auth caller gets the page without a session to watch', async () => {
    const res = await t.http().get('/accounts/profile/').auth('alice', 'Alice-pass-1').expect(200);
    assert.doesNotMatch(res.text, /data-session-timeout/);
  });

  it('hides the Tokens tab from external users unless ALLOW_OAUTH2_FOR_EXTERNAL_USERS', async () => {
    const user = await t.app.get(UsersService).create({ username: 'sso-bob' }, NO_REQUEST, { externalAccount: 'social' });
    const { token } = await t.app.get(SessionsService).create(user, unlimited('127.0.0.1'), 'test', NO_REQUEST);
    const cookie = `${t.config.sessionCookieName}=${token}`;
    const hidden = await t.http().get('/accounts/profile/').set('Cookie', cookie).expect(200);
    assert.doesNotMatch(hidden.text, TOKENS_TAB);
    assert.doesNotMatch(hidden.text, /Create token/);
    assert.doesNotMatch(hidden.text, /data-token-expiry-warning/);
    assert.match(hidden.text, SESSIONS_TAB);
    assert.match(hidden.text, /Single sign-on \(social\)/);
    assert.doesNotMatch(hidden.text, SECURITY_TAB, 'SSO users verify at their identity provider');
    await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
    try {
      const shown = await t.http().get('/accounts/profile/').set('Cookie', cookie).expect(200);
      assert.match(shown.text, TOKENS_TAB);
    } finally {
      await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
    }
  });

  it('redirects anonymous browsers to the login page, with the reason of an ended session', async () => {
    const anon = await t.http().get('/accounts/profile/').expect(302);
    assert.equal(anon.headers.location, '/api/login/?next=%2Faccounts%2Fprofile%2F');
    const { agent } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const [mine] = (await agent.get('/api/v2/me/sessions/').expect(200)).body.results;
    await t.app.get(SessionsService).end({ ids: [mine.id] }, 'revoked_by_admin', NO_REQUEST);
    const ended = await agent.get('/accounts/profile/').expect(302);
    assert.equal(ended.headers.location, '/api/login/?next=%2Faccounts%2Fprofile%2F&reason=revoked_by_admin');
  });
});

describe('profile page without OAuth 2 (SPEC §6)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { OAUTH2_PROVIDER_ENABLED: 'false' } });
    await t.createUser('alice', 'Alice-pass-1');
  });
  after(() => t.close());

  it('has no Tokens tab, only Sessions and Security', async () => {
    const { agent } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const res = await agent.get('/accounts/profile/').expect(200);
    assert.doesNotMatch(res.text, TOKENS_TAB);
    assert.doesNotMatch(res.text, /token-form/);
    assert.match(res.text, SESSIONS_TAB);
    assert.match(res.text, SECURITY_TAB);
    assert.equal(res.text.match(/role="tabpanel"/g)?.length, 2);
  });
});
