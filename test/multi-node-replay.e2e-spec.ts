// @galera: npm test runs this file again on a 3-member Galera cluster (scripts/galera-files.sh)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';
import { LogoutMessage, ResponseTamper, SamlIdp } from './support/saml-idp';
import { ServiceProcess, spawnServices } from './support/service-process';
import { Browser } from './support/sso-browser';
import { basic } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-db';
import { selfSignedCertificate } from './support/x509';
import { settingsRefreshed } from './support/settings-refresh';

/** Both nodes' external address (ACS and callback URLs are built from it); a test browser maps it to its node. */
const PUBLIC_URL = 'http://127.0.0.1';
const SESSION_COOKIE = 'svc_session_id';
const UID = 'urn:oid:0.9.2342.19200300.100.1.1';

/**
 * The replay caches of single sign-on and single logout across nodes (SPEC §7, §17, §18; issue 40): a SAML
 * assertion, an OIDC logout token and a SAML LogoutRequest used on node A are refused on node B, because the
 * caches live in the database every node shares (on the Galera pass, each node on another cluster member),
 * while a fresh one is taken by either node.
 */
describe('SSO replay caches across two service processes', () => {
  let db: TestDatabase;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let saml: SamlIdp;
  let oidc: OidcIdp;
  const admin = basic('admin', 'Replay-admin-pass-1');
  const sp = selfSignedCertificate('automation-service-sp');

  const browserOn = (node: ServiceProcess) => new Browser({ url: node.url, config: { publicUrl: PUBLIC_URL } });

  /** What a request with this session cookie is told on `node`: live, or the 401's reason. */
  async function state(node: ServiceProcess, cookie: string): Promise<string> {
    const res = await request(node.url).get('/api/v2/me/').set('Cookie', cookie);
    return res.status === 200 ? 'live' : `${res.status} ${res.body.reason}`;
  }

  /** A logged-in answer of the ACS or callback: the 302 to the profile, and the session cookie it set. */
  async function loggedIn(browser: Browser, res: request.Response, username: string): Promise<string> {
    assert.equal(res.status, 302, res.text);
    assert.equal(res.headers.location, '/accounts/profile/');
    assert.equal((await browser.get('/api/v2/me/').expect(200)).body.results[0].username, username);
    return `${SESSION_COOKIE}=${browser.cookie(SESSION_COOKIE)}`;
  }

  /** A refused ACS answer: back to the login page naming `code`, and no session. */
  async function refused(browser: Browser, res: request.Response, code: string): Promise<void> {
    assert.equal(res.status, 302, res.text);
    assert.equal(res.headers.location, `/api/login/?sso_error=${code}`);
    assert.equal(browser.cookie(SESSION_COOKIE), undefined);
    await browser.get('/api/v2/me/').expect(401);
  }

  /** A SAML login started on `node`: the Response the IdP makes for it, as the browser would POST it back there. */
  async function samlResponse(node: ServiceProcess, username: string, tamper: ResponseTamper = {}) {
    const browser = browserOn(node);
    const start = await browser.get('/sso/login/saml/?idp=okta').expect(302);
    const page = await browser.get(start.headers.location).expect(200);
    const posted = saml.respond(page.text, username, tamper);
    return { browser, posted, form: { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState } };
  }

  async function samlLogin(node: ServiceProcess, username: string): Promise<string> {
    const { browser, posted, form } = await samlResponse(node, username);
    return loggedIn(browser, await browser.postForm(posted.acs, form), username);
  }

  async function oidcLogin(node: ServiceProcess, account: string, username: string): Promise<string> {
    const browser = browserOn(node);
    const start = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
    return loggedIn(browser, await browser.get(await oidc.authenticate(browser, start.headers.location, account)), username);
  }

  /** The IdP's logout message, carried by a browser to `node`'s single logout service. */
  function deliver(node: ServiceProcess, message: LogoutMessage) {
    const browser = browserOn(node);
    return message.binding === 'redirect' ? browser.get(message.url) : browser.postForm(message.url, message.form);
  }

  before(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, DATA_DIR: db.dataDir, SECRET_KEY: 'replay-nodes-secret-key-0123456789abcdefghij', ADMIN_PASSWORD: 'Replay-admin-pass-1', PUBLIC_URL };
    [a, b] = await spawnServices(2, env);
    saml = await SamlIdp.start({ users: { ivan: { nameId: 'ivan@idp.example', attributes: { [UID]: 'ivan' } }, mallory: { nameId: 'mallory@idp.example', attributes: { [UID]: 'mallory' } } } });
    oidc = await OidcIdp.start({ redirectUri: `${PUBLIC_URL}/sso/complete/oidc/`, accounts: { 'sub-dave': { preferred_username: 'dave' } } });
    await request(a.url).patch('/api/v2/settings/saml/').set('Authorization', admin).send({
      SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: sp.certPem,
      SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: sp.privateKeyPem,
      SOCIAL_AUTH_SAML_ENABLED_IDPS: { okta: { entity_id: saml.entityId, url: saml.ssoUrl, slo_url: saml.sloUrl, x509cert: saml.keys.certBody } },
    }).expect(200);
    await request(a.url).patch('/api/v2/settings/oidc/').set('Authorization', admin)
      .send({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: oidc.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } } }).expect(200);
    saml.useServiceProviderMetadata((await request(a.url).get('/sso/metadata/saml/').expect(200)).text);
    // Node B reads the settings at its next refresh (SPEC §9).
    await settingsRefreshed(b.url, admin);
    const providers = (await request(b.url).get('/api/v2/auth/').expect(200)).body as Record<string, unknown>;
    assert.ok('saml:okta' in providers && 'oidc:corp' in providers, 'node B lists both providers');
  });
  after(async () => {
    await Promise.all([saml?.close(), oidc?.close()]);
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  it('refuses on node B a SAML assertion consumed on node A, in a fresh exchange and as the same POST', async () => {
    const assertionId = `_cross_node_${Date.now()}`;
    const first = await samlResponse(a, 'ivan', { assertionId });
    await loggedIn(first.browser, await first.browser.postForm(first.posted.acs, first.form), 'ivan');
    // A new login on node B whose IdP Response reuses that assertion's ID: the replay cache refuses it.
    const second = await samlResponse(b, 'ivan', { assertionId });
    await refused(second.browser, await second.browser.postForm(second.posted.acs, second.form), 'replayed');
    // The very POST node A took, sent to node B: its login transaction is spent on every node.
    const attacker = browserOn(b);
    await refused(attacker, await attacker.postForm(first.posted.acs, first.form), 'no_transaction');
    // The control: node B takes a fresh assertion.
    await samlLogin(b, 'ivan');
  });

  it('refuses on node B an OIDC logout token used on node A; the session made after it survives', async () => {
    const first = await oidcLogin(b, 'sub-dave', 'dave');
    const token = oidc.logoutToken({ sub: 'sub-dave', sid: undefined });
    await request(a.url).post('/sso/backchannel/oidc/?idp=corp').type('form').send({ logout_token: token }).expect(200);
    assert.equal(await state(b, first), '401 idp_logout');
    const again = await oidcLogin(a, 'sub-dave', 'dave');
    const replay = await request(b.url).post('/sso/backchannel/oidc/?idp=corp').type('form').send({ logout_token: token }).expect(400);
    assert.match(replay.body.error_description, /already used/);
    assert.equal(await state(a, again), 'live');
    assert.equal(await state(b, again), 'live');
  });

  it('refuses on node B a SAML LogoutRequest used on node A; the session made after it survives', async () => {
    const first = await samlLogin(b, 'mallory');
    const logout = saml.logoutRequest('mallory@idp.example');
    assert.equal((await deliver(a, logout)).status, 302);
    assert.equal(await state(b, first), '401 idp_logout');
    const again = await samlLogin(a, 'mallory');
    const replay = await deliver(b, logout);
    assert.equal(replay.status, 400, replay.text);
    assert.match(replay.body.detail, /already used/);
    assert.equal(await state(b, again), 'live');
  });
});
