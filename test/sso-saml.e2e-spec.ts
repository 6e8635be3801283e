import assert from 'node:assert/strict';
import { inflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { ResponseTamper, SamlIdp, SamlUser } from './support/saml-idp';
import { spawnService } from './support/service-process';
import { Browser } from './support/sso-browser';
import { assertLoggedIn, assertRefused, lastEvent, pendingStateKeys, sessionCount, setCookies, startCookie, userCount } from './support/sso-assertions';
import { selfSignedCertificate } from './support/x509';

const UID = 'urn:oid:0.9.2342.19200300.100.1.1';
const MAIL = 'urn:oid:0.9.2342.19200300.100.1.3';
const GIVEN = 'urn:oid:2.5.4.42';
const SURNAME = 'urn:oid:2.5.4.4';

const USERS: Record<string, SamlUser> = {
  grace: { nameId: 'grace@idp.example', attributes: { [UID]: 'grace', [MAIL]: 'grace@idp.example', [GIVEN]: 'Grace', [SURNAME]: 'Hopper', groups: ['staff'] } },
  admin: { nameId: 'admin', attributes: { [UID]: 'admin', groups: ['staff'] } },
  noname: { nameId: 'heidi@idp.example', attributes: { [MAIL]: 'heidi@idp.example' } },
  ivan: { nameId: 'ivan@idp.example', attributes: { [UID]: 'ivan' } },
  tracy: { nameId: 'tracy@idp.example', attributes: { [UID]: 'tracy' } },
};

describe('single sign-on with SAML 2.0 against a real IdP (SPEC §7)', () => {
  let t: TestApp;
  let idp: SamlIdp;
  const sp = selfSignedCertificate('automation-service-sp');

  before(async () => {
    t = await startTestApp();
    idp = await SamlIdp.start({ users: USERS, wantAuthnRequestsSigned: true });
    await t.settings({
      SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: sp.certPem,
      SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: sp.privateKeyPem,
      // The bare base64 body of the certificate, as AWX's form takes it.
      SOCIAL_AUTH_SAML_ENABLED_IDPS: { okta: { entity_id: idp.entityId, url: idp.ssoUrl, x509cert: idp.keys.certBody } },
      SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR: {
        is_superuser_attr: 'groups',
        is_superuser_value: ['admins'],
        is_system_auditor_attr: 'groups',
        is_system_auditor_value: ['auditors'],
      },
    });
    idp.useServiceProviderMetadata((await t.http().get('/sso/metadata/saml/').expect(200)).text);
  });
  after(async () => {
    await idp.close();
    await t.close();
  });

  /** Login URL → IdP (AuthnRequest by redirect, login form) → the Response a browser would POST. */
  async function toResponse(browser: Browser, username: string, tamper: ResponseTamper = {}, loginUrl = '/sso/login/saml/?idp=okta') {
    const start = await browser.get(loginUrl).expect(302);
    assert.ok(start.headers.location.startsWith(`${idp.ssoUrl}?`), start.headers.location);
    const page = await browser.get(start.headers.location);
    assert.equal(page.status, 200, page.text);
    return { posted: idp.respond(page.text, username, tamper), page: page.text };
  }

  async function login(browser: Browser, username: string, tamper: ResponseTamper = {}, loginUrl?: string) {
    const { posted } = await toResponse(browser, username, tamper, loginUrl);
    return browser.postForm(posted.acs, { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState });
  }

  it('serves SP metadata: entity id, the ACS for HTTP-POST, signed assertions wanted, the SP certificate', async () => {
    const res = await t.http().get('/sso/metadata/saml/').expect(200);
    assert.match(res.headers['content-type'], /^text\/xml/);
    assert.match(res.text, new RegExp(`entityID="${t.config.publicUrl}"`));
    assert.match(res.text, /<(md:)?SPSSODescriptor[^>]*WantAssertionsSigned="true"/);
    assert.match(
      res.text,
      new RegExp(`<(md:)?AssertionConsumerService[^>]*Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"[^>]*Location="${t.config.publicUrl}/sso/complete/saml/"`),
    );
    assert.ok(res.text.replace(/\s+/g, '').includes(sp.certBody), 'SP certificate in the metadata');
  });

  it('sends a signed sha256 AuthnRequest by HTTP-Redirect with Issuer = SP entity id and a sealed RelayState', async () => {
    const res = await new Browser(t).get('/sso/login/saml/?idp=okta&next=%2Fapi%2Fv2%2Fme%2F').expect(302);
    const url = new URL(res.headers.location);
    assert.equal(url.origin + url.pathname, idp.ssoUrl);
    assert.equal(url.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    assert.ok(url.searchParams.get('Signature'));
    const relayState = url.searchParams.get('RelayState')!;
    assert.match(relayState, /^[A-Za-z0-9_-]+$/);
    const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString();
    // The pending login is the RelayState, sealed: neither the request id nor `next` can be read from it.
    const requestId = /ID="([^"]+)"/.exec(xml)![1];
    assert.match(requestId, /^_[0-9a-f]{40}$/);
    for (const plain of [requestId, '/api/v2/me/', 'okta']) assert.ok(!Buffer.from(relayState, 'base64url').toString('latin1').includes(plain), plain);
    // The start cookie binds it to this browser where the ACS's POST carries it (an http PUBLIC_URL: SameSite=Lax).
    const binding = setCookies(res).find((c) => /^sso_saml_[A-Za-z0-9_-]{16}=/.test(c));
    assert.ok(binding, setCookies(res).join('\n'));
    assert.match(binding, /HttpOnly/);
    assert.match(binding, /Path=\/sso\//);
    assert.match(binding, /SameSite=Lax/);
    assert.doesNotMatch(binding, /Secure/);
    assert.match(xml, new RegExp(`<saml:Issuer[^>]*>${t.config.publicUrl}</saml:Issuer>`));
    assert.match(xml, new RegExp(`AssertionConsumerServiceURL="${t.config.publicUrl}/sso/complete/saml/"`));
    assert.match(xml, new RegExp(`Destination="${idp.ssoUrl}"`));
    assert.ok(!setCookies(res).some((c) => c.startsWith('svc_session_id=')));
  });

  it('first login creates a linked external user; the superuser flag follows the attributes at every login', async () => {
    const users = await userCount(t);
    USERS.grace.attributes.groups = ['staff', 'admins'];
    const browser = new Browser(t);
    const me = await assertLoggedIn(t, browser, await login(browser, 'grace'));
    assert.equal(me.username, 'grace');
    assert.equal(me.email, 'grace@idp.example');
    assert.equal(me.first_name, 'Grace');
    assert.equal(me.last_name, 'Hopper');
    assert.equal(me.external_account, 'social');
    assert.deepEqual(me.auth, [{ provider: 'saml:okta', uid: 'grace@idp.example' }]);
    assert.equal(me.is_superuser, true);
    assert.equal(me.is_system_auditor, false);
    assert.equal(await userCount(t), users + 1);

    USERS.grace.attributes.groups = ['auditors'];
    USERS.grace.attributes[MAIL] = 'grace.hopper@idp.example';
    const next = new Browser(t);
    const again = await assertLoggedIn(t, next, await login(next, 'grace'));
    assert.equal(again.id, me.id);
    assert.equal(again.is_superuser, false, 'superuser removed');
    assert.equal(again.is_system_auditor, true, 'auditor set');
    assert.equal(again.email, 'grace.hopper@idp.example');
    assert.equal(await userCount(t), users + 1);
  });

  it('a NameID "admin" never becomes the local admin; a missing username attribute falls back to the NameID', async () => {
    const browser = new Browser(t);
    const me = await assertLoggedIn(t, browser, await login(browser, 'admin'));
    assert.equal(me.username, 'admin-2');
    assert.equal(me.is_superuser, false);
    await t.http().get('/api/v2/me/').set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(200);
    const other = new Browser(t);
    const heidi = await assertLoggedIn(t, other, await login(other, 'noname'));
    assert.equal(heidi.username, 'heidi@idp.example');
  });

  it('the ACS needs no cookie: a POST from a browser that sends none (SameSite=Lax) still logs in, with `next` kept', async () => {
    const browser = new Browser(t);
    const { posted } = await toResponse(browser, 'ivan', {}, '/sso/login/saml/?idp=okta&next=%2Fapi%2Fv2%2Fme%2F');
    const res = await request(t.server).post('/sso/complete/saml/').type('form').send({ SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState });
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, '/api/v2/me/');
    const session = setCookies(res).find((c) => c.startsWith('svc_session_id='))!;
    assert.ok(session);
    const me = await t.http().get('/api/v2/me/').set('Cookie', session.split(';')[0]).expect(200);
    assert.equal(me.body.results[0].username, 'ivan');
  });

  it('a login started on one node completes on another (request id and RelayState sealed, not stored)', async () => {
    const node = await spawnService({
      DATABASE_URL: t.db.url,
      DATA_DIR: t.db.dataDir,
      SECRET_KEY: t.config.secretKey,
      PUBLIC_URL: t.config.publicUrl,
    });
    try {
      const browser = new Browser(t);
      const { posted } = await toResponse(browser, 'ivan');
      const res = await request(node.url).post('/sso/complete/saml/').type('form').send({ SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState });
      assert.equal(res.status, 302, node.output.join('').slice(-2000));
      assert.equal(res.headers.location, '/accounts/profile/');
      const session = setCookies(res).find((c) => c.startsWith('svc_session_id='))!;
      await t.http().get('/api/v2/me/').set('Cookie', session.split(';')[0]).expect(200);
    } finally {
      await node.stop();
    }
  });

  it('40 anonymous starts from the same address neither refuse a start nor end a colleague\'s login in progress, and store nothing (issue 56)', async () => {
    const colleague = new Browser(t);
    const { posted } = await toResponse(colleague, 'ivan', {}, '/sso/login/saml/?idp=okta&next=%2Fapi%2Fv2%2Fme%2F');
    const keys = await pendingStateKeys(t);
    for (let i = 0; i < 40; i++) {
      const start = await request(t.server).get('/sso/login/saml/?idp=okta').expect(302);
      assert.ok(start.headers.location.startsWith(`${idp.ssoUrl}?`), start.headers.location);
    }
    const added = [...(await pendingStateKeys(t))].filter((key) => !keys.has(key));
    assert.deepEqual(added, [], 'a start writes no pending-state row (not even the request id)');
    const me = await assertLoggedIn(t, colleague, await colleague.postForm(posted.acs, { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState }), '/api/v2/me/');
    assert.equal(me.username, 'ivan');
  });

  it('refuses a response replayed with its start cookie sent again (single use, the replay record)', async () => {
    const browser = new Browser(t);
    const start = await browser.get('/sso/login/saml/?idp=okta').expect(302);
    const binding = startCookie(start, 'sso_saml_');
    assert.ok(binding, 'a start cookie');
    const page = await browser.get(start.headers.location).expect(200);
    const posted = idp.respond(page.text, 'ivan');
    await assertLoggedIn(t, browser, await browser.postForm(posted.acs, { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState }));
    const sessions = await sessionCount(t);
    const replay = await request(t.server).post('/sso/complete/saml/').set('Cookie', binding).type('form').send({ SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState });
    await assertRefused(t, new Browser(t), replay, 'no_transaction', sessions);
    assert.match(String(lastEvent(t, 'sso_login')?.detail), /already completed/);
  });

  it("refuses another browser's response in a browser that has a SAML login of its own started; the one that started it still completes", async () => {
    const victim = new Browser(t);
    const { posted } = await toResponse(victim, 'ivan');
    const attacker = new Browser(t);
    await attacker.get('/sso/login/saml/?idp=okta').expect(302);
    const sessions = await sessionCount(t);
    const form = { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState };
    await assertRefused(t, attacker, await attacker.postForm(posted.acs, form), 'no_transaction', sessions);
    assert.match(String(lastEvent(t, 'sso_login')?.detail), /another browser/);
    await assertLoggedIn(t, victim, await victim.postForm(posted.acs, form));
  });

  it('an https PUBLIC_URL sends the start cookie as SameSite=None; Secure, which a cross-site POST carries', async () => {
    const node = await spawnService({ DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey, PUBLIC_URL: 'https://sso.example' });
    try {
      const start = await request(node.url).get('/sso/login/saml/?idp=okta').redirects(0);
      assert.equal(start.status, 302, node.output.join('').slice(-2000));
      const binding = setCookies(start).find((c) => c.startsWith('sso_saml_'));
      assert.ok(binding, setCookies(start).join('\n'));
      assert.match(binding, /SameSite=None/);
      assert.match(binding, /Secure/);
      assert.match(binding, /HttpOnly/);
    } finally {
      await node.stop();
    }
  });

  it('session limits apply to SAML sessions', async () => {
    await t.settings({ SESSIONS_PER_USER: 1 });
    try {
      const first = new Browser(t);
      await assertLoggedIn(t, first, await login(first, 'ivan'));
      const second = new Browser(t);
      await assertLoggedIn(t, second, await login(second, 'ivan'));
      assert.equal((await first.get('/api/v2/me/').expect(401)).body.reason, 'session_limit');
    } finally {
      await t.settings({ SESSIONS_PER_USER: -1 });
    }
  });

  const other = selfSignedCertificate('attacker');
  const cases: { name: string; tamper: ResponseTamper; detail: RegExp }[] = [
    { name: 'an unsigned response', tamper: { sign: 'none' }, detail: /signature/i },
    { name: 'a response signed only at the Response level (assertion unsigned)', tamper: { sign: 'response' }, detail: /signature/i },
    { name: 'a response signed by another key', tamper: { signingKey: other }, detail: /signature/i },
    { name: 'a wrong audience', tamper: { audience: 'https://other-sp.example' }, detail: /audience/i },
    { name: 'a wrong Recipient', tamper: { recipient: 'https://other-sp.example/acs' }, detail: /SubjectConfirmation/ },
    { name: 'a wrong Destination', tamper: { destination: 'https://other-sp.example/acs' }, detail: /Destination/ },
    { name: 'a wrong Issuer', tamper: { issuer: 'https://evil-idp.example' }, detail: /Issuer/ },
    { name: 'an expired assertion', tamper: { notOnOrAfter: new Date(Date.now() - 10 * 60 * 1000) }, detail: /expired|SubjectConfirmation|subject confirmation/i },
    { name: 'an unknown InResponseTo', tamper: { inResponseTo: '_not-a-request-we-sent' }, detail: /InResponseTo/ },
    { name: "an assertion whose SubjectConfirmationData names no request", tamper: { subjectInResponseTo: null }, detail: /SubjectConfirmation/ },
    { name: "an assertion issued for another request than the Response's", tamper: { subjectInResponseTo: '_someone-elses-request' }, detail: /InResponseTo|SubjectConfirmation/ },
    { name: 'an XML-signature-wrapped response (forged sibling assertion)', tamper: { wrap: 'sibling', sign: 'assertion' }, detail: /multiple assertions|signature/i },
    { name: 'an XML-signature-wrapped response (signed assertion inside a forged one)', tamper: { wrap: 'nested', sign: 'assertion' }, detail: /signature/i },
    { name: 'a Responder status', tamper: { status: 'urn:oasis:names:tc:SAML:2.0:status:Responder' }, detail: /status|Responder/i },
  ];
  for (const { name, tamper, detail } of cases) {
    it(`refuses ${name}`, async () => {
      const browser = new Browser(t);
      const users = await userCount(t);
      const before = await sessionCount(t);
      await assertRefused(t, browser, await login(browser, 'ivan', tamper), 'invalid_response', before);
      assert.match(String(lastEvent(t, 'sso_login')?.detail), detail);
      assert.equal(await userCount(t), users);
    });
  }

  it('refuses a DOCTYPE/XXE payload before parsing it, and never fetches the entity', async () => {
    const browser = new Browser(t);
    await assertRefused(t, browser, await login(browser, 'ivan', { doctype: true }), 'invalid_response', await sessionCount(t));
    assert.match(String(lastEvent(t, 'sso_login')?.detail), /document type/);
    assert.equal(idp.xxeFetches, 0);
  });

  it('refuses an assertion that expired by the service clock (checked against the injectable clock)', async () => {
    const browser = new Browser(t);
    const { posted } = await toResponse(browser, 'ivan');
    // NotOnOrAfter is 5 minutes ahead and the skew 60 s; the RelayState lives 10 minutes.
    t.clock.advance(400);
    try {
      const res = await browser.postForm(posted.acs, { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState });
      await assertRefused(t, browser, res, 'invalid_response', await sessionCount(t));
      assert.match(String(lastEvent(t, 'sso_login')?.detail), /time window|expired/);
    } finally {
      t.clock.advance(-400);
    }
  });

  it('refuses a replayed response (the same POST twice)', async () => {
    const browser = new Browser(t);
    const { posted } = await toResponse(browser, 'ivan');
    const form = { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState };
    await assertLoggedIn(t, browser, await browser.postForm(posted.acs, form));
    const attacker = new Browser(t);
    await assertRefused(t, attacker, await attacker.postForm(posted.acs, form), 'no_transaction', await sessionCount(t));
  });

  it('refuses an assertion id seen before even inside a fresh exchange (replay cache)', async () => {
    const assertionId = `_replayed${Date.now()}`;
    const first = new Browser(t);
    await assertLoggedIn(t, first, await login(first, 'ivan', { assertionId }));
    const second = new Browser(t);
    await assertRefused(t, second, await login(second, 'ivan', { assertionId }), 'replayed', await sessionCount(t));
  });

  it('refuses a response posted without a pending login (unsolicited, or RelayState lost)', async () => {
    const browser = new Browser(t);
    const before = await sessionCount(t);
    const unsolicited = idp.unsolicited('ivan', `${t.config.publicUrl}/sso/complete/saml/`);
    await assertRefused(t, browser, await browser.postForm(unsolicited.acs, { SAMLResponse: unsolicited.SAMLResponse }), 'no_transaction', before);
    const { posted } = await toResponse(browser, 'ivan');
    await assertRefused(t, browser, await browser.postForm(posted.acs, { SAMLResponse: posted.SAMLResponse, RelayState: 'x'.repeat(43) }), 'no_transaction', before);
    await assertRefused(t, browser, await browser.postForm('/sso/complete/saml/', { RelayState: posted.RelayState }), 'invalid_response', before);
  });

  it('never logs an assertion, a RelayState or the SP private key', async () => {
    const browser = new Browser(t);
    const { posted } = await toResponse(browser, 'ivan');
    await assertLoggedIn(t, browser, await browser.postForm(posted.acs, { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState }));
    const logs = t.logs.join('\n');
    assert.ok(!logs.includes(posted.RelayState));
    assert.ok(!logs.includes(posted.SAMLResponse.slice(0, 40)));
    assert.ok(!logs.includes('BEGIN PRIVATE KEY'));
    assert.ok(!logs.includes('<saml:Assertion'));
  });

  it('writes the lines of a login with its request id (SPEC §1)', async () => {
    // The provider's set-up line was written by this suite's first login: it carries that request's id.
    const ready = t.logs.filter((l) => l.includes('"event":"sso_provider_ready"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(ready.length, 'a sso_provider_ready line');
    for (const line of ready) assert.match(String(line.request_id), /^[0-9a-f]{32}$/, JSON.stringify(line));
    // The assertion's POST creates the user and the session: every line it writes carries its own id.
    const browser = new Browser(t);
    const { posted } = await toResponse(browser, 'tracy');
    const from = t.logs.length;
    const answer = await browser.postForm(posted.acs, { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState });
    const id = answer.headers['x-api-request-id'];
    const lines = t.logs.slice(from).filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const event of ['sso_user_created', 'login', 'sso_login']) assert.ok(lines.some((l) => l.event === event), `a ${event} line`);
    for (const line of lines) assert.equal(line.request_id, id, JSON.stringify(line));
  });
});
