import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cookieValue } from './support/browser-login';
import { registerApp, tokenRequest } from './support/oauth2';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

/**
 * The login throttle against a forged `X-Forwarded-For` (SPEC §0 TRUSTED_PROXIES, §12; issue 40): a peer
 * that TRUSTED_PROXIES does not name cannot pick the address it is counted under, so a new spoofed address
 * per attempt does not buy new guesses on any password path (form, basic, password grant); the failures
 * count against the peer, which the log names. The control: behind a trusted proxy the header is believed,
 * and another client address is not throttled by the first one's failures.
 */
async function formLogin(t: TestApp, username: string, password: string, forwardedFor: string) {
  const agent = t.agent();
  const page = await agent.get('/api/login/').set('X-Forwarded-For', forwardedFor);
  const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
  return agent.post('/api/login/').set('X-Forwarded-For', forwardedFor).set('X-CSRFToken', csrf).type('form').send({ username, password });
}

describe('a spoofed X-Forwarded-For from an untrusted peer (SPEC §12)', () => {
  let t: TestApp;
  let clientId: string;
  before(async () => {
    t = await startTestApp();
    await t.createUser('ivy', 'Ivy-pass-1');
    clientId = (await registerApp(t, basic('admin', ADMIN_PASSWORD), { client_type: 'public', authorization_grant_type: 'password' })).clientId;
  });
  after(() => t?.close());

  it('counts every failure against the peer, whatever address each attempt claims, on the form, basic and the password grant', async () => {
    const logged = t.logs.length;
    // Five failures, each claiming a new address, spread over the three password paths.
    assert.equal((await formLogin(t, 'ivy', 'wrong', '198.51.100.1')).status, 401);
    assert.equal((await formLogin(t, 'ivy', 'wrong', '198.51.100.2')).status, 401);
    await t.http().get('/api/v2/me/').set('X-Forwarded-For', '198.51.100.3').set('Authorization', basic('ivy', 'wrong')).expect(401);
    await t.http().get('/api/v2/me/').set('X-Forwarded-For', '198.51.100.4, 10.0.0.1').set('Authorization', basic('ivy', 'wrong')).expect(401);
    const grant = await tokenRequest(t, { grant_type: 'password', username: 'ivy', password: 'wrong' }, { clientId }).set('X-Forwarded-For', '198.51.100.5');
    assert.equal(grant.status, 400, grant.text);
    // Each was counted under the peer's own address, never a claimed one.
    const failures = t.logs.slice(logged).filter((line) => line.includes('"event":"login_failed"'));
    assert.equal(failures.length, 5, failures.join('\n'));
    for (const line of failures) assert.match(line, /"client_ip":"(127\.0\.0\.1|::ffff:127\.0\.0\.1|::1)"/);

    // A sixth address claimed, with the right password: still the same pair, so 429 on every path.
    const form = await formLogin(t, 'ivy', 'Ivy-pass-1', '198.51.100.6');
    assert.equal(form.status, 429, form.text);
    assert.equal(cookieValue(form.headers['set-cookie'], t.config.sessionCookieName), undefined);
    const viaBasic = await t.http().get('/api/v2/me/').set('X-Forwarded-For', '198.51.100.7').set('Authorization', basic('ivy', 'Ivy-pass-1'));
    assert.equal(viaBasic.status, 429, viaBasic.text);
    assert.ok(Number(viaBasic.headers['retry-after']) > 0);
    const viaGrant = await tokenRequest(t, { grant_type: 'password', username: 'ivy', password: 'Ivy-pass-1' }, { clientId }).set('X-Forwarded-For', '198.51.100.8');
    assert.equal(viaGrant.status, 429, viaGrant.text);
    assert.equal(viaGrant.body.access_token, undefined);

    // The window passing lets the right password in again, with or without the header.
    t.clock.advance(901);
    assert.equal((await formLogin(t, 'ivy', 'Ivy-pass-1', '198.51.100.9')).status, 302);
  });
});

describe('X-Forwarded-For behind a trusted proxy (the control)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    await t.createUser('ivy', 'Ivy-pass-1');
  });
  after(() => t?.close());

  it('believes the header from the proxy: the failing address is throttled, another client address is not', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await formLogin(t, 'ivy', 'wrong', '203.0.113.10')).status, 401);
    assert.equal((await formLogin(t, 'ivy', 'Ivy-pass-1', '203.0.113.10')).status, 429);
    const other = await formLogin(t, 'ivy', 'Ivy-pass-1', '203.0.113.20');
    assert.equal(other.status, 302, other.text);
    assert.ok(t.logs.some((line) => line.includes('"event":"login_failed"') && line.includes('"client_ip":"203.0.113.10"')));
  });
});
