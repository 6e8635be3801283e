import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { clientBasic, RegisteredApp, registerApp, tokenRequest } from './support/oauth2';
import { countEvents } from './support/log-events';

const bearer = (token: string) => `Bearer ${token}`;

describe('/api/o/token/ and /api/o/revoke_token/ (RFC 6749, RFC 7009)', () => {
  let t: TestApp;
  let ds: DataSource;
  const admin = basic('admin', ADMIN_PASSWORD);
  const secrets: string[] = [];
  let confidential: RegisteredApp;
  let publicApp: RegisteredApp;
  let other: RegisteredApp;
  let codeApp: RegisteredApp;

  const conf = () => ({ clientId: confidential.clientId, secret: confidential.clientSecret });
  const alicePassword = { grant_type: 'password', username: 'alice', password: 'Alice-pass-1' };

  /** A successful token response, its secrets remembered for the log scan. */
  async function grant(form: Record<string, string>, client: { clientId: string; secret?: string } = conf()) {
    const res = await tokenRequest(t, form, client);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    secrets.push(res.body.access_token, res.body.refresh_token);
    return res.body as { access_token: string; refresh_token: string; scope: string; expires_in: number; token_type: string };
  }

  async function oauthError(res: { status: number; body: Record<string, unknown> }, status: number, error: string) {
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.error, error);
    assert.equal(typeof res.body.error_description, 'string');
  }

  before(async () => {
    t = await startTestApp();
    ds = t.app.get<DataSource>(getDataSourceToken());
    await t.createUser('alice', 'Alice-pass-1');
    confidential = await registerApp(t, admin, { name: 'cli', client_type: 'confidential', authorization_grant_type: 'password' });
    publicApp = await registerApp(t, admin, { name: 'public', client_type: 'public', authorization_grant_type: 'password' });
    other = await registerApp(t, admin, { name: 'other', client_type: 'confidential', authorization_grant_type: 'password' });
    codeApp = await registerApp(t, admin, {
      name: 'web', client_type: 'confidential', authorization_grant_type: 'authorization-code', redirect_uris: 'https://app.example.com/cb',
    });
    secrets.push(confidential.clientSecret!, other.clientSecret!, codeApp.clientSecret!);
  });
  after(() => t.close());

  it('password grant: 200 with access and refresh token, no-store, usable as a bearer token', async () => {
    const res = await tokenRequest(t, alicePassword, conf()).expect(200);
    secrets.push(res.body.access_token, res.body.refresh_token);
    assert.deepEqual(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.expires_in, 31536000000);
    assert.equal(res.body.scope, 'write');
    assert.match(res.body.access_token, /^svca_[0-9A-Za-z]{43}$/);
    assert.match(res.body.refresh_token, /^svcr_[0-9A-Za-z]{43}$/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers.pragma, 'no-cache');
    assert.match(res.headers['content-type'], /^application\/json/);
    const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(res.body.access_token)).expect(200);
    assert.equal(me.body.results[0].username, 'alice');
    const listed = await t.http().get(`/api/v2/users/${me.body.results[0].id}/authorized_tokens/`).set('Authorization', bearer(res.body.access_token)).expect(200);
    assert.equal(listed.body.results[0].application, confidential.id);
  });

  it('takes client credentials from the body, and public clients by client_id alone', async () => {
    const body = await tokenRequest(t, { ...alicePassword, client_id: confidential.clientId, client_secret: confidential.clientSecret! }).expect(200);
    secrets.push(body.body.access_token, body.body.refresh_token);
    const pub = await grant(alicePassword, { clientId: publicApp.clientId });
    assert.match(pub.access_token, /^svca_/);
    await tokenRequest(t, alicePassword, { clientId: publicApp.clientId, secret: '' }).expect(200).then((r) => secrets.push(r.body.access_token, r.body.refresh_token));
  });

  it('issues the requested scope; a read token is read-only', async () => {
    const read = await grant({ ...alicePassword, scope: 'read' });
    assert.equal(read.scope, 'read');
    await t.http().get('/api/v2/me/').set('Authorization', bearer(read.access_token)).expect(200);
    await t.http().post('/api/v2/tokens/').set('Authorization', bearer(read.access_token)).send({}).expect(403);
    assert.equal((await grant({ ...alicePassword, scope: 'read write' })).scope, 'read write');
  });

  it('answers each RFC 6749 error code with its JSON shape', async () => {
    await oauthError(await tokenRequest(t, { username: 'alice', password: 'x' }, conf()), 400, 'invalid_request');
    await oauthError(await t.http().post('/api/o/token/').type('form').set('Authorization', clientBasic(confidential.clientId, confidential.clientSecret))
      .send('grant_type=password&username=alice&username=bob&password=x'), 400, 'invalid_request');
    await oauthError(await t.http().post('/api/o/token/').type('form').set('Authorization', clientBasic(confidential.clientId, confidential.clientSecret))
      .send({ ...alicePassword, client_secret: confidential.clientSecret! }), 400, 'invalid_request');
    const badClient = await tokenRequest(t, alicePassword, { clientId: confidential.clientId, secret: 'wrong' });
    await oauthError(badClient, 401, 'invalid_client');
    assert.equal(badClient.headers['www-authenticate'], 'Basic realm="api"');
    assert.equal(badClient.headers['cache-control'], 'no-store');
    await oauthError(await tokenRequest(t, alicePassword, { clientId: confidential.clientId }), 401, 'invalid_client');
    await oauthError(await tokenRequest(t, alicePassword, { clientId: 'no-such-client', secret: 'x' }), 401, 'invalid_client');
    await oauthError(await tokenRequest(t, alicePassword), 401, 'invalid_client');
    const wrongPassword = await tokenRequest(t, { ...alicePassword, password: 'nope' }, conf());
    await oauthError(wrongPassword, 400, 'invalid_grant');
    const unknownUser = await tokenRequest(t, { ...alicePassword, username: 'nobody', password: 'nope' }, conf());
    assert.deepEqual(unknownUser.body, wrongPassword.body, 'no user enumeration');
    await oauthError(await tokenRequest(t, { grant_type: 'authorization_code', code: 'svcc_x' }, conf()), 400, 'unauthorized_client');
    await oauthError(await tokenRequest(t, { grant_type: 'client_credentials' }, conf()), 400, 'unauthorized_client');
    await oauthError(await tokenRequest(t, { grant_type: 'urn:example:magic' }, conf()), 400, 'unsupported_grant_type');
    await oauthError(await tokenRequest(t, { ...alicePassword, scope: 'admin' }, conf()), 400, 'invalid_scope');
    await oauthError(await tokenRequest(t, { ...alicePassword, scope: 'read read' }, conf()), 400, 'invalid_scope');
    const json = await t.http().post('/api/o/token/').set('Authorization', clientBasic(confidential.clientId, confidential.clientSecret)).send(alicePassword);
    assert.equal(json.status, 415, 'the token endpoint takes form bodies only');
  });

  it('treats a basic header at the token endpoint as client authentication only', async () => {
    const res = await t.http().post('/api/o/token/').type('form').set('Authorization', basic('alice', 'Alice-pass-1')).send(alicePassword);
    await oauthError(res, 401, 'invalid_client');
  });

  it('checks the password grant like every password path: one login_failed event, local auth switch', async () => {
    const before = t.logs.length;
    await tokenRequest(t, { ...alicePassword, password: 'wrong-again' }, conf()).expect(400);
    const events = t.logs.slice(before).map((l) => JSON.parse(l));
    assert.ok(events.some((e) => e.event === 'login_failed' && e.method === 'password_grant' && e.username === 'alice'));
    assert.ok(!t.logs.slice(before).join('\n').includes('wrong-again'), 'the password is not logged');
    const pair = await grant(alicePassword);
    await t.settings({ DISABLE_LOCAL_AUTH: true });
    await oauthError(await tokenRequest(t, alicePassword, conf()), 400, 'invalid_grant');
    await oauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: pair.refresh_token }, conf()), 400, 'invalid_grant');
    await t.settings({ DISABLE_LOCAL_AUTH: false });
    await grant({ grant_type: 'refresh_token', refresh_token: pair.refresh_token });
  });

  it('throttles the password grant like the other password paths: 429 with Retry-After, even for the right password', async () => {
    await t.createUser('guessed', 'Guessed-pass-1');
    await t.settings({ LOGIN_FAILURES_ALLOWED: 3 });
    const attempt = (password: string) => tokenRequest(t, { grant_type: 'password', username: 'guessed', password }, conf());
    for (let i = 0; i < 3; i++) await oauthError(await attempt('wrong'), 400, 'invalid_grant');
    const throttled = await attempt('Guessed-pass-1');
    assert.equal(throttled.status, 429, JSON.stringify(throttled.body));
    assert.ok(Number(throttled.headers['retry-after']) > 0);
    assert.match(throttled.body.detail, /Too many failed login attempts/);
    t.clock.advance(901);
    await grant({ grant_type: 'password', username: 'guessed', password: 'Guessed-pass-1' });
    await t.settings({ LOGIN_FAILURES_ALLOWED: 5 });
  });

  it('rotates refresh tokens: the old pair dies, and reusing a rotated token revokes the whole family', async () => {
    const first = await grant(alicePassword);
    const second = await grant({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.equal(second.scope, 'write');
    await t.http().get('/api/v2/me/').set('Authorization', bearer(first.access_token)).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(second.access_token)).expect(200);
    // Replay of the rotated token: refused, and the live descendant is revoked too.
    await oauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, conf()), 400, 'invalid_grant');
    await t.http().get('/api/v2/me/').set('Authorization', bearer(second.access_token)).expect(401);
    await oauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: second.refresh_token }, conf()), 400, 'invalid_grant');
    assert.ok(t.logs.some((l) => l.includes('"event":"refresh_token_reused"')));
  });

  it('lets exactly one of three racing refreshes of one token rotate it; the others are refused as a reuse', async () => {
    const first = await grant(alicePassword);
    const logged = t.logs.length;
    const results = await Promise.all([0, 1, 2].map(() => tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, conf())));
    // One event per racer: the compare-and-swap's winner rotated, the losers reused (a lock that refused
    // every racer would show no rotation).
    assert.deepEqual(countEvents(t.logs.slice(logged).join('\n'), ['refresh_token_rotated', 'refresh_token_reused']), { refresh_token_rotated: 1, refresh_token_reused: 2 });
    for (const r of results.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error, 'invalid_grant');
    }
    // The winner is answered with its pair unless a loser revoked the family first (SPEC §5); either way no
    // token of the family is left alive.
    const ok = results.filter((r) => r.status === 200);
    assert.ok(ok.length === 1 || results.every((r) => r.status === 400), results.map((r) => r.status).join(' '));
    for (const r of ok) {
      secrets.push(r.body.access_token, r.body.refresh_token);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(r.body.access_token)).expect(401);
    }
    const hash = createHash('sha256').update(first.refresh_token).digest('hex');
    const [{ family }] = await ds.query('SELECT family FROM oauth2_refresh_token WHERE token_hash = ?', [hash]);
    const [{ n }] = await ds.query('SELECT COUNT(*) AS n FROM oauth2_refresh_token WHERE family = ? AND revoked_at IS NULL', [family]);
    assert.equal(Number(n), 0, `${n} live refresh tokens in the family`);
  });

  it('narrows scope on refresh and refuses to widen it; binds the refresh token to its client', async () => {
    const read = await grant({ ...alicePassword, scope: 'read' });
    await oauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: read.refresh_token, scope: 'write' }, conf()), 400, 'invalid_scope');
    await oauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: read.refresh_token, scope: 'read read' }, conf()), 400, 'invalid_scope');
    // A refused scope does not cost the client its grant.
    assert.equal((await grant({ grant_type: 'refresh_token', refresh_token: read.refresh_token })).scope, 'read');
    const full = await grant(alicePassword);
    await oauthError(
      await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: full.refresh_token }, { clientId: other.clientId, secret: other.clientSecret }),
      400,
      'invalid_grant',
    );
    const fresh = await grant(alicePassword);
    const narrowed = await grant({ grant_type: 'refresh_token', refresh_token: fresh.refresh_token, scope: 'read' });
    assert.equal(narrowed.scope, 'read');
    // Without `scope` a write grant stays exactly `write` (the implied `read` is not written into it).
    const kept = await grant({ grant_type: 'refresh_token', refresh_token: (await grant(alicePassword)).refresh_token });
    assert.equal(kept.scope, 'write');
    const both = await grant({ grant_type: 'refresh_token', refresh_token: kept.refresh_token, scope: 'read write' });
    assert.equal(both.scope, 'read write');
  });

  it('expires refresh tokens REFRESH_TOKEN_EXPIRE_SECONDS after the first issue of the family, despite rotation', async () => {
    await t.settings({ OAUTH2_PROVIDER: { REFRESH_TOKEN_EXPIRE_SECONDS: 100 } });
    const first = await grant(alicePassword);
    t.clock.advance(60);
    const second = await grant({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    t.clock.advance(50);
    const res = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: second.refresh_token }, conf());
    await oauthError(res, 400, 'invalid_grant');
    assert.match(res.body.error_description, /expired/);
    await t.settings({ OAUTH2_PROVIDER: {} });
  });

  it('refuses new tokens to external users at the token endpoint too (403 access_denied)', async () => {
    const id = await t.createUser('ext', 'Ext-pass-1');
    const first = await grant({ grant_type: 'password', username: 'ext', password: 'Ext-pass-1' });
    await ds.query("UPDATE auth_user SET external_account = 'social' WHERE id = ?", [id]);
    const res = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, conf());
    await oauthError(res, 403, 'access_denied');
    assert.equal(res.body.error_description, '(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (social)');
  });

  it("refuses a deactivated user's refresh token", async () => {
    const id = await t.createUser('leaver', 'Leaver-pass-1');
    const first = await grant({ grant_type: 'password', username: 'leaver', password: 'Leaver-pass-1' });
    await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', admin).send({ is_active: false }).expect(200);
    await oauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, conf()), 400, 'invalid_grant');
    await t.http().get('/api/v2/me/').set('Authorization', bearer(first.access_token)).expect(401);
  });

  describe('revocation (RFC 7009)', () => {
    const revoke = (form: Record<string, string>, client: { clientId: string; secret?: string } = conf()) =>
      t.http().post('/api/o/revoke_token/').type('form').set('Authorization', clientBasic(client.clientId, client.secret)).send(form);

    it('revokes an access token of the calling client: 200, refused at the next request', async () => {
      const pair = await grant(alicePassword);
      const res = await revoke({ token: pair.access_token }).expect(200);
      assert.equal(res.text, '');
      assert.equal(res.headers['cache-control'], 'no-store');
      await t.http().get('/api/v2/me/').set('Authorization', bearer(pair.access_token)).expect(401);
    });

    it('revokes a refresh token with its grant, also when the hint names the other kind', async () => {
      const pair = await grant(alicePassword);
      await revoke({ token: pair.refresh_token, token_type_hint: 'access_token' }).expect(200);
      await oauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: pair.refresh_token }, conf()), 400, 'invalid_grant');
      await t.http().get('/api/v2/me/').set('Authorization', bearer(pair.access_token)).expect(401);
    });

    it("answers 200 for unknown tokens and never revokes another client's token or a personal token", async () => {
      await revoke({ token: 'svca_doesnotexist' }).expect(200);
      const mine = await grant(alicePassword);
      await revoke({ token: mine.access_token }, { clientId: other.clientId, secret: other.clientSecret }).expect(200);
      await revoke({ token: mine.refresh_token }, { clientId: other.clientId, secret: other.clientSecret }).expect(200);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(mine.access_token)).expect(200);
      const again = await grant({ grant_type: 'refresh_token', refresh_token: mine.refresh_token });
      const pat = await t.http().post('/api/v2/tokens/').set('Authorization', basic('alice', 'Alice-pass-1')).send({}).expect(201);
      secrets.push(pat.body.token);
      await revoke({ token: pat.body.token }).expect(200);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(pat.body.token)).expect(200);
      await t.http().delete(`/api/v2/tokens/${pat.body.id}/`).set('Authorization', basic('alice', 'Alice-pass-1')).expect(204);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(pat.body.token)).expect(401);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(again.access_token)).expect(200);
    });

    it('authenticates the client first (401 invalid_client) and needs the token parameter', async () => {
      const pair = await grant(alicePassword);
      const res = await revoke({ token: pair.access_token }, { clientId: confidential.clientId, secret: 'wrong' });
      await oauthError(res, 401, 'invalid_client');
      assert.equal(res.headers['www-authenticate'], 'Basic realm="api"');
      await t.http().get('/api/v2/me/').set('Authorization', bearer(pair.access_token)).expect(200);
      await oauthError(await revoke({}), 400, 'invalid_request');
      const pub = await grant(alicePassword, { clientId: publicApp.clientId });
      await t.http().post('/api/o/revoke_token/').type('form').send({ client_id: publicApp.clientId, token: pub.access_token }).expect(200);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(pub.access_token)).expect(401);
    });
  });

  it('never logs a token or client secret', () => {
    const joined = t.logs.join('\n');
    const present = secrets.filter((s) => s && joined.includes(s));
    assert.deepEqual(present, []);
    assert.ok(secrets.length >= 30);
    assert.ok(!/svc[pacrs]_[0-9A-Za-z]{43}/.test(joined));
  });
});
