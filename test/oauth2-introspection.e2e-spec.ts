import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { clientBasic, RegisteredApp, registerApp, secretsInLogs, tokenRequest } from './support/oauth2';

/**
 * `/api/o/introspect/` (RFC 7662, SPEC §15): a confidential client sees the tokens issued to it, a
 * superuser acting with write rights sees any token, and a token is active exactly when its own validity
 * rule accepts it. Everything else a caller may ask about is only `{"active": false}`.
 */
describe('/api/o/introspect/ (RFC 7662)', () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);
  const alice = basic('alice', 'Alice-pass-1');
  const secrets: string[] = [];
  let cli: RegisteredApp;
  let other: RegisteredApp;
  let publicApp: RegisteredApp;

  const asClient = (app: RegisteredApp, secret = app.clientSecret!) => clientBasic(app.clientId, secret);
  const introspect = (auth: string | null, form: Record<string, string>) => {
    const req = t.http().post('/api/o/introspect/').type('form');
    if (auth) req.set('Authorization', auth);
    return req.send(form);
  };

  /** Alice's tokens from the password grant of `cli`. */
  async function aliceGrant(scope = 'read'): Promise<{ access: string; refresh: string }> {
    const res = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'Alice-pass-1', scope }, { clientId: cli.clientId, secret: cli.clientSecret });
    assert.equal(res.status, 200, res.text);
    secrets.push(res.body.access_token, res.body.refresh_token);
    return { access: res.body.access_token, refresh: res.body.refresh_token };
  }

  async function personalToken(who: string, scope = 'write'): Promise<{ id: number; token: string }> {
    const res = await t.http().post('/api/v2/tokens/').set('Authorization', who).send({ scope }).expect(201);
    secrets.push(res.body.token);
    return { id: res.body.id, token: res.body.token };
  }

  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1');
    cli = await registerApp(t, admin, { name: 'cli', client_type: 'confidential', authorization_grant_type: 'password' });
    other = await registerApp(t, admin, { name: 'other', client_type: 'confidential', authorization_grant_type: 'password' });
    publicApp = await registerApp(t, admin, { name: 'public', client_type: 'public', authorization_grant_type: 'password' });
    secrets.push(cli.clientSecret!, other.clientSecret!);
  });
  after(() => t.close());

  it('answers the client a live access token was issued to with RFC 7662 fields, and no-store', async () => {
    const { access } = await aliceGrant();
    const res = await introspect(asClient(cli), { token: access }).expect(200);
    assert.equal(res.headers['cache-control'], 'no-store');
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const [{ id: aliceId }] = (await t.http().get('/api/v2/me/').set('Authorization', alice).expect(200)).body.results;
    assert.deepEqual(Object.keys(res.body).sort(), ['active', 'client_id', 'exp', 'iat', 'scope', 'sub', 'token_type', 'username']);
    assert.equal(res.body.active, true);
    assert.equal(res.body.scope, 'read');
    assert.equal(res.body.client_id, cli.clientId);
    assert.equal(res.body.username, 'alice');
    assert.equal(res.body.sub, String(aliceId));
    assert.equal(res.body.token_type, 'Bearer');
    assert.ok(Math.abs(res.body.iat - now) <= 1, `iat ${res.body.iat} is now (${now})`);
    assert.ok(res.body.exp > res.body.iat);
    // The client_id may come in the form instead of the header (RFC 6749 §2.3.1).
    const inForm = await introspect(null, { token: access, client_id: cli.clientId, client_secret: cli.clientSecret! }).expect(200);
    assert.equal(inForm.body.active, true);
  });

  it('answers a refresh token (the hint only orders the lookups) until it is rotated', async () => {
    const { refresh } = await aliceGrant('write');
    for (const hint of [{}, { token_type_hint: 'refresh_token' }, { token_type_hint: 'access_token' }] as Record<string, string>[]) {
      const res = await introspect(asClient(cli), { token: refresh, ...hint }).expect(200);
      assert.equal(res.body.active, true);
      assert.equal(res.body.scope, 'write');
      assert.equal(res.body.client_id, cli.clientId);
      assert.ok(res.body.exp - res.body.iat > 0);
    }
    const rotated = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refresh }, { clientId: cli.clientId, secret: cli.clientSecret });
    assert.equal(rotated.status, 200, rotated.text);
    secrets.push(rotated.body.access_token, rotated.body.refresh_token);
    assert.deepEqual((await introspect(asClient(cli), { token: refresh }).expect(200)).body, { active: false });
    assert.equal((await introspect(asClient(cli), { token: rotated.body.refresh_token }).expect(200)).body.active, true);
  });

  it("shows another client's tokens, personal tokens and unknown strings as only inactive", async () => {
    const { access } = await aliceGrant();
    const personal = await personalToken(alice);
    assert.deepEqual((await introspect(asClient(other), { token: access }).expect(200)).body, { active: false });
    assert.deepEqual((await introspect(asClient(cli), { token: personal.token }).expect(200)).body, { active: false });
    assert.deepEqual((await introspect(asClient(cli), { token: 'svca_' + 'x'.repeat(43) }).expect(200)).body, { active: false });
    assert.deepEqual((await introspect(asClient(cli), { token: 'not a token at all' }).expect(200)).body, { active: false });
  });

  it('lets a superuser (basic, or a write token) introspect any token, a personal one with client_id null', async () => {
    const personal = await personalToken(alice, 'read');
    const byBasic = await introspect(admin, { token: personal.token }).expect(200);
    assert.equal(byBasic.body.active, true);
    assert.equal(byBasic.body.client_id, null);
    assert.equal(byBasic.body.username, 'alice');
    const adminWrite = await personalToken(admin, 'write');
    const byToken = await introspect(`Bearer ${adminWrite.token}`, { token: personal.token }).expect(200);
    assert.equal(byToken.body.active, true);
    const { access } = await aliceGrant();
    assert.equal((await introspect(admin, { token: access }).expect(200)).body.client_id, cli.clientId);
  });

  it('refuses callers that may not introspect: 401 invalid_client or 403, never an answer', async () => {
    const personal = await personalToken(alice);
    const adminRead = await personalToken(admin, 'read');
    const cases: [string | null, number, string][] = [
      [null, 401, 'invalid_client'],
      [asClient(cli, 'wrong-secret'), 401, 'invalid_client'],
      [clientBasic(publicApp.clientId), 401, 'invalid_client'],
      [basic('admin', 'wrong-password'), 401, 'invalid_client'],
      [alice, 403, 'access_denied'],
      [`Bearer ${personal.token}`, 403, 'access_denied'],
      [`Bearer ${adminRead.token}`, 403, 'access_denied'],
    ];
    for (const [auth, status, error] of cases) {
      const res = await introspect(auth, { token: personal.token });
      assert.equal(res.status, status, `${auth}: ${res.text}`);
      assert.equal(res.body.error, error);
      assert.equal(res.body.active, undefined);
      if (status === 401) assert.match(String(res.headers['www-authenticate']), /^Basic/);
    }
    const missing = await introspect(asClient(cli), {});
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error, 'invalid_request');
  });

  it('reads as inactive at once what the validity rule refuses: revoked, expired, a disabled user', async () => {
    const revoked = await personalToken(alice);
    await t.http().delete(`/api/v2/tokens/${revoked.id}/`).set('Authorization', alice).expect(204);
    assert.deepEqual((await introspect(admin, { token: revoked.token }).expect(200)).body, { active: false });

    const { access, refresh } = await aliceGrant();
    await t.settings({ DISABLE_LOCAL_AUTH: true });
    try {
      assert.deepEqual((await introspect(asClient(cli), { token: access }).expect(200)).body, { active: false });
      assert.deepEqual((await introspect(asClient(cli), { token: refresh }).expect(200)).body, { active: false });
    } finally {
      await t.settings({ DISABLE_LOCAL_AUTH: false });
    }
    assert.equal((await introspect(asClient(cli), { token: access }).expect(200)).body.active, true);

    const expiring = await personalToken(alice);
    const { exp } = (await introspect(admin, { token: expiring.token }).expect(200)).body as { exp: number };
    t.clock.advance(exp - Math.floor(t.clock.now().getTime() / 1000) + 1);
    assert.deepEqual((await introspect(admin, { token: expiring.token }).expect(200)).body, { active: false });
  });

  it("reads a deactivated user's tokens as inactive, for their client and for a superuser (issue 40)", async () => {
    const doraId = await t.createUser('dora', 'Dora-pass-1');
    const dora = basic('dora', 'Dora-pass-1');
    const granted = await tokenRequest(t, { grant_type: 'password', username: 'dora', password: 'Dora-pass-1' }, { clientId: cli.clientId, secret: cli.clientSecret });
    assert.equal(granted.status, 200, granted.text);
    secrets.push(granted.body.access_token, granted.body.refresh_token);
    const personal = await personalToken(dora);
    // Active while dora is: the answers below change because of the deactivation alone.
    const before = (await introspect(asClient(cli), { token: granted.body.access_token }).expect(200)).body;
    assert.equal(before.active, true);
    assert.equal(before.username, 'dora');
    assert.equal((await introspect(asClient(cli), { token: granted.body.refresh_token }).expect(200)).body.active, true);
    assert.equal((await introspect(admin, { token: personal.token }).expect(200)).body.active, true);

    await t.http().patch(`/api/v2/users/${doraId}/`).set('Authorization', admin).send({ is_active: false }).expect(200);
    for (const token of [granted.body.access_token, granted.body.refresh_token]) {
      assert.deepEqual((await introspect(asClient(cli), { token }).expect(200)).body, { active: false });
      assert.deepEqual((await introspect(admin, { token }).expect(200)).body, { active: false });
    }
    assert.deepEqual((await introspect(admin, { token: personal.token }).expect(200)).body, { active: false });
    await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${personal.token}`).expect(401);
  });

  it('is listed at /api/o/ and never writes a secret to the logs', async () => {
    const index = await t.http().get('/api/o/').expect(200);
    assert.equal(index.body.introspect, '/api/o/introspect/');
    assert.deepEqual(secretsInLogs(t, secrets), []);
  });
});
