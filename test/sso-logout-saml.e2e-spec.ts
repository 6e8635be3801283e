import assert from 'node:assert/strict';
import { createVerify } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { PendingStateService } from '../src/pending-state/pending-state.service';
import { LogoutMessage, LogoutTamper, RSA_SHA1, SamlIdp, SamlUser } from './support/saml-idp';
import { Browser } from './support/sso-browser';
import { assertLoggedIn, lastEvent } from './support/sso-assertions';
import { startTestApp, TestApp } from './support/test-app';
import { selfSignedCertificate } from './support/x509';

const UID = 'urn:oid:0.9.2342.19200300.100.1.1';
const USERS: Record<string, SamlUser> = {
  grace: { nameId: 'grace@idp.example', attributes: { [UID]: 'grace' } },
  ivan: { nameId: 'ivan@idp.example', attributes: { [UID]: 'ivan' } },
  judy: { nameId: 'judy@idp.example', attributes: { [UID]: 'judy' } },
  mallory: { nameId: 'mallory@idp.example', attributes: { [UID]: 'mallory' } },
};

describe('single logout with SAML 2.0 against a real IdP (SPEC §17)', () => {
  let t: TestApp;
  let idp: SamlIdp;
  let db: DataSource;
  const sp = selfSignedCertificate('automation-service-sp');
  const okta = () => ({ entity_id: idp.entityId, url: idp.ssoUrl, slo_url: idp.sloUrl, x509cert: idp.keys.certBody });

  before(async () => {
    t = await startTestApp();
    db = t.app.get<DataSource>(getDataSourceToken());
    idp = await SamlIdp.start({ users: USERS, wantAuthnRequestsSigned: true });
    await t.settings({
      SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: sp.certPem,
      SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: sp.privateKeyPem,
      SOCIAL_AUTH_SAML_ENABLED_IDPS: { okta: okta() },
    });
    idp.useServiceProviderMetadata((await t.http().get('/sso/metadata/saml/').expect(200)).text);
  });
  after(async () => {
    await idp.close();
    await t.close();
  });

  /** A browser logged in through the IdP as `username`, with its session cookie and the SessionIndex the IdP gave it. */
  async function login(username: string, browser = new Browser(t)) {
    const start = await browser.get('/sso/login/saml/?idp=okta').expect(302);
    const page = await browser.get(start.headers.location).expect(200);
    const posted = idp.respond(page.text, username);
    await assertLoggedIn(t, browser, await browser.postForm(posted.acs, { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState }));
    const cookie = `${t.config.sessionCookieName}=${browser.cookie(t.config.sessionCookieName)}`;
    const sessionId = (await browser.get('/api/v2/me/sessions/').expect(200)).body.results.find((s: { current: boolean }) => s.current).id as number;
    return { browser, cookie, sessionId, sessionIndex: idp.lastSessionIndex };
  }

  async function state(cookie: string): Promise<string> {
    const res = await t.http().get('/api/v2/me/').set('Cookie', cookie);
    return res.status === 200 ? 'live' : `${res.status} ${res.body.reason}`;
  }

  /** The IdP's logout message carried by a browser to the service's single logout service. */
  function deliver(message: LogoutMessage, browser = new Browser(t)) {
    return message.binding === 'redirect' ? browser.get(message.url) : browser.postForm(message.url, message.form);
  }

  const replayRows = async () => Number((await db.query("SELECT COUNT(*) AS n FROM pending_state WHERE state_key LIKE 'samllogout:%'"))[0].n);
  const recordOf = async (sessionId: number) =>
    ((await db.query('SELECT provider, subject, provider_session, data FROM sso_session WHERE session_id = ?', [sessionId])) as Record<string, string>[])[0];

  /** A LogoutResponse from the service to the IdP's `slo_url`: its XML and whether its query-string signature verifies with the SP certificate. */
  function readRedirect(location: string, param: 'SAMLRequest' | 'SAMLResponse') {
    const url = new URL(location);
    const raw = location.slice(location.indexOf('?') + 1).split('&');
    const signed = raw.filter((part) => !part.startsWith('Signature=')).join('&');
    const signatureOk = createVerify('RSA-SHA256').update(signed).verify(sp.certPem, url.searchParams.get('Signature') ?? '', 'base64');
    return { url, xml: inflateRawSync(Buffer.from(url.searchParams.get(param)!, 'base64')).toString(), signatureOk };
  }

  it('lists the single logout service in the SP metadata (both bindings) and in /api/v2/auth/', async () => {
    const metadata = (await t.http().get('/sso/metadata/saml/').expect(200)).text;
    const slo = `${t.config.publicUrl}/sso/logout/saml/`;
    assert.match(metadata, new RegExp(`<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${slo}"/>`));
    assert.match(metadata, new RegExp(`<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${slo}"/>`));
    assert.equal((await t.http().get('/api/v2/auth/').expect(200)).body['saml:okta'].slo_url, slo);
  });

  it('records the NameID and SessionIndex of a login beside the session (encrypted details)', async () => {
    const { sessionId, sessionIndex } = await login('grace');
    const record = await recordOf(sessionId);
    assert.deepEqual([record.provider, record.subject, record.provider_session], ['saml:okta', 'grace@idp.example', sessionIndex]);
    assert.doesNotMatch(record.data, /grace/);
  });

  it('logging out sends a signed LogoutRequest (NameID, SessionIndex) to the IdP, whose LogoutResponse brings the browser to `next`', async () => {
    const { browser, cookie, sessionId, sessionIndex } = await login('grace');
    const res = await browser.get('/api/logout/?next=/api/v2/').expect(302);
    assert.ok(res.headers.location.startsWith(`${idp.sloUrl}?`), res.headers.location);
    const { url, xml, signatureOk } = readRedirect(res.headers.location, 'SAMLRequest');
    assert.ok(signatureOk, 'signed with the SP key');
    assert.equal(url.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    assert.match(xml, /<saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">grace@idp.example<\/saml:NameID>/);
    assert.match(xml, new RegExp(`SessionIndex[^>]*>${sessionIndex}<`));
    assert.match(xml, new RegExp(`<saml:Issuer[^>]*>${t.config.publicUrl}</saml:Issuer>`));
    // Ended here before the browser left.
    assert.equal(await state(cookie), '401 logged_out');
    assert.equal(await recordOf(sessionId), undefined);

    const answer = await browser.get(res.headers.location);
    assert.equal(answer.status, 302, answer.text);
    assert.deepEqual(idp.logoutRequests.at(-1), { id: /ID="([^"]+)"/.exec(xml)![1], nameID: 'grace@idp.example', sessionIndex, relayState: url.searchParams.get('RelayState') });
    assert.ok(answer.headers.location.startsWith(`${t.config.publicUrl}/sso/logout/saml/?SAMLResponse=`), answer.headers.location);
    const back = await browser.get(answer.headers.location).expect(302);
    assert.equal(back.headers.location, '/api/v2/');
    assert.equal(lastEvent(t, 'sso_logout')?.outcome, 'confirmed');
  });

  it('without `next` the IdP\'s LogoutResponse leads to the login page saying so; an answer replayed leads there with a notice', async () => {
    const { browser } = await login('grace');
    const res = await browser.get('/api/logout/').expect(302);
    const answer = await browser.get(res.headers.location).expect(302);
    const back = await browser.get(answer.headers.location).expect(302);
    assert.equal(back.headers.location, '/api/login/?reason=logged_out');
    assert.match((await browser.get(back.headers.location).expect(200)).text, /role="alert">You logged out\.</);
    const again = await browser.get(answer.headers.location).expect(302);
    assert.equal(again.headers.location, '/api/login/?sso_error=logout_unconfirmed');
    assert.match((await browser.get(again.headers.location).expect(200)).text, /role="alert">You were logged out here, but the identity provider did not confirm/);
  });

  it('takes the IdP\'s LogoutResponse on the POST binding too (signed), and refuses it unsigned', async () => {
    for (const [tamper, expected] of [[{}, '/api/v2/'], [{ sign: false }, '/api/login/?sso_error=logout_unconfirmed']] as const) {
      const { browser } = await login('grace');
      const res = await browser.get('/api/logout/?next=/api/v2/').expect(302);
      const { url, xml } = readRedirect(res.headers.location, 'SAMLRequest');
      const id = /ID="([^"]+)"/.exec(xml)![1];
      const answer = idp.logoutResponse(id, { binding: 'post', relayState: url.searchParams.get('RelayState')!, tamper });
      assert.equal((await deliver(answer, browser).expect(302)).headers.location, expected);
    }
  });

  const badAnswers: { name: string; tamper: LogoutTamper }[] = [
    { name: 'unsigned', tamper: { sign: false } },
    { name: 'signed by a foreign key', tamper: { signingKey: selfSignedCertificate('attacker') } },
    { name: 'answering another request', tamper: { inResponseTo: '_not-our-request' } },
    { name: 'not a success', tamper: { status: 'urn:oasis:names:tc:SAML:2.0:status:Responder' } },
    { name: 'sent to another service', tamper: { destination: 'https://other-sp.example/slo' } },
  ];
  for (const { name, tamper } of badAnswers) {
    it(`an IdP LogoutResponse ${name} is not taken as confirmation (the local logout stands)`, async () => {
      const { browser, cookie } = await login('grace');
      const res = await browser.get('/api/logout/?next=/api/v2/').expect(302);
      idp.logoutResponseTamper = tamper;
      const answer = await browser.get(res.headers.location).expect(302);
      const back = await browser.get(answer.headers.location).expect(302);
      assert.equal(back.headers.location, '/api/login/?sso_error=logout_unconfirmed');
      assert.equal(await state(cookie), '401 logged_out');
    });
  }

  it('an IdP-initiated LogoutRequest (Redirect) with NameID and SessionIndex ends that session only (idp_logout), answered with a signed LogoutResponse', async () => {
    const first = await login('ivan');
    const second = await login('ivan');
    const request = idp.logoutRequest('ivan@idp.example', { sessionIndex: first.sessionIndex, relayState: 'idp-state-1' });
    const res = await deliver(request).expect(302);
    assert.deepEqual([await state(first.cookie), await state(second.cookie)], ['401 idp_logout', 'live']);
    assert.ok(res.headers.location.startsWith(`${idp.sloUrl}?SAMLResponse=`), res.headers.location);
    const { url, xml, signatureOk } = readRedirect(res.headers.location, 'SAMLResponse');
    assert.ok(signatureOk);
    assert.equal(url.searchParams.get('RelayState'), 'idp-state-1');
    assert.match(xml, new RegExp(`InResponseTo="${request.id}"`));
    assert.match(xml, /StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/);
    // The IdP reads (and verifies) the answer as it would.
    await new Browser(t).get(res.headers.location).expect(200);
    assert.deepEqual(idp.logoutResponses.at(-1), { inResponseTo: request.id, status: 'urn:oasis:names:tc:SAML:2.0:status:Success', relayState: 'idp-state-1' });
    const refused = await t.http().get('/api/v2/me/').set('Cookie', first.cookie).expect(401);
    assert.match(refused.body.detail, /identity provider/);
    assert.match((await t.http().get('/api/login/').set('Cookie', first.cookie).expect(200)).text, /role="alert">You were logged out by your identity provider/);
  });

  it('an IdP-initiated LogoutRequest (POST) with the NameID alone ends every session of that subject from that IdP, and no one else\'s', async () => {
    const first = await login('judy');
    const second = await login('judy');
    const other = await login('grace');
    const res = await deliver(idp.logoutRequest('judy@idp.example', { binding: 'post' })).expect(302);
    assert.ok(res.headers.location.startsWith(`${idp.sloUrl}?SAMLResponse=`));
    assert.deepEqual([await state(first.cookie), await state(second.cookie), await state(other.cookie)], ['401 idp_logout', '401 idp_logout', 'live']);
    const event = lastEvent(t, 'sso_logout');
    assert.deepEqual([event?.binding, event?.by, event?.count], ['post', 'name_id', 2]);
  });

  const refusals: { name: string; binding: 'redirect' | 'post'; tamper: LogoutTamper; reason: RegExp }[] = [
    { name: 'an unsigned request (Redirect)', binding: 'redirect', tamper: { sign: false }, reason: /unsigned/ },
    { name: 'an unsigned request (POST)', binding: 'post', tamper: { sign: false }, reason: /signature/i },
    { name: 'a request signed by a foreign key (Redirect)', binding: 'redirect', tamper: { signingKey: selfSignedCertificate('attacker') }, reason: /signature/i },
    { name: 'a request signed by a foreign key (POST)', binding: 'post', tamper: { signingKey: selfSignedCertificate('attacker') }, reason: /signature/i },
    { name: 'a request changed after it was signed (POST)', binding: 'post', tamper: { afterSigning: ['mallory@idp.example', 'ivan@idp.example'] }, reason: /signature/i },
    { name: 'a SHA-1 signature', binding: 'redirect', tamper: { sigAlg: RSA_SHA1 }, reason: /algorithm/ },
    { name: 'another issuer', binding: 'redirect', tamper: { issuer: 'https://evil-idp.example' }, reason: /Issuer is no enabled IdP/ },
    { name: 'a request for another service (Destination)', binding: 'redirect', tamper: { destination: 'https://other-sp.example/slo' }, reason: /Destination/ },
    { name: 'a stale request', binding: 'redirect', tamper: { issueInstant: new Date(Date.now() - 20 * 60 * 1000) }, reason: /too old/ },
    { name: 'a request from the future', binding: 'post', tamper: { issueInstant: new Date(Date.now() + 20 * 60 * 1000) }, reason: /future/ },
    { name: 'a DOCTYPE (POST)', binding: 'post', tamper: { doctype: true }, reason: /document type/ },
  ];
  for (const { name, binding, tamper, reason } of refusals) {
    it(`refuses ${name} with a 400, ending nothing and keeping nothing`, async () => {
      const victim = await login('mallory');
      const rows = await replayRows();
      const res = await deliver(idp.logoutRequest('mallory@idp.example', { binding, sessionIndex: victim.sessionIndex, tamper })).expect(400);
      assert.match(res.body.detail, reason);
      assert.equal(await state(victim.cookie), 'live');
      assert.equal(await replayRows(), rows, 'a refused request adds no row');
      assert.equal(lastEvent(t, 'sso_logout')?.outcome, 'refused');
    });
  }

  it('refuses a replayed LogoutRequest (its ID, shared by every node): the session made after it survives', async () => {
    const first = await login('mallory');
    const request = idp.logoutRequest('mallory@idp.example');
    await deliver(request).expect(302);
    assert.equal(await state(first.cookie), '401 idp_logout');
    const again = await login('mallory');
    const res = await deliver(request).expect(400);
    assert.match(res.body.detail, /already used/);
    assert.equal(await state(again.cookie), 'live');
  });

  it('refuses a logout message with a repeated parameter or none, and a LogoutResponse nobody asked for', async () => {
    const victim = await login('mallory');
    const message = idp.logoutRequest('mallory@idp.example') as { url: string };
    await new Browser(t).get(`${message.url}&SAMLRequest=x`).expect(400);
    await new Browser(t).get('/sso/logout/saml/').expect(400);
    // A DEFLATE bomb (a few kilobytes that inflate to megabytes) is refused before it is parsed.
    const bomb = encodeURIComponent(deflateRawSync(Buffer.alloc(8 * 1024 * 1024, 0x20)).toString('base64'));
    assert.match((await new Browser(t).get(`/sso/logout/saml/?SAMLRequest=${bomb}`).expect(400)).body.detail, /too large/);
    await new Browser(t).postForm('/sso/logout/saml/', {}).expect(400);
    const unasked = await new Browser(t).postForm('/sso/logout/saml/', { SAMLResponse: Buffer.from('<x/>').toString('base64') }).expect(302);
    assert.equal(unasked.headers.location, '/api/login/?sso_error=logout_unconfirmed');
    assert.equal(await state(victim.cookie), 'live');
  });

  it('sweeps the replay cache of LogoutRequest ids once they expire', async () => {
    await login('ivan');
    await deliver(idp.logoutRequest('ivan@idp.example')).expect(302);
    assert.ok((await replayRows()) > 0);
    t.clock.advance(3600);
    try {
      await t.app.get(PendingStateService).sweep();
      assert.equal(await replayRows(), 0);
    } finally {
      t.clock.advance(-3600);
    }
  });

  it('an IdP without slo_url: logging out stays local; its LogoutRequest is still honoured, answered with a page', async () => {
    const { browser, cookie } = await login('grace');
    await t.settings({ SOCIAL_AUTH_SAML_ENABLED_IDPS: { okta: { ...okta(), slo_url: undefined } } });
    try {
      const res = await browser.get('/api/logout/?next=/api/v2/').expect(302);
      assert.equal(res.headers.location, '/api/v2/');
      assert.equal(await state(cookie), '401 logged_out');
      const other = await login('grace');
      const page = await deliver(idp.logoutRequest('grace@idp.example')).expect(200);
      assert.match(page.text, /role="status">Your identity provider logged you out\./);
      assert.equal(await state(other.cookie), '401 idp_logout');
    } finally {
      await t.settings({ SOCIAL_AUTH_SAML_ENABLED_IDPS: { okta: okta() } });
    }
  });
});
