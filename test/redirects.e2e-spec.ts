import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generate } from 'otplib';
import { cookieValue } from './support/browser-login';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';
import { Browser } from './support/sso-browser';
import { basic, startTestApp, TestApp } from './support/test-app';

/**
 * Issue 40, finding 5: a `next` of our own origin whose path starts with `//` (`http://svc//evil.example/`)
 * was reduced to that path and left as `Location: //evil.example/…`. Every route that redirects to a `next`
 * must send the browser to our own origin (SPEC §2): after the form login, after the second step, after a
 * single sign-on, and on logout (GET and POST, anonymous or not).
 */
describe('a redirect built from next stays on our own origin (issue 40)', () => {
  let t: TestApp;
  let idp: OidcIdp;
  let own = '';
  let totpSecret = '';

  /** Attacks that passed before (the first two), and the classic ones that must keep failing. */
  const attacks = () => [
    `${own}//evil.example/x`,
    `${own}/.//evil.example/x`,
    `${own}///evil.example/x`,
    '//evil.example/x',
    '/\\evil.example/x',
    '/\t/evil.example/x',
    'http:evil.example',
    'https://evil.example/',
  ];

  /** Where a browser on our login page goes with this Location. */
  const origin = (location: string) => new URL(location, `${own}/api/login/`).origin;

  before(async () => {
    t = await startTestApp();
    own = new URL(t.config.publicUrl).origin;
    idp = await OidcIdp.start({ redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`, accounts: { 'sub-sam': { preferred_username: 'sam' } } });
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } } });
    await t.createUser('rita', 'Strong-pass-1');
    await t.createUser('otto', 'Strong-pass-1');
    const otto = basic('otto', 'Strong-pass-1');
    totpSecret = (await t.http().post('/api/v2/me/mfa/totp/').set('Authorization', otto).send({}).expect(201)).body.secret;
    const confirm = await generate({ secret: totpSecret, epoch: Math.floor(t.clock.now().getTime() / 1000) });
    await t.http().post('/api/v2/me/mfa/totp/confirm/').set('Authorization', otto).send({ code: confirm }).expect(200);
  });
  after(async () => {
    await idp?.close();
    await t?.close();
  });

  /** The login form, posted with `next`; the response of the password step. */
  async function formLogin(username: string, next: string) {
    const agent = t.agent();
    const page = await agent.get('/api/login/').expect(200);
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const res = await agent.post('/api/login/').set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form')
      .send({ username, password: 'Strong-pass-1', next });
    return { agent, csrf, res };
  }

  it('after the form login', async () => {
    for (const next of attacks()) {
      const { res } = await formLogin('rita', next);
      assert.equal(res.status, 302, next);
      assert.equal(origin(res.headers.location), own, `${next} -> ${res.headers.location}`);
      assert.doesNotMatch(res.headers.location, /^\/[/\\]/, next);
    }
    // Our own URL is used whole; a local path as it is.
    assert.equal((await formLogin('rita', `${own}//evil.example/x`)).res.headers.location, `${own}//evil.example/x`);
    assert.equal((await formLogin('rita', '/api/v2/me/?x=1')).res.headers.location, '/api/v2/me/?x=1');
  });

  it('after the second step', async () => {
    for (const next of [...attacks(), '/api/v2/me/']) {
      const { agent, csrf, res } = await formLogin('otto', next);
      assert.equal(res.status, 200, 'the second page');
      t.clock.advance(30); // a fresh code for each login (each is used once)
      const code = await generate({ secret: totpSecret, epoch: Math.floor(t.clock.now().getTime() / 1000) });
      const done = await agent.post('/api/login/mfa/').set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form').send({ code });
      assert.equal(done.status, 302, `${next}: ${done.text.slice(0, 200)}`);
      assert.equal(origin(done.headers.location), own, `${next} -> ${done.headers.location}`);
      if (next === '/api/v2/me/') assert.equal(done.headers.location, '/api/v2/me/', 'the honest next is followed');
    }
  });

  it('after a single sign-on', async () => {
    for (const next of [...attacks(), '/api/v2/me/']) {
      const browser = new Browser(t);
      const start = await browser.get(`/sso/login/oidc/?idp=corp&next=${encodeURIComponent(next)}`).expect(302);
      const done = await browser.get(await idp.authenticate(browser, start.headers.location, 'sub-sam'));
      assert.equal(done.status, 302, next);
      assert.ok(cookieValue(done.headers['set-cookie'], t.config.sessionCookieName), `${next}: logged in`);
      assert.equal(origin(done.headers.location), own, `${next} -> ${done.headers.location}`);
      if (next === '/api/v2/me/') assert.equal(done.headers.location, '/api/v2/me/', 'the honest next is followed');
    }
  });

  it('on logout, anonymous or not, GET or POST', async () => {
    for (const next of attacks()) {
      const anonymous = await t.http().get(`/api/logout/?next=${encodeURIComponent(next)}`).expect(302);
      assert.equal(origin(anonymous.headers.location), own, `${next} -> ${anonymous.headers.location}`);
      const posted = await t.http().post('/api/logout/').type('form').send({ next }).expect(302);
      assert.equal(origin(posted.headers.location), own, `${next} -> ${posted.headers.location}`);
      const { agent, res } = await formLogin('rita', '/');
      const csrf = cookieValue(res.headers['set-cookie'], 'csrftoken')!;
      const loggedIn = await agent.post(`/api/logout/?next=${encodeURIComponent(next)}`).set('X-CSRFToken', csrf).set('Referer', `${t.url}/`).expect(302);
      assert.equal(origin(loggedIn.headers.location), own, `${next} -> ${loggedIn.headers.location}`);
    }
    await t.http().get('/api/logout/?next=/api/login/').expect(302).expect('Location', '/api/login/');
    await t.http().get(`/api/logout/?next=${encodeURIComponent(`${own}/api/login/`)}`).expect(302).expect('Location', `${own}/api/login/`);
  });
});
