import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Scheduler } from '../src/common/scheduler';
import { LastUsedBuffer } from '../src/tokens/last-used.buffer';
import { registerApp, RegisteredApp, redirectParams, secretsInLogs, tokenRequest } from './support/oauth2';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';

const bearer = (token: string) => `Bearer ${token}`;
const REDIRECT = 'https://app.example.com/callback';
const DEFAULT_LIFETIME = 31536000000;
const WEEK = 604800;

/** Seconds between a token resource's `created` and `expires`. */
const lifetimeOf = (token: Record<string, any>) => (Date.parse(token.expires) - Date.parse(token.created)) / 1000;

/** The `token_expiring` lines logged for one token so far. */
function expiringLines(t: TestApp, tokenId: number): Record<string, unknown>[] {
  return t.logs
    .filter((l) => l.startsWith('{') && l.includes('"token_expiring"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.event === 'token_expiring' && l.token_id === tokenId);
}

/** SPEC §15: the lifetime policy, expiry notices, rotation and last_used_ip, through HTTP on the real app. */
describe(`token lifetime, expiry notices, rotation and last_used_ip (SPEC §15) [${TEST_DB}]`, () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);
  const alice = basic('alice', 'Alice-pass-1');
  const bob = basic('bob', 'Bob-pass-1');
  const auditor = basic('audrey', 'Audrey-pass-1');
  let aliceId: number;
  const secrets: string[] = [];
  let passwordApp: RegisteredApp;
  let trustedCode: RegisteredApp;
  let trustedImplicit: RegisteredApp;

  async function createToken(who: string, body: Record<string, unknown> = {}, path = '/api/v2/tokens/') {
    const res = await t.http().post(path).set('Authorization', who).send(body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    secrets.push(res.body.token);
    return res.body as Record<string, any>;
  }

  async function tokenResource(id: number, who = admin) {
    return (await t.http().get(`/api/v2/tokens/${id}/`).set('Authorization', who).expect(200)).body as Record<string, any>;
  }

  /** The newest of alice's tokens for an application (a grant's token has no id in the grant's answer). */
  async function newestAppToken(app: RegisteredApp) {
    const res = await t.http().get(`/api/v2/users/${aliceId}/authorized_tokens/?application=${app.id}&order_by=-id`).set('Authorization', alice).expect(200);
    return res.body.results[0] as Record<string, any>;
  }

  async function passwordGrant() {
    const res = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'Alice-pass-1' }, { clientId: passwordApp.clientId }).expect(200);
    secrets.push(res.body.access_token, res.body.refresh_token);
    return res.body as { access_token: string; refresh_token: string; expires_in: number };
  }

  async function metric(name: string): Promise<number> {
    const text = (await t.http().get('/api/v2/metrics/').set('Authorization', admin).expect(200)).text;
    const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
    assert.ok(match, `${name} is exposed`);
    return Number(match![1]);
  }

  before(async () => {
    t = await startTestApp();
    aliceId = await t.createUser('alice', 'Alice-pass-1');
    await t.createUser('bob', 'Bob-pass-1');
    await t.createUser('audrey', 'Audrey-pass-1', { is_system_auditor: true });
    passwordApp = await registerApp(t, alice, { name: 'CLI', client_type: 'public', authorization_grant_type: 'password' });
    trustedCode = await registerApp(t, admin, {
      name: 'Trusted web', client_type: 'confidential', authorization_grant_type: 'authorization-code', redirect_uris: REDIRECT, skip_authorization: true,
    });
    trustedImplicit = await registerApp(t, admin, {
      name: 'Trusted SPA', client_type: 'public', authorization_grant_type: 'implicit', redirect_uris: REDIRECT, skip_authorization: true,
    });
    secrets.push(trustedCode.clientSecret!);
  });
  after(() => t.close());

  describe('the lifetime policy', () => {
    it('has both settings in the authentication category, with their defaults and bounds', async () => {
      const settings = await t.http().get('/api/v2/settings/authentication/').set('Authorization', admin).expect(200);
      assert.equal(settings.body.TOKEN_MAX_LIFETIME_SECONDS, 0);
      assert.equal(settings.body.TOKEN_EXPIRY_WARNING_SECONDS, WEEK);
      for (const [key, value, message] of [
        ['TOKEN_MAX_LIFETIME_SECONDS', -1, 'Ensure this value is greater than or equal to 0.'],
        ['TOKEN_MAX_LIFETIME_SECONDS', 1.5, 'A valid integer is required.'],
        ['TOKEN_EXPIRY_WARNING_SECONDS', 'soon', 'A valid integer is required.'],
      ] as const) {
        const res = await t.http().patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ [key]: value }).expect(400);
        assert.deepEqual(res.body, { [key]: [message] });
      }
    });

    it('gives a personal token ACCESS_TOKEN_EXPIRE_SECONDS by default, capped by TOKEN_MAX_LIFETIME_SECONDS', async () => {
      assert.equal(lifetimeOf(await createToken(alice)), DEFAULT_LIFETIME);
      await t.settings({ OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: 7200 } });
      try {
        assert.equal(lifetimeOf(await createToken(alice)), 7200);
        await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 3600 });
        const capped = await createToken(alice);
        assert.equal(lifetimeOf(capped), 3600);
        assert.equal(lifetimeOf(await tokenResource(capped.id)), 3600, 'as stored');
        assert.equal(lifetimeOf(await createToken(alice, {}, `/api/v2/users/${aliceId}/personal_tokens/`)), 3600, 'every creation route');
      } finally {
        await t.settings({ OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: DEFAULT_LIFETIME }, TOKEN_MAX_LIFETIME_SECONDS: 0 });
      }
    });

    it('takes expires_in from 60 seconds to the cap, and names it in a 400 otherwise', async () => {
      assert.equal(lifetimeOf(await createToken(alice, { expires_in: 60 })), 60);
      assert.equal(lifetimeOf(await createToken(alice, { expires_in: 86400, description: 'a day' })), 86400);
      const refused = async (body: Record<string, unknown>, message: string) => {
        const res = await t.http().post('/api/v2/tokens/').set('Authorization', alice).send(body).expect(400);
        assert.deepEqual(res.body, { expires_in: [message] });
      };
      await refused({ expires_in: 59 }, 'Ensure this value is greater than or equal to 60.');
      await refused({ expires_in: 0 }, 'Ensure this value is greater than or equal to 60.');
      await refused({ expires_in: 3600.5 }, 'A valid integer is required.');
      await refused({ expires_in: '3600' }, 'A valid integer is required.');
      await refused({ expires_in: null }, 'A valid integer is required.');
      await refused({ expires_in: DEFAULT_LIFETIME + 1 }, `Ensure this value is less than or equal to ${DEFAULT_LIFETIME}.`);
      await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 3600 });
      try {
        await refused({ expires_in: 3601 }, 'Ensure this value is less than or equal to 3600.');
        await refused({ expires_in: 3601, application: passwordApp.id }, 'Ensure this value is less than or equal to 3600.');
        assert.equal(lifetimeOf(await createToken(alice, { expires_in: 3600 })), 3600);
        const forApp = await createToken(alice, { expires_in: 120, application: passwordApp.id }, `/api/v2/users/${aliceId}/authorized_tokens/`);
        assert.equal(lifetimeOf(forApp), 120);
        assert.match(forApp.token, /^svca_/);
      } finally {
        await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 0 });
      }
      const created = await createToken(alice, { expires_in: 600 });
      const patched = await t.http().patch(`/api/v2/tokens/${created.id}/`).set('Authorization', alice).send({ expires_in: 60, description: 'changed' }).expect(200);
      assert.equal(patched.body.expires, created.expires, 'expires_in is not a field a change can set');
      assert.equal(patched.body.description, 'changed');
    });

    it("caps every grant's token and reports the stored lifetime as expires_in (password, refresh, code, implicit)", async () => {
      const before = await passwordGrant();
      assert.equal(before.expires_in, DEFAULT_LIFETIME);
      await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 600 });
      try {
        const pair = await passwordGrant();
        assert.equal(pair.expires_in, 600);
        const stored = await newestAppToken(passwordApp);
        assert.equal(lifetimeOf(stored), 600, 'the stored expires agrees with expires_in');
        await t.http().get('/api/v2/me/').set('Authorization', bearer(pair.access_token)).expect(200);

        const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: pair.refresh_token }, { clientId: passwordApp.clientId }).expect(200);
        secrets.push(refreshed.body.access_token, refreshed.body.refresh_token);
        assert.equal(refreshed.body.expires_in, 600);
        assert.equal(lifetimeOf(await newestAppToken(passwordApp)), 600);

        const authorized = await t.http().get('/api/o/authorize/').query({ response_type: 'code', client_id: trustedCode.clientId, redirect_uri: REDIRECT })
          .set('Authorization', alice).expect(302);
        const code = redirectParams(authorized.headers.location).get('code')!;
        const redeemed = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, { clientId: trustedCode.clientId, secret: trustedCode.clientSecret }).expect(200);
        secrets.push(code, redeemed.body.access_token, redeemed.body.refresh_token);
        assert.equal(redeemed.body.expires_in, 600);
        assert.equal(lifetimeOf(await newestAppToken(trustedCode)), 600);

        const implicit = await t.http().get('/api/o/authorize/').query({ response_type: 'token', client_id: trustedImplicit.clientId, redirect_uri: REDIRECT })
          .set('Authorization', alice).expect(302);
        const fragment = redirectParams(implicit.headers.location, 'fragment');
        secrets.push(fragment.get('access_token')!);
        assert.equal(fragment.get('expires_in'), '600');
        assert.equal(lifetimeOf(await newestAppToken(trustedImplicit)), 600);

        // Below the cap the configured lifetime stands.
        await t.settings({ OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: 300 } });
        assert.equal((await passwordGrant()).expires_in, 300);
      } finally {
        await t.settings({ OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: DEFAULT_LIFETIME }, TOKEN_MAX_LIFETIME_SECONDS: 0 });
      }
    });
  });

  describe('rotation: POST /api/v2/tokens/N/rotate/', () => {
    it('answers 201 with a new token (new id and secret, shown once; same description, scope and application) and kills the old one at once', async () => {
      const old = await createToken(alice, { description: 'deploy', scope: 'write', expires_in: 7200 });
      await t.http().get('/api/v2/me/').set('Authorization', bearer(old.token)).expect(200);
      const res = await t.http().post(`/api/v2/tokens/${old.id}/rotate/`).set('Authorization', alice).send({}).expect(201);
      secrets.push(res.body.token);
      assert.notEqual(res.body.id, old.id);
      assert.match(res.body.token, /^svcp_[0-9A-Za-z]{43}$/);
      assert.notEqual(res.body.token, old.token);
      assert.equal(res.body.description, 'deploy');
      assert.equal(res.body.scope, 'write');
      assert.equal(res.body.application, null);
      assert.equal(res.body.user, aliceId);
      assert.equal(res.body.refresh_token, null);
      assert.equal(res.body.last_used, null);
      assert.equal(lifetimeOf(res.body), 7200, 'the lifetime the old token was given, afresh');
      assert.ok(Date.parse(res.body.expires) >= Date.parse(old.expires));
      assert.match(res.headers['cache-control'], /no-store/);
      const refused = await t.http().get('/api/v2/me/').set('Authorization', bearer(old.token)).expect(401);
      assert.deepEqual(refused.body, { detail: 'Invalid or revoked token.' });
      await t.http().get(`/api/v2/tokens/${old.id}/`).set('Authorization', alice).expect(404);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(res.body.token)).expect(200);
      assert.equal((await tokenResource(res.body.id, alice)).token, '************', 'shown once');
      // The old one cannot be rotated again.
      await t.http().post(`/api/v2/tokens/${old.id}/rotate/`).set('Authorization', alice).send({}).expect(404);
    });

    it('gives the new token a fresh lifetime under the policy, or the expires_in asked for', async () => {
      const old = await createToken(alice, { expires_in: 7200 });
      await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 3600 });
      try {
        const capped = await t.http().post(`/api/v2/tokens/${old.id}/rotate/`).set('Authorization', alice).send({}).expect(201);
        secrets.push(capped.body.token);
        assert.equal(lifetimeOf(capped.body), 3600);
        const above = await t.http().post(`/api/v2/tokens/${capped.body.id}/rotate/`).set('Authorization', alice).send({ expires_in: 3601 }).expect(400);
        assert.deepEqual(above.body, { expires_in: ['Ensure this value is less than or equal to 3600.'] });
        await t.http().get('/api/v2/me/').set('Authorization', bearer(capped.body.token)).expect(200);
        const asked = await t.http().post(`/api/v2/tokens/${capped.body.id}/rotate/`).set('Authorization', alice).send({ expires_in: 300 }).expect(201);
        secrets.push(asked.body.token);
        assert.equal(lifetimeOf(asked.body), 300);
      } finally {
        await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 0 });
      }
    });

    it('lets a write token rotate itself, so a script can renew its own credential', async () => {
      const own = await createToken(alice, { description: 'script' });
      const res = await t.http().post(`/api/v2/tokens/${own.id}/rotate/`).set('Authorization', bearer(own.token)).expect(201);
      secrets.push(res.body.token);
      assert.equal(res.body.description, 'script');
      await t.http().get('/api/v2/me/').set('Authorization', bearer(own.token)).expect(401);
      const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(res.body.token)).expect(200);
      assert.equal(me.body.results[0].username, 'alice');
    });

    it('refuses a read token (it cannot POST), and keeps it working', async () => {
      const read = await createToken(alice, { scope: 'read' });
      const res = await t.http().post(`/api/v2/tokens/${read.id}/rotate/`).set('Authorization', bearer(read.token)).send({}).expect(403);
      assert.match(res.headers['www-authenticate'], /error="insufficient_scope"/);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(read.token)).expect(200);
      // Its owner may rotate it; the new token is read-only too.
      const rotated = await t.http().post(`/api/v2/tokens/${read.id}/rotate/`).set('Authorization', alice).send({}).expect(201);
      secrets.push(rotated.body.token);
      assert.equal(rotated.body.scope, 'read');
      await t.http().post('/api/v2/tokens/').set('Authorization', bearer(rotated.body.token)).send({}).expect(403);
    });

    it("lets a superuser rotate anyone's token (it stays the owner's); others get 404, auditors 403, anonymous 401", async () => {
      const mine = await createToken(alice, { description: 'ops' });
      await t.http().post(`/api/v2/tokens/${mine.id}/rotate/`).set('Authorization', bob).send({}).expect(404);
      await t.http().post(`/api/v2/tokens/${mine.id}/rotate/`).set('Authorization', auditor).send({}).expect(403);
      await t.http().post(`/api/v2/tokens/${mine.id}/rotate/`).send({}).expect(401);
      await t.http().post('/api/v2/tokens/999999/rotate/').set('Authorization', admin).send({}).expect(404);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(mine.token)).expect(200);
      const res = await t.http().post(`/api/v2/tokens/${mine.id}/rotate/`).set('Authorization', admin).send({}).expect(201);
      secrets.push(res.body.token);
      assert.equal(res.body.user, aliceId);
      assert.equal(res.body.summary_fields.user.username, 'alice');
      await t.http().get('/api/v2/me/').set('Authorization', bearer(mine.token)).expect(401);
      const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(res.body.token)).expect(200);
      assert.equal(me.body.results[0].username, 'alice');
      const line = t.logs.map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((l) => l.event === 'token_rotated' && l.token_id === mine.id);
      assert.equal(line?.new_token_id, res.body.id);
    });

    it("rotates an application token inside its grant: the grant's refresh token moves to the new token, only the old access token dies", async () => {
      const pair = await passwordGrant();
      const old = await newestAppToken(passwordApp);
      const res = await t.http().post(`/api/v2/tokens/${old.id}/rotate/`).set('Authorization', alice).send({}).expect(201);
      secrets.push(res.body.token);
      assert.match(res.body.token, /^svca_/);
      assert.equal(res.body.application, passwordApp.id);
      assert.equal(res.body.scope, old.scope);
      assert.equal(res.body.refresh_token, '************', 'the live refresh token belongs to the new token now (its secret is not shown again)');
      await t.http().get('/api/v2/me/').set('Authorization', bearer(pair.access_token)).expect(401);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(res.body.token)).expect(200);
      // The client's grant lives on: its refresh token still works, and, as any refresh does, replaces the grant's access token.
      const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: pair.refresh_token }, { clientId: passwordApp.clientId }).expect(200);
      secrets.push(refreshed.body.access_token, refreshed.body.refresh_token);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(res.body.token)).expect(401);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(refreshed.body.access_token)).expect(200);
      // The rotated token was in the grant's family: a reuse of the old refresh token still revokes all of it.
      const reuse = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: pair.refresh_token }, { clientId: passwordApp.clientId });
      assert.equal(reuse.body.error, 'invalid_grant');
      await t.http().get('/api/v2/me/').set('Authorization', bearer(refreshed.body.access_token)).expect(401);
    });

    it('a rotated application token dies with its family when the grant is revoked', async () => {
      const pair = await passwordGrant();
      const old = await newestAppToken(passwordApp);
      const rotated = await t.http().post(`/api/v2/tokens/${old.id}/rotate/`).set('Authorization', alice).send({}).expect(201);
      secrets.push(rotated.body.token);
      await t.http().delete(`/api/v2/tokens/${rotated.body.id}/`).set('Authorization', alice).expect(204);
      const refused = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: pair.refresh_token }, { clientId: passwordApp.clientId });
      assert.equal(refused.body.error, 'invalid_grant', 'DELETE of the rotated token still ends the whole grant');
    });

    it('lets exactly one of two concurrent rotations of one token win', async () => {
      const token = await createToken(alice, { description: 'raced' });
      const results = await Promise.all([1, 2].map(() => t.http().post(`/api/v2/tokens/${token.id}/rotate/`).set('Authorization', alice).send({})));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 404]);
      const winner = results.find((r) => r.status === 201)!;
      secrets.push(winner.body.token);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(winner.body.token)).expect(200);
      const listed = await t.http().get('/api/v2/tokens/?description=raced').set('Authorization', alice).expect(200);
      assert.deepEqual(listed.body.results.map((r: { id: number }) => r.id), [winner.body.id], 'the loser left no token behind');
    });
  });

  describe('last_used_ip', () => {
    it('shows the address of the latest use after a flush, filterable like last_used, written with last_used in one batch', async () => {
      const token = await createToken(bob, { description: 'ip probe' });
      assert.equal(token.last_used_ip, null);
      await t.http().get('/api/v2/me/').set('Authorization', bearer(token.token)).expect(200);
      assert.ok((await t.app.get(LastUsedBuffer).flush()) >= 1);
      const shown = await tokenResource(token.id, bob);
      assert.equal(shown.last_used_ip, '127.0.0.1');
      assert.ok(shown.last_used);
      const found = await t.http().get('/api/v2/tokens/?last_used_ip=127.0.0.1&description=ip%20probe').set('Authorization', bob).expect(200);
      assert.deepEqual(found.body.results.map((r: { id: number }) => r.id), [token.id]);
      const none = await t.http().get('/api/v2/tokens/?last_used_ip=10.0.0.1&description=ip%20probe').set('Authorization', bob).expect(200);
      assert.equal(none.body.count, 0);
      const unused = await t.http().get('/api/v2/tokens/?last_used_ip__isnull=true').set('Authorization', bob).expect(200);
      assert.ok(!unused.body.results.some((r: { id: number }) => r.id === token.id));
      // Another node reads it from the row.
      const other = await startTestApp({ db: t.db });
      try {
        const res = await other.http().get(`/api/v2/tokens/${token.id}/`).set('Authorization', bob).expect(200);
        assert.equal(res.body.last_used_ip, '127.0.0.1');
      } finally {
        await other.close();
      }
    });
  });

  describe('expiry: the Expires soon mark, token_expiring once, svc_tokens_expiring_soon', () => {
    it('gives the profile page the warning window and the server time for the Expires soon mark', async () => {
      const page = await t.http().get('/accounts/profile/').set('Authorization', alice).expect(200);
      assert.match(page.text, new RegExp(`data-token-expiry-warning="${WEEK}"`));
      const at = /data-server-time="([^"]+)"/.exec(page.text)?.[1];
      assert.ok(at && Math.abs(Date.parse(at) - t.clock.now().getTime()) < 60_000, 'the server clock, not the browser one');
      await t.settings({ TOKEN_EXPIRY_WARNING_SECONDS: 3600 });
      try {
        const changed = await t.http().get('/accounts/profile/').set('Authorization', alice).expect(200);
        assert.match(changed.text, /data-token-expiry-warning="3600"/);
      } finally {
        await t.settings({ TOKEN_EXPIRY_WARNING_SECONDS: WEEK });
      }
      const script = await t.http().get('/static/profile.js').expect(200);
      assert.match(script.text, /Expires soon/);
      assert.match(script.text, /\/rotate\//);
    });

    it('counts live tokens expiring within the window in svc_tokens_expiring_soon, at scrape time', async () => {
      const start = await metric('svc_tokens_expiring_soon');
      const soon = [await createToken(bob, { expires_in: 3600 }), await createToken(bob, { expires_in: WEEK })];
      await createToken(bob, { expires_in: WEEK + 3600 });
      await createToken(bob);
      assert.equal(await metric('svc_tokens_expiring_soon'), start + 2);
      await t.http().delete(`/api/v2/tokens/${soon[0].id}/`).set('Authorization', bob).expect(204);
      assert.equal(await metric('svc_tokens_expiring_soon'), start + 1);
      await t.settings({ TOKEN_EXPIRY_WARNING_SECONDS: 0 });
      try {
        assert.equal(await metric('svc_tokens_expiring_soon'), 0, 'a window of 0 turns it off');
      } finally {
        await t.settings({ TOKEN_EXPIRY_WARNING_SECONDS: WEEK });
      }
      await t.http().delete(`/api/v2/tokens/${soon[1].id}/`).set('Authorization', bob).expect(204);
      assert.equal(await metric('svc_tokens_expiring_soon'), start);
    });

    it('leaves out tokens a cut-off revoked, before the clean-up deletes them', async () => {
      const carolId = await t.createUser('carol', 'Carol-pass-1');
      const start = await metric('svc_tokens_expiring_soon');
      await createToken(basic('carol', 'Carol-pass-1'), { expires_in: 3600 });
      assert.equal(await metric('svc_tokens_expiring_soon'), start + 1);
      await t.http().delete(`/api/v2/users/${carolId}/tokens/`).set('Authorization', admin).expect(204);
      assert.equal(await metric('svc_tokens_expiring_soon'), start);
    });

    it('logs token_expiring once per token however often the loop runs, and a token when it enters the window', async () => {
      const soon = await createToken(alice, { expires_in: 3600 });
      const later = await createToken(alice, { expires_in: WEEK + 2 * 86400 });
      const scheduler = t.app.get(Scheduler);
      await scheduler.runNow('token-expiry-notices');
      await scheduler.runNow('token-expiry-notices');
      const lines = expiringLines(t, soon.id);
      assert.equal(lines.length, 1, 'noticed once');
      assert.equal(lines[0].user_id, aliceId);
      assert.equal(lines[0].username, 'alice');
      assert.equal(lines[0].expires, soon.expires);
      assert.equal(lines[0].application_id, null);
      assert.equal(expiringLines(t, later.id).length, 0, 'not yet in the window');
      t.clock.advance(3 * 86400);
      await scheduler.runNow('token-expiry-notices');
      await scheduler.runNow('token-expiry-notices');
      assert.equal(expiringLines(t, later.id).length, 1, 'noticed once it entered the window');
      assert.equal(expiringLines(t, soon.id).length, 1, 'an expired token is not noticed again');
    });

    it('logs each token once even when two nodes on one database run the loop at the same time', async () => {
      const other = await startTestApp({ db: t.db });
      try {
        const tokens = [];
        for (let i = 0; i < 5; i++) tokens.push(await createToken(bob, { expires_in: 7200 }));
        const passes = [t, other, t, other].map((node) => node.app.get(Scheduler).runNow('token-expiry-notices'));
        await Promise.all(passes);
        for (const token of tokens) assert.equal(expiringLines(t, token.id).length, 1, `token ${token.id} logged once`);
      } finally {
        await other.close();
      }
    });
  });

  it('never logs a token secret', () => {
    assert.ok(secrets.length >= 20);
    assert.deepEqual(secretsInLogs(t, secrets), []);
  });
});
