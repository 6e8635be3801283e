import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { PendingStateService } from '../src/pending-state/pending-state.service';
import { SessionSweeper } from '../src/sessions/session-sweeper.service';
import { SessionWatcher } from '../src/sessions/session-watcher.service';
import { openEventStream } from './support/event-stream';
import { CLIENT_ID, CLIENT_SECRET, OidcAccount, OidcIdp } from './support/oidc-idp';
import { Browser } from './support/sso-browser';
import { assertLoggedIn, lastEvent, setCookies } from './support/sso-assertions';
import { startTestApp, TestApp } from './support/test-app';

const ACCOUNTS: Record<string, OidcAccount> = {
  'sub-alice': { preferred_username: 'alice' },
  'sub-bob': { preferred_username: 'bob' },
  'sub-carol': { preferred_username: 'carol' },
  'sub-dave': { preferred_username: 'dave' },
  'sub-erin': { preferred_username: 'erin' },
};

const BACKCHANNEL = '/sso/backchannel/oidc/?idp=corp';

describe('single logout with OpenID Connect against a real provider (SPEC §17)', () => {
  let t: TestApp;
  let idp: OidcIdp;
  let db: DataSource;
  const corp = () => ({ issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET });

  before(async () => {
    t = await startTestApp();
    db = t.app.get<DataSource>(getDataSourceToken());
    idp = await OidcIdp.start({
      redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`,
      accounts: ACCOUNTS,
      postLogoutRedirectUri: `${t.config.publicUrl}/sso/logout/oidc/`,
      // The provider's server posts here itself: the test app's real address (PUBLIC_URL names no port).
      backchannelLogoutUri: `${t.url}${BACKCHANNEL}`,
    });
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: corp() } });
  });
  after(async () => {
    await idp.close();
    await t.close();
  });

  /** A browser logged in through the provider as `account`, with its session cookie and the provider's session id. */
  async function login(account: string, browser = new Browser(t)) {
    const start = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
    await assertLoggedIn(t, browser, await browser.get(await idp.authenticate(browser, start.headers.location, account)));
    const cookie = `${t.config.sessionCookieName}=${browser.cookie(t.config.sessionCookieName)}`;
    const sessionId = (await browser.get('/api/v2/me/sessions/').expect(200)).body.results.find((s: { current: boolean }) => s.current).id as number;
    return { browser, cookie, sessionId, sid: String(idp.lastIdToken?.sid) };
  }

  /** What a request with this session cookie is told: 200, or the 401's reason. */
  async function state(cookie: string): Promise<string> {
    const res = await t.http().get('/api/v2/me/').set('Cookie', cookie);
    return res.status === 200 ? 'live' : `${res.status} ${res.body.reason}`;
  }

  const post = (token: string | undefined, path = BACKCHANNEL) => t.http().post(path).type('form').send(token === undefined ? {} : { logout_token: token });
  const jtiRows = async () => Number((await db.query("SELECT COUNT(*) AS n FROM pending_state WHERE state_key LIKE 'jti:%'"))[0].n);
  const recordOf = async (sessionId: number) =>
    ((await db.query('SELECT provider, subject, provider_session, data FROM sso_session WHERE session_id = ?', [sessionId])) as Record<string, string>[])[0];

  it('lists the back-channel logout URL to register at the provider', async () => {
    const res = await t.http().get('/api/v2/auth/').expect(200);
    assert.equal(res.body['oidc:corp'].backchannel_logout_url, `${t.config.publicUrl}/sso/backchannel/oidc/?idp=corp`);
  });

  it('records the provider session of a login beside the session: subject, sid, and the ID token encrypted', async () => {
    const { sessionId, sid } = await login('sub-alice');
    assert.match(sid, /.{10,}/, 'the provider puts sid in its ID tokens');
    const record = await recordOf(sessionId);
    assert.equal(record.provider, 'oidc:corp');
    assert.equal(record.subject, 'sub-alice');
    assert.equal(record.provider_session, sid);
    assert.doesNotMatch(record.data, /eyJ|sub-alice/, 'the ID token is stored encrypted');
  });

  it('logging out goes on to the provider (id_token_hint, client_id, post_logout_redirect_uri), which ends its session and comes back to the login page', async () => {
    const { browser, cookie, sessionId, sid } = await login('sub-alice');
    const res = await browser.get('/api/logout/').expect(302);
    const location = new URL(res.headers.location);
    assert.equal(location.origin + location.pathname, `${idp.issuer}/session/end`);
    assert.equal(location.searchParams.get('client_id'), CLIENT_ID);
    assert.equal(location.searchParams.get('post_logout_redirect_uri'), `${t.config.publicUrl}/sso/logout/oidc/`);
    const hint = JSON.parse(Buffer.from(location.searchParams.get('id_token_hint')!.split('.')[1], 'base64url').toString());
    assert.equal(hint.sid, sid);
    assert.equal(hint.sub, 'sub-alice');
    // Ended here first, before the browser left; its record is gone (the provider is told once).
    assert.ok(setCookies(res).some((c) => c.startsWith(`${t.config.sessionCookieName}=;`)), 'session cookie cleared');
    assert.equal(await state(cookie), '401 logged_out');
    assert.equal(await recordOf(sessionId), undefined);
    assert.equal(lastEvent(t, 'sso_logout')?.outcome, 'redirect');

    const delivered = idp.backchannel.length;
    const back = await idp.signOut(browser, location.href);
    assert.equal(back, `${t.config.publicUrl}/sso/logout/oidc/`);
    // The provider also told us by the back channel: valid, with nothing left to end.
    assert.deepEqual(idp.backchannel.slice(delivered), [{ ok: true, sid }]);
    const landing = await browser.get(back).expect(302);
    assert.equal(landing.headers.location, '/api/login/?reason=logged_out');
    const page = await browser.get(landing.headers.location).expect(200);
    assert.match(page.text, /role="alert">You logged out\.</);
    // The provider's session is over: a new login asks for the password again instead of coming straight back.
    const again = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
    let at = again.headers.location;
    for (let i = 0; i < 5 && at.startsWith(idp.issuer) && !at.includes('/interaction/'); i++) at = new URL((await browser.get(at)).headers.location, at).href;
    assert.match((await browser.get(at).expect(200)).text, /name="login"/, 'the provider shows its login form');
  });

  it('the profile page\'s logout (a POST with the CSRF token) goes on to the provider too', async () => {
    const { browser, cookie } = await login('sub-erin');
    const csrf = browser.cookie('csrftoken')!;
    const res = await browser.agent.post(browser.url('/api/logout/')).redirects(0).set('X-CSRFToken', csrf).set('Referer', `${t.url}/accounts/profile/`).type('form').send({});
    assert.equal(res.status, 302);
    assert.ok(res.headers.location.startsWith(`${idp.issuer}/session/end?`), res.headers.location);
    assert.equal(await state(cookie), '401 logged_out');
    await idp.signOut(browser, res.headers.location);
  });

  it('signing out at the provider ends the session here (back channel, idp_logout): the next request, the login page and the event stream say why', async () => {
    const { browser, cookie, sid } = await login('sub-alice');
    const stream = await openEventStream(t.url, '/api/v2/me/session/events/', { Cookie: cookie });
    try {
      await stream.next('session');
      const delivered = idp.backchannel.length;
      await idp.signOut(browser);
      assert.deepEqual(idp.backchannel.slice(delivered), [{ ok: true, sid }]);
      const refused = await t.http().get('/api/v2/me/').set('Cookie', cookie).expect(401);
      assert.equal(refused.body.reason, 'idp_logout');
      assert.match(refused.body.detail, /identity provider/);
      const page = await t.http().get('/api/login/').set('Cookie', cookie).expect(200);
      assert.match(page.text, /role="alert">You were logged out by your identity provider/);
      await t.app.get(SessionWatcher).tick();
      const ended = await stream.next('ended');
      assert.equal((ended.data as { reason: string }).reason, 'idp_logout');
      assert.match((ended.data as { detail: string }).detail, /identity provider/);
    } finally {
      stream.close();
    }
    const event = lastEvent(t, 'sso_logout');
    assert.deepEqual([event?.binding, event?.outcome, event?.by, event?.count], ['backchannel', 'ended', 'sid', 1]);
  });

  it('a logout token with a sid ends that provider session only; one with only sub ends every session of the subject from that provider', async () => {
    const first = await login('sub-bob');
    const second = await login('sub-bob');
    const other = await login('sub-carol');
    assert.notEqual(first.sid, second.sid, 'two browsers, two provider sessions');
    await post(idp.logoutToken({ sid: first.sid })).expect(200);
    assert.deepEqual([await state(first.cookie), await state(second.cookie), await state(other.cookie)], ['401 idp_logout', 'live', 'live']);
    await post(idp.logoutToken({ sid: 'a-sid-nobody-has', sub: 'sub-bob' })).expect(200);
    assert.equal(await state(second.cookie), 'live', 'a sid names a session, not the subject');
    const third = await login('sub-bob');
    await post(idp.logoutToken({ sub: 'sub-bob', sid: undefined })).expect(200);
    assert.deepEqual([await state(second.cookie), await state(third.cookie), await state(other.cookie)], ['401 idp_logout', '401 idp_logout', 'live']);
  });

  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const now = () => Math.floor(Date.now() / 1000);
  const refusals: { name: string; token: (sid: string) => string | undefined; reason: RegExp; path?: string }[] = [
    { name: 'an unsigned ("alg": "none") token', token: (sid) => idp.logoutToken({ sid }, { key: 'none' }), reason: /ERR_JOSE_ALG_NOT_ALLOWED|alg/ },
    { name: 'a token signed by a foreign key', token: (sid) => idp.logoutToken({ sid }, { key: otherKey }), reason: /signature verification failed/ },
    { name: 'a wrong issuer', token: (sid) => idp.logoutToken({ sid, iss: 'https://evil.example' }), reason: /claim "iss"/ },
    { name: 'a wrong audience', token: (sid) => idp.logoutToken({ sid, aud: 'another-client' }), reason: /claim "aud"/ },
    { name: 'a token without the events claim', token: (sid) => idp.logoutToken({ sid, events: undefined }), reason: /no back-channel logout event/ },
    { name: 'events without the back-channel member', token: (sid) => idp.logoutToken({ sid, events: { 'https://other.example/event': {} } }), reason: /no back-channel logout event/ },
    { name: 'a nonce (an ID token passed off as a logout token)', token: (sid) => idp.logoutToken({ sid, nonce: 'n-0S6_WzA2Mj' }), reason: /nonce/ },
    { name: 'a stale iat', token: (sid) => idp.logoutToken({ sid, iat: now() - 600, exp: now() + 60 }), reason: /claim "iat"/ },
    { name: 'an iat in the future', token: (sid) => idp.logoutToken({ sid, iat: now() + 600, exp: now() + 900 }), reason: /claim "iat"/ },
    { name: 'an expired token', token: (sid) => idp.logoutToken({ sid, iat: now() - 200, exp: now() - 100 }), reason: /claim "exp"/ },
    { name: 'no jti', token: (sid) => idp.logoutToken({ sid, jti: undefined }), reason: /claim "jti"/ },
    { name: 'neither sid nor sub', token: () => idp.logoutToken({}), reason: /neither sid nor sub/ },
    { name: 'a token that is not a JWT', token: () => 'not-a-jwt', reason: /ERR_JWS_INVALID|Invalid Compact JWS/ },
    { name: 'no logout_token at all', token: () => undefined, reason: /no logout_token/ },
    { name: 'an unknown provider', token: (sid) => idp.logoutToken({ sid }), reason: /unknown_provider/, path: '/sso/backchannel/oidc/?idp=nope' },
  ];
  for (const { name, token, reason, path } of refusals) {
    it(`refuses ${name} with a 400, ending nothing and keeping no jti`, async () => {
      const { cookie, sid } = await login('sub-dave');
      const rows = await jtiRows();
      const res = await post(token(sid), path).expect(400);
      assert.equal(res.body.error, 'invalid_request');
      assert.match(res.body.error_description, reason);
      assert.equal(await state(cookie), 'live');
      assert.equal(await jtiRows(), rows, 'an unverified token adds no row');
      assert.equal(lastEvent(t, 'sso_logout')?.outcome, 'refused');
    });
  }

  it('refuses a replayed token (its jti, shared by every node), ending nothing the second time', async () => {
    const first = await login('sub-dave');
    const token = idp.logoutToken({ sub: 'sub-dave', sid: undefined });
    await post(token).expect(200);
    assert.equal(await state(first.cookie), '401 idp_logout');
    const again = await login('sub-dave');
    const res = await post(token).expect(400);
    assert.match(res.body.error_description, /already used/);
    assert.equal(await state(again.cookie), 'live', 'the new session survives the replay');
  });

  it('never logs a logout token or an ID token', async () => {
    const { browser } = await login('sub-erin');
    await browser.get('/api/logout/').expect(302);
    await post(idp.logoutToken({ sub: 'sub-erin', sid: undefined })).expect(200);
    assert.doesNotMatch(t.logs.join('\n'), /eyJ[A-Za-z0-9_-]{10,}\.eyJ/, 'no JWT in the logs');
  });

  it('sweeps replay-cache entries once they expire, and a provider session record with its session', async () => {
    const { browser, sessionId } = await login('sub-erin');
    await post(idp.logoutToken({ sub: 'sub-erin', sid: undefined })).expect(200);
    assert.ok((await jtiRows()) > 0);
    assert.ok(await recordOf(sessionId), 'the record stays while the ended session keeps its reason');
    t.clock.advance(25 * 3600);
    try {
      await t.app.get(PendingStateService).sweep();
      assert.equal(await jtiRows(), 0);
      await t.app.get(SessionSweeper).sweepAll();
      assert.equal(await recordOf(sessionId), undefined, 'deleted with its session (the foreign key cascades)');
    } finally {
      t.clock.advance(-25 * 3600);
    }
    await browser.get('/api/v2/me/').expect(401);
  });

  it('a session whose provider was removed from the settings logs out locally only', async () => {
    const { browser, cookie } = await login('sub-alice');
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: {} });
    try {
      const res = await browser.get('/api/logout/?next=/api/v2/').expect(302);
      assert.equal(res.headers.location, '/api/v2/');
      assert.equal(await state(cookie), '401 logged_out');
      assert.equal((await post(idp.logoutToken({ sub: 'sub-alice', sid: undefined })).expect(400)).body.error, 'invalid_request');
    } finally {
      await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: corp() } });
    }
  });
});
