import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Scheduler } from '../src/common/scheduler';
import { PendingStateRepository } from '../src/pending-state/pending-state.repository';
import { PENDING_LOGINS_PER_ADDRESS, PendingStateService } from '../src/pending-state/pending-state.service';
import { SsoUsers } from '../src/sso/sso-users.service';
import { LoginThrottle } from '../src/users/login-throttle.service';
import { DataSource } from 'typeorm';
import { cookieValue } from './support/browser-login';
import { registerApp, tokenRequest } from './support/oauth2';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { NO_REQUEST } from '../src/common/request-context';

/** Findings of the security review (issue 13), each as the rule SPEC now states. */
describe('hardening (SPEC §2, §5, §8)', () => {
  let t: TestApp;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  before(async () => {
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  });
  after(() => t.close());

  describe('changing one\'s own password needs the current one (SPEC §8)', () => {
    it('refuses a missing or wrong old_password with 400 naming it, by basic, bearer and session alike', async () => {
      const id = await t.createUser('olga', 'Olga-pass-1');
      const olga = basic('olga', 'Olga-pass-1');
      const missing = await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', olga).send({ password: 'Olga-pass-2' }).expect(400);
      assert.deepEqual(missing.body, { old_password: ['This field is required.'] });
      const wrong = await t.http().put(`/api/v2/users/${id}/`).set('Authorization', olga).send({ username: 'olga', password: 'Olga-pass-2', old_password: 'nope' }).expect(400);
      assert.deepEqual(Object.keys(wrong.body), ['old_password']);
      const token = (await t.http().post('/api/v2/tokens/').set('Authorization', olga).send({}).expect(201)).body.token;
      await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', `Bearer ${token}`).send({ password: 'Olga-pass-2' }).expect(400);
      const agent = t.agent();
      const page = await agent.get('/api/login/');
      const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
      const loggedIn = await agent.post('/api/login/').set('X-CSRFToken', csrf).type('form').send({ username: 'olga', password: 'Olga-pass-1' }).expect(302);
      const csrf2 = cookieValue(loggedIn.headers['set-cookie'], 'csrftoken')!; // rotated at login
      await agent.patch(`/api/v2/users/${id}/`).set('X-CSRFToken', csrf2).send({ password: 'Olga-pass-2' }).expect(400);
      // Nothing changed: the old password still works, the new one does not.
      await t.http().get('/api/v2/me/').set('Authorization', olga).expect(200);
      await t.http().get('/api/v2/me/').set('Authorization', basic('olga', 'Olga-pass-2')).expect(401);
      // The right one changes it.
      await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', `Bearer ${token}`).send({ password: 'Olga-pass-2', old_password: 'Olga-pass-1' }).expect(200);
      await t.http().get('/api/v2/me/').set('Authorization', basic('olga', 'Olga-pass-2')).expect(200);
    });

    it('counts a wrong old_password for the login throttle', async () => {
      await t.settings({ LOGIN_FAILURES_ALLOWED: 2 });
      try {
        const id = await t.createUser('otto', 'Otto-pass-1');
        const token = (await t.http().post('/api/v2/tokens/').set('Authorization', basic('otto', 'Otto-pass-1')).send({}).expect(201)).body.token;
        const change = (old: string) => t.http().patch(`/api/v2/users/${id}/`).set('Authorization', `Bearer ${token}`).send({ password: 'Otto-pass-2', old_password: old });
        await change('wrong-1').expect(400);
        await change('wrong-2').expect(400);
        const throttled = await change('Otto-pass-1').expect(429);
        assert.ok(Number(throttled.headers['retry-after']) > 0);
        await t.http().get('/api/v2/me/').set('Authorization', basic('otto', 'Otto-pass-1')).expect(429);
      } finally {
        await t.settings({ LOGIN_FAILURES_ALLOWED: 5 });
      }
    });

    it('a superuser sets another user\'s password without it, but not their own', async () => {
      const id = await t.createUser('paul', 'Paul-pass-1');
      await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', admin()).send({ password: 'Paul-pass-2' }).expect(200);
      await t.http().get('/api/v2/me/').set('Authorization', basic('paul', 'Paul-pass-2')).expect(200);
      const me = (await t.http().get('/api/v2/me/').set('Authorization', admin()).expect(200)).body.results[0];
      const own = await t.http().patch(`/api/v2/users/${me.id}/`).set('Authorization', admin()).send({ password: 'Other-admin-1' }).expect(400);
      assert.deepEqual(Object.keys(own.body), ['old_password']);
    });
  });

  describe('OAuth 2 lifetimes are bounded (SPEC §5)', () => {
    it('refuses a lifetime above 31536000000 seconds, naming the setting', async () => {
      for (const key of ['ACCESS_TOKEN_EXPIRE_SECONDS', 'REFRESH_TOKEN_EXPIRE_SECONDS', 'AUTHORIZATION_CODE_EXPIRE_SECONDS']) {
        const res = await t.http().patch('/api/v2/settings/authentication/').set('Authorization', admin()).send({ OAUTH2_PROVIDER: { [key]: 31536000001 } }).expect(400);
        assert.match(res.body.OAUTH2_PROVIDER[0], new RegExp(`${key}: Ensure this value is less than or equal to 31536000000`));
      }
    });

    it('works end to end at the maximum: a token created and listed, a password grant with a refresh token', async () => {
      const max = 31536000000;
      await t.http().patch('/api/v2/settings/authentication/').set('Authorization', admin())
        .send({ OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: max, REFRESH_TOKEN_EXPIRE_SECONDS: max, AUTHORIZATION_CODE_EXPIRE_SECONDS: max } }).expect(200);
      const created = await t.http().post('/api/v2/tokens/').set('Authorization', admin()).send({ description: 'max' }).expect(201);
      assert.ok(new Date(created.body.expires).getUTCFullYear() > 2900);
      const listed = await t.http().get('/api/v2/tokens/?description=max').set('Authorization', admin()).expect(200);
      assert.equal(listed.body.results[0].expires, created.body.expires);
      await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${created.body.token}`).expect(200);
      const app = await registerApp(t, admin(), { name: 'max-app', client_type: 'public', authorization_grant_type: 'password' });
      const grant = await tokenRequest(t, { grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }, { clientId: app.clientId }).expect(200);
      assert.equal(grant.body.expires_in, max);
      const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: grant.body.refresh_token }, { clientId: app.clientId }).expect(200);
      await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${refreshed.body.access_token}`).expect(200);
      await t.http().delete('/api/v2/settings/authentication/').set('Authorization', admin()).expect(204);
    });
  });

  describe('CSRF over https needs an Origin or a Referer (SPEC §2)', () => {
    const https = { 'X-Forwarded-Proto': 'https' };

    it('refuses a login POST and an unsafe session request with neither, with Django\'s message', async () => {
      await t.createUser('hans', 'Hans-pass-1');
      const agent = t.agent();
      const page = await agent.get('/api/login/').set(https);
      const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
      const login = await agent.post('/api/login/').set(https).set('X-CSRFToken', csrf).type('form').send({ username: 'hans', password: 'Hans-pass-1' }).expect(403);
      assert.deepEqual(login.body, { detail: 'CSRF Failed: Referer checking failed - no Referer.' });
      // With its own origin as Referer it goes through; then an unsafe request without either is refused too.
      const loggedIn = await agent.post('/api/login/').set(https).set('Referer', 'https://127.0.0.1/api/login/').set('Host', '127.0.0.1').set('X-CSRFToken', csrf).type('form')
        .send({ username: 'hans', password: 'Hans-pass-1' }).expect(302);
      const csrf2 = cookieValue(loggedIn.headers['set-cookie'], 'csrftoken')!; // rotated at login
      const unsafe = await agent.post('/api/v2/tokens/').set(https).set('X-CSRFToken', csrf2).send({}).expect(403);
      assert.deepEqual(unsafe.body, { detail: 'CSRF Failed: Referer checking failed - no Referer.' });
      await agent.post('/api/v2/tokens/').set(https).set('Origin', 'https://127.0.0.1').set('Host', '127.0.0.1').set('X-CSRFToken', csrf2).send({}).expect(201);
    });

    it('over plain http, neither is needed (as before)', async () => {
      const agent = t.agent();
      const page = await agent.get('/api/login/');
      const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
      await agent.post('/api/login/').set('X-CSRFToken', csrf).type('form').send({ username: 'hans', password: 'Hans-pass-1' }).expect(302);
    });
  });

  describe('single sign-on secrets and subjects (SPEC §7)', () => {
    const providers = (issuer: string, secret: string) => ({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer, client_id: 'svc', client_secret: secret } } });

    it('never keeps a stored client secret for a new issuer', async () => {
      await t.http().patch('/api/v2/settings/oidc/').set('Authorization', admin()).send(providers('https://idp-a.example.com', 'secret-a')).expect(200);
      const moved = await t.http().patch('/api/v2/settings/oidc/').set('Authorization', admin()).send(providers('https://idp-b.example.com', '$encrypted$')).expect(400);
      assert.match(moved.body.SOCIAL_AUTH_OIDC_PROVIDERS[0], /client_secret: The issuer changed/);
      const kept = await t.http().get('/api/v2/settings/oidc/').set('Authorization', admin()).expect(200);
      assert.equal(kept.body.SOCIAL_AUTH_OIDC_PROVIDERS.corp.issuer, 'https://idp-a.example.com', 'nothing was stored');
      // The same issuer keeps the secret; a new issuer with a new secret is fine.
      await t.http().patch('/api/v2/settings/oidc/').set('Authorization', admin()).send(providers('https://idp-a.example.com', '$encrypted$')).expect(200);
      await t.http().patch('/api/v2/settings/oidc/').set('Authorization', admin()).send(providers('https://idp-b.example.com', 'secret-b')).expect(200);
      await t.http().delete('/api/v2/settings/oidc/').set('Authorization', admin()).expect(204);
    });

    it('links subjects exactly: case, accents and trailing spaces make different accounts', async () => {
      const sso = t.app.get(SsoUsers);
      const ids = new Set<number>();
      for (const uid of ['alice', 'Alice', 'alicé', 'alice ']) ids.add((await sso.resolve({ provider: 'saml:corp', uid, username: 'alice' }, NO_REQUEST)).id);
      assert.equal(ids.size, 4, 'four subjects, four accounts');
      assert.equal((await sso.resolve({ provider: 'saml:corp', uid: 'Alice', username: 'alice' }, NO_REQUEST)).id, [...ids][1], 'the same subject logs into its own account again');
    });
  });

  describe('rows anonymous requests create are swept and bounded (issue 13)', () => {
    it('deletes throttle counters whose window has passed, never one in use', async () => {
      const ds = t.app.get(DataSource);
      for (let i = 0; i < 3; i++) await t.http().get('/api/v2/me/').set('X-Forwarded-For', `198.18.0.${i + 1}`).set('Authorization', basic(`ghost-${i}`, 'x')).expect(401);
      // An attempt of its own held in flight: its counter is in use until it ends.
      let counted!: () => void;
      let end!: () => void;
      const inUse = new Promise<void>((resolve) => (counted = resolve));
      const busy = t.app.get(LoginThrottle).attempt({ pairs: [['busy-user', '198.18.0.9']], rightForgives: true }, () => new Promise<void>((resolve) => (counted(), (end = resolve))), () => 'wrong');
      await inUse;
      const count = async () => Number((await ds.query("SELECT COUNT(*) AS n FROM login_failure WHERE client_ip LIKE '198.18.0.%'"))[0].n);
      assert.equal(await count(), 4);
      await t.app.get(Scheduler).runNow('throttle-sweep');
      assert.equal(await count(), 4, 'nothing is due inside the window');
      t.clock.advance(901);
      await t.app.get(Scheduler).runNow('throttle-sweep');
      assert.equal(await count(), 1, 'the three expired counters are gone; the one an attempt holds stays');
      end();
      await busy;
    });

    it(`keeps the newest ${PENDING_LOGINS_PER_ADDRESS} pending logins (second steps) per address, ending the oldest; never refuses one`, async () => {
      const store = t.app.get(PendingStateService);
      const live = async (prefix: string) => {
        const found: string[] = [];
        for (let i = 0; i < PENDING_LOGINS_PER_ADDRESS + 5; i++) if (await store.peek(`${prefix}${i}`)) found.push(`${prefix}${i}`);
        return found;
      };
      // Another address's second steps, and a replay record (no address) the cap never touches.
      for (let i = 0; i < PENDING_LOGINS_PER_ADDRESS; i++) assert.ok(await store.add(`mfa:other-${i}`, 'mfa', { userId: 1 }, 300, '198.18.1.2'));
      assert.ok(await store.add('ssoused:oidc:seen', 'oidc:x', null, 300));
      for (let i = 0; i < PENDING_LOGINS_PER_ADDRESS + 5; i++) {
        t.clock.advance(1); // in order of creation
        assert.ok(await store.add(`mfa:bound-${i}`, 'mfa', { userId: 1 }, 300, '198.18.1.1'), 'a second step is never refused');
      }
      assert.deepEqual(await live('mfa:bound-'), Array.from({ length: PENDING_LOGINS_PER_ADDRESS }, (_, i) => `mfa:bound-${i + 5}`), 'the five oldest are gone');
      assert.equal((await live('mfa:other-')).length, PENDING_LOGINS_PER_ADDRESS, 'other addresses keep theirs');
      assert.ok(await store.peek('ssoused:oidc:seen'), 'a replay record is not a pending login');
      t.clock.advance(601);
      assert.ok((await store.sweep()) >= 2 * PENDING_LOGINS_PER_ADDRESS, 'expired entries are swept');
    });

    it('holds every pending login under a global ceiling, ending those nearest their expiry; replay caches are never evicted', async () => {
      const store = t.app.get(PendingStateService);
      assert.equal(await t.app.get(PendingStateRepository).countPendingLogins(), 0, 'no other pending login in the store');
      assert.ok(await store.add('assertion:idp:seen-1', 'saml:x', null, 60)); // a replay-cache entry: no client address
      for (let i = 0; i < 20; i++) assert.ok(await store.add(`mfa:ceiling-${i}`, 'mfa', {}, 60 + 30 * i, `198.18.2.${i}`));
      assert.equal(await store.sweep(100), 0, 'under the ceiling nothing goes');
      await store.sweep(10);
      const left: number[] = [];
      for (let i = 0; i < 20; i++) if (await store.peek(`mfa:ceiling-${i}`)) left.push(i);
      assert.deepEqual(left, [10, 11, 12, 13, 14, 15, 16, 17, 18, 19], 'the ten nearest their expiry went first');
      assert.ok(await store.peek('assertion:idp:seen-1'), 'the replay cache is not a pending login');
    });
  });
});
