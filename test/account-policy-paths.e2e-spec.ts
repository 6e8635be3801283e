import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { AuthMetrics } from '../src/common/auth-metrics';
import { SsoUsers } from '../src/sso/sso-users.service';
import { AccountPolicy, CredentialKind } from '../src/users/account-policy';
import { Agent, browserLogin } from './support/browser-login';
import { decideDevice, deviceAuthorization, devicePoll, hiddenFields, redirectParams, registerApp, RegisteredApp, tokenRequest } from './support/oauth2';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { NO_REQUEST } from '../src/common/request-context';

const REDIRECT = 'https://app.example.com/cb';
const ALICE = basic('alice', 'Alice-pass-1');
const SSO_IDENTITY = { provider: 'oidc:policy', uid: 'subject-1', username: 'sso-user' };
const KINDS: CredentialKind[] = ['session', 'bearer', 'refresh_token', 'authorization_code', 'device_code', 'password', 'sso', 'client_credentials'];

const client = (app: RegisteredApp) => ({ clientId: app.clientId, secret: app.clientSecret });

/** One credential of every kind alice can hold, fresh (a refresh token and a code are single use). */
interface Credentials {
  session: Agent;
  accessToken: string;
  refreshToken: string;
  code: string;
  /** A device code alice approved on the device page (RFC 8628). */
  deviceCode: string;
}

/**
 * Every credential kind's validity rule asks the account policy (issue 29): the policy records the kind
 * of each question, and with local authentication switched off each path refuses alice's credential
 * while the policy counts the refusal under that path's kind. A path that decided on its own would
 * show up as a kind never asked, or a refusal never counted.
 */
describe('every credential kind asks the account policy (issue 29)', () => {
  let t: TestApp;
  let passwordApp: RegisteredApp;
  let codeApp: RegisteredApp;
  let serviceApp: RegisteredApp;
  let deviceApp: RegisteredApp;
  const asked = new Set<CredentialKind>();

  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1');
    const admin = basic('admin', ADMIN_PASSWORD);
    passwordApp = await registerApp(t, admin, { name: 'cli', client_type: 'confidential', authorization_grant_type: 'password' });
    codeApp = await registerApp(t, admin, { name: 'web', client_type: 'confidential', authorization_grant_type: 'authorization-code', redirect_uris: REDIRECT });
    serviceApp = await registerApp(t, admin, { name: 'ci', client_type: 'confidential', authorization_grant_type: 'client-credentials' });
    deviceApp = await registerApp(t, admin, { name: 'tv', client_type: 'public', authorization_grant_type: 'device-code' });
    // The SSO user's first login creates it; later logins find it through its link and ask the policy.
    await t.app.get(SsoUsers).resolve(SSO_IDENTITY, NO_REQUEST);
    const policy = t.app.get(AccountPolicy);
    const refusal = policy.refusal.bind(policy);
    // An own property over the class's method: every caller reaches the policy through this instance.
    policy.refusal = (user, kind) => {
      asked.add(kind);
      return refusal(user, kind);
    };
  });
  after(() => t?.close());
  beforeEach(() => asked.clear());

  async function credentials(): Promise<Credentials> {
    const { agent, csrf } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const device = await deviceAuthorization(t, { clientId: deviceApp.clientId });
    assert.equal(device.status, 200, device.text);
    assert.equal((await decideDevice(agent, csrf, device.body.user_code)).status, 200);
    const grant = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'Alice-pass-1', scope: 'read' }, client(passwordApp));
    assert.equal(grant.status, 200, grant.text);
    const consent = t.agent();
    const page = await consent.get('/api/o/authorize/?' + new URLSearchParams({ response_type: 'code', client_id: codeApp.clientId, redirect_uri: REDIRECT, state: 's' })).set('Authorization', ALICE);
    assert.equal(page.status, 200, page.text);
    const decided = await consent.post('/api/o/authorize/').type('form').set('Authorization', ALICE).send({ ...hiddenFields(page.text), decision: 'authorize' });
    assert.equal(decided.status, 302, decided.text);
    const code = redirectParams(decided.headers.location).get('code')!;
    return { session: agent, accessToken: grant.body.access_token, refreshToken: grant.body.refresh_token, code, deviceCode: device.body.device_code };
  }

  /** Uses each credential once; the status each path answered. */
  async function useAll(c: Credentials): Promise<Record<CredentialKind, number>> {
    const sso = await t.app
      .get(SsoUsers)
      .resolve(SSO_IDENTITY, NO_REQUEST)
      .then(() => 200, () => 401);
    return {
      session: (await c.session.get('/api/v2/me/')).status,
      password: (await t.http().get('/api/v2/me/').set('Authorization', ALICE)).status,
      bearer: (await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${c.accessToken}`)).status,
      refresh_token: (await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: c.refreshToken }, client(passwordApp))).status,
      authorization_code: (await tokenRequest(t, { grant_type: 'authorization_code', code: c.code, redirect_uri: REDIRECT }, client(codeApp))).status,
      device_code: (await devicePoll(t, c.deviceCode, { clientId: deviceApp.clientId })).status,
      sso,
      client_credentials: (await tokenRequest(t, { grant_type: 'client_credentials' }, client(serviceApp))).status,
    };
  }

  it('asks it once per credential kind, and each credential of an allowed account works', async () => {
    const c = await credentials();
    asked.clear();
    assert.deepEqual(await useAll(c), { session: 200, password: 200, bearer: 200, refresh_token: 200, authorization_code: 200, device_code: 200, sso: 200, client_credentials: 200 });
    assert.deepEqual([...asked].sort(), [...KINDS].sort());
  });

  it('refuses every local credential while local authentication is off, each refusal counted under its kind', async () => {
    const c = await credentials();
    const counted = async () => Object.fromEntries((await t.app.get(AuthMetrics).accountRefusals.get()).values.map((v) => [v.labels.kind, v.value]));
    const before = await counted();
    await t.settings({ DISABLE_LOCAL_AUTH: true });
    try {
      // An SSO user and a service account are external: local authentication being off does not concern them.
      assert.deepEqual(await useAll(c), { session: 401, password: 401, bearer: 401, refresh_token: 400, authorization_code: 400, device_code: 400, sso: 200, client_credentials: 200 });
    } finally {
      await t.settings({ DISABLE_LOCAL_AUTH: false });
    }
    const now = await counted();
    for (const kind of ['session', 'bearer', 'refresh_token', 'authorization_code', 'device_code', 'password'] as const) {
      assert.ok((now[kind] ?? 0) > (before[kind] ?? 0), `no refusal counted for ${kind}: ${JSON.stringify(now)}`);
    }
  });
});
