import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserLogin } from './support/browser-login';
import { RegisteredApp, registerApp, tokenRequest } from './support/oauth2';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

const bearer = (token: string) => `Bearer ${token}`;

/**
 * Client credentials and service accounts (SPEC §15, issue 32): a `client-credentials` application acts
 * as its own service account, which holds the tokens it is issued and can be reached no other way.
 */
describe('client credentials and service accounts (RFC 6749 §4.4)', () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);
  const alice = basic('alice', 'Alice-pass-1');
  let ci: RegisteredApp;

  const client = (app: RegisteredApp) => ({ clientId: app.clientId, secret: app.clientSecret });
  const user = async (id: number) => (await t.http().get(`/api/v2/users/${id}/`).set('Authorization', admin).expect(200)).body;

  async function issue(app: RegisteredApp, form: Record<string, string> = {}) {
    const res = await tokenRequest(t, { grant_type: 'client_credentials', ...form }, client(app));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { access_token: string; token_type: string; scope: string; expires_in: number; refresh_token?: string };
  }

  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1');
    ci = await registerApp(t, alice, { name: 'CI pipeline #1', client_type: 'confidential', authorization_grant_type: 'client-credentials' });
  });
  after(() => t?.close());

  it('creates the application with its own service account, named from the application', async () => {
    assert.equal(typeof ci.body.service_account, 'number');
    assert.equal(ci.body.redirect_uris, '');
    assert.equal((ci.body.related as Record<string, string>).service_account, `/api/v2/users/${ci.body.service_account}/`);
    const account = await user(ci.body.service_account as number);
    assert.equal(account.username, 'svc-CIpipeline1');
    assert.equal(account.external_account, 'service');
    assert.equal(account.is_superuser, false);
    // A second application of the same name gets the next free name.
    const again = await registerApp(t, alice, { name: 'CI pipeline #1', client_type: 'confidential', authorization_grant_type: 'client-credentials' });
    assert.equal((await user(again.body.service_account as number)).username, 'svc-CIpipeline1-2');
    // Other grant types have none.
    const password = await registerApp(t, alice, { name: 'cli', client_type: 'confidential', authorization_grant_type: 'password' });
    assert.equal(password.body.service_account, null);
    const listed = await t.http().get(`/api/v2/applications/?service_account=${ci.body.service_account}`).set('Authorization', alice).expect(200);
    assert.deepEqual(listed.body.results.map((a: { id: number }) => a.id), [ci.id]);
  });

  it('refuses public client-credentials applications with a 400 naming the field, leaving no account behind', async () => {
    const before = (await t.http().get('/api/v2/users/?external_account=service').set('Authorization', admin).expect(200)).body.count;
    const res = await t.http().post('/api/v2/applications/').set('Authorization', alice)
      .send({ name: 'public-ci', client_type: 'public', authorization_grant_type: 'client-credentials' });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.ok(Array.isArray(res.body.client_type), JSON.stringify(res.body));
    const afterCount = (await t.http().get('/api/v2/users/?external_account=service').set('Authorization', admin).expect(200)).body.count;
    assert.equal(afterCount, before);
  });

  it('issues an access token for the service account, write by default, never a refresh token', async () => {
    const token = await issue(ci);
    assert.equal(token.token_type, 'Bearer');
    assert.equal(token.scope, 'write');
    assert.equal(token.refresh_token, undefined);
    assert.equal(typeof token.expires_in, 'number');
    const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(token.access_token)).expect(200);
    assert.equal(me.body.results[0].id, ci.body.service_account);
    const read = await issue(ci, { scope: 'read' });
    assert.equal(read.scope, 'read');
    await t.http().post('/api/v2/tokens/').set('Authorization', bearer(read.access_token)).send({}).expect(403);
    // Client authentication in the body works as well as Basic.
    const body = await t.http().post('/api/o/token/').type('form')
      .send({ grant_type: 'client_credentials', client_id: ci.clientId, client_secret: ci.clientSecret! });
    assert.equal(body.status, 200, JSON.stringify(body.body));
    // The token is the service account's and the application's.
    const tokens = await t.http().get(`/api/v2/users/${ci.body.service_account}/tokens/`).set('Authorization', admin).expect(200);
    assert.ok(tokens.body.results.every((r: { application: number }) => r.application === ci.id));
  });

  it('caps its tokens with TOKEN_MAX_LIFETIME_SECONDS like every grant', async () => {
    await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 3600 });
    try {
      const token = await issue(ci);
      assert.equal(token.expires_in, 3600);
      const listed = await t.http().get(`/api/v2/users/${ci.body.service_account}/tokens/?order_by=-id`).set('Authorization', admin).expect(200);
      const expires = new Date(listed.body.results[0].expires).getTime() - new Date(listed.body.results[0].created).getTime();
      assert.equal(expires, 3600 * 1000);
    } finally {
      await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 0 });
    }
  });

  it('answers the RFC 6749 errors: no secret, a wrong secret, a scope it cannot have, another grant type', async () => {
    const noSecret = await tokenRequest(t, { grant_type: 'client_credentials' }, { clientId: ci.clientId });
    assert.equal(noSecret.status, 401, JSON.stringify(noSecret.body));
    assert.equal(noSecret.body.error, 'invalid_client');
    const wrong = await tokenRequest(t, { grant_type: 'client_credentials' }, { clientId: ci.clientId, secret: 'wrong' });
    assert.equal(wrong.body.error, 'invalid_client');
    const scope = await tokenRequest(t, { grant_type: 'client_credentials', scope: 'admin' }, client(ci));
    assert.equal(scope.status, 400);
    assert.equal(scope.body.error, 'invalid_scope');
    // The client-credentials application may not use the password grant, nor a password application client credentials.
    const password = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'Alice-pass-1' }, client(ci));
    assert.equal(password.body.error, 'unauthorized_client');
  });

  it('lets the service account in no other way: no login form, basic, password grant or password of its own', async () => {
    const account = await user(ci.body.service_account as number);
    await assert.rejects(browserLogin(t, account.username, ''), /login failed: 4/);
    await assert.rejects(browserLogin(t, account.username, 'anything-at-all'), /login failed: 401/);
    await t.http().get('/api/v2/me/').set('Authorization', basic(account.username, 'anything-at-all')).expect(401);
    const cli = await registerApp(t, admin, { name: 'cli-for-svc', client_type: 'confidential', authorization_grant_type: 'password' });
    const grant = await tokenRequest(t, { grant_type: 'password', username: account.username, password: 'anything-at-all' }, client(cli));
    assert.equal(grant.body.error, 'invalid_grant');
    // Nobody can give it a password.
    const set = await t.http().patch(`/api/v2/users/${account.id}/`).set('Authorization', admin).send({ password: 'Some-pass-123!' });
    assert.equal(set.status, 400, JSON.stringify(set.body));
    assert.deepEqual(set.body.password, ['A service account has no password.']);
  });

  it('holds tokens whatever ALLOW_OAUTH2_FOR_EXTERNAL_USERS says, and takes the flags a superuser gives it', async () => {
    await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
    const token = await issue(ci);
    await t.http().get('/api/v2/settings/authentication/').set('Authorization', bearer(token.access_token)).expect(403);
    await t.http().patch(`/api/v2/users/${ci.body.service_account}/`).set('Authorization', admin).send({ is_superuser: true }).expect(200);
    await t.http().get('/api/v2/settings/authentication/').set('Authorization', bearer(token.access_token)).expect(200);
    await t.http().patch(`/api/v2/users/${ci.body.service_account}/`).set('Authorization', admin).send({ is_superuser: false }).expect(200);
  });

  it('refuses a deactivated service account its tokens and new ones', async () => {
    const app = await registerApp(t, alice, { name: 'nightly', client_type: 'confidential', authorization_grant_type: 'client-credentials' });
    const token = await issue(app);
    await t.http().patch(`/api/v2/users/${app.body.service_account}/`).set('Authorization', admin).send({ is_active: false }).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token.access_token)).expect(401);
    const refused = await tokenRequest(t, { grant_type: 'client_credentials' }, client(app));
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error, 'invalid_grant');
  });

  it('revokes its tokens and deactivates its account when the application is deleted', async () => {
    const app = await registerApp(t, alice, { name: 'deploy', client_type: 'confidential', authorization_grant_type: 'client-credentials' });
    const token = await issue(app);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token.access_token)).expect(200);
    await t.http().delete(`/api/v2/applications/${app.id}/`).set('Authorization', alice).expect(204);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token.access_token)).expect(401);
    assert.equal((await user(app.body.service_account as number)).is_active, false);
    const gone = await tokenRequest(t, { grant_type: 'client_credentials' }, client(app));
    assert.equal(gone.body.error, 'invalid_client');
  });

  it('deactivates the service accounts of a deleted owner, whose applications go by cascade', async () => {
    const bobId = await t.createUser('bob', 'Bob-pass-123!');
    const app = await registerApp(t, basic('bob', 'Bob-pass-123!'), { name: 'bob-ci', client_type: 'confidential', authorization_grant_type: 'client-credentials' });
    const token = await issue(app);
    await t.http().delete(`/api/v2/users/${bobId}/`).set('Authorization', admin).expect(204);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token.access_token)).expect(401);
    assert.equal((await user(app.body.service_account as number)).is_active, false);
    await t.http().get(`/api/v2/applications/${app.id}/`).set('Authorization', admin).expect(404);
  });

  it('deactivating the owner deactivates its service accounts and refuses their tokens; reactivating the owner does not undo it', async () => {
    const carolId = await t.createUser('carol', 'Carol-pass-123!');
    const carol = basic('carol', 'Carol-pass-123!');
    const apps = [
      await registerApp(t, carol, { name: 'carol-ci', client_type: 'confidential', authorization_grant_type: 'client-credentials' }),
      await registerApp(t, carol, { name: 'carol-backup', client_type: 'confidential', authorization_grant_type: 'client-credentials' }),
    ];
    const tokens = [await issue(apps[0]), await issue(apps[1])];
    for (const token of tokens) await t.http().get('/api/v2/me/').set('Authorization', bearer(token.access_token)).expect(200);
    const others = await issue(ci);
    await t.http().patch(`/api/v2/users/${carolId}/`).set('Authorization', admin).send({ is_active: false }).expect(200);
    const refusedGrant = async (app: RegisteredApp) => {
      const res = await tokenRequest(t, { grant_type: 'client_credentials' }, client(app));
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error, 'invalid_grant');
      assert.equal(res.body.access_token, undefined);
    };
    for (const [i, app] of apps.entries()) {
      const refused = await t.http().get('/api/v2/me/').set('Authorization', bearer(tokens[i].access_token)).expect(401);
      assert.ok(refused.body.detail, JSON.stringify(refused.body));
      await refusedGrant(app);
      assert.equal((await user(app.body.service_account as number)).is_active, false);
    }
    // Another owner's machine is untouched.
    await t.http().get('/api/v2/me/').set('Authorization', bearer(others.access_token)).expect(200);
    // The owner back: the machines stay off until a superuser turns each on again (SPEC §15).
    await t.http().patch(`/api/v2/users/${carolId}/`).set('Authorization', admin).send({ is_active: true }).expect(200);
    for (const app of apps) {
      assert.equal((await user(app.body.service_account as number)).is_active, false);
      await refusedGrant(app);
    }
    await t.http().patch(`/api/v2/users/${apps[0].body.service_account}/`).set('Authorization', admin).send({ is_active: true }).expect(200);
    const fresh = await issue(apps[0]);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(fresh.access_token)).expect(200);
    // The tokens revoked with the deactivation stay revoked.
    await t.http().get('/api/v2/me/').set('Authorization', bearer(tokens[0].access_token)).expect(401);
  });

  it('a service account cannot register a client-credentials application (403), so no machine outlives its own', async () => {
    const token = await issue(ci);
    const services = async () => (await t.http().get('/api/v2/users/?external_account=service').set('Authorization', admin).expect(200)).body.count as number;
    const applications = async () => (await t.http().get('/api/v2/applications/').set('Authorization', admin).expect(200)).body.count as number;
    const before = [await services(), await applications()];
    const res = await t.http().post('/api/v2/applications/').set('Authorization', bearer(token.access_token))
      .send({ name: 'spawned', client_type: 'confidential', authorization_grant_type: 'client-credentials' });
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.deepEqual(res.body, { detail: 'You do not have permission to perform this action.' });
    assert.deepEqual([await services(), await applications()], before, 'no application, no service account');
    // Control: a person registers one, and the service account may register other kinds (SPEC §15 refuses only this one).
    await registerApp(t, alice, { name: 'spawned', client_type: 'confidential', authorization_grant_type: 'client-credentials' });
    await registerApp(t, bearer(token.access_token), { name: 'svc-cli', client_type: 'confidential', authorization_grant_type: 'password' });
  });

  it('never logs a client secret or an issued token', async () => {
    const token = await issue(ci);
    const logs = t.logs.join('\n');
    assert.ok(!logs.includes(token.access_token));
    assert.ok(!logs.includes(ci.clientSecret!));
  });
});
