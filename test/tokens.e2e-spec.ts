import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Scheduler } from '../src/common/scheduler';
import { LastUsedBuffer } from '../src/tokens/last-used.buffer';
import { TokenRevocationService } from '../src/tokens/token-revocation.service';
import { TokensService } from '../src/tokens/tokens.service';
import { UsersService } from '../src/users/users.service';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { createTestDatabase } from './support/test-db';
import { NO_REQUEST } from '../src/common/request-context';

const FIELDS = [
  'id', 'type', 'url', 'related', 'summary_fields', 'created', 'modified', 'description', 'user', 'token',
  'refresh_token', 'application', 'expires', 'scope', 'last_used', 'last_used_ip',
];
const SCOPE_MESSAGE = "Must be a simple space-separated string with allowed scopes ['read', 'write'].";
const bearer = (token: string) => `Bearer ${token}`;

describe('personal access tokens and bearer authentication (seed §5.3, SPEC §5)', () => {
  let t: TestApp;
  let ds: DataSource;
  const issued: string[] = [];
  const admin = basic('admin', ADMIN_PASSWORD);
  const alice = basic('alice', 'Alice-pass-1');
  const bob = basic('bob', 'Bob-pass-1');
  const auditor = basic('audrey', 'Audrey-pass-1');
  let aliceId: number;
  let bobId: number;

  /** POST /api/v2/tokens/ and remember the secret for the log scan. */
  async function createToken(who: string, body: Record<string, unknown> = {}, path = '/api/v2/tokens/') {
    const res = await t.http().post(path).set('Authorization', who).send(body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    issued.push(res.body.token);
    return res.body as Record<string, any>;
  }

  before(async () => {
    t = await startTestApp();
    ds = t.app.get<DataSource>(getDataSourceToken());
    aliceId = await t.createUser('alice', 'Alice-pass-1');
    bobId = await t.createUser('bob', 'Bob-pass-1');
    await t.createUser('audrey', 'Audrey-pass-1', { is_system_auditor: true });
  });
  after(() => t.close());

  it("runs the seed's example: POST /api/v2/tokens/ with basic credentials, then GET /api/v2/users/ with the bearer token", async () => {
    const created = await t.http().post('/api/v2/tokens/').set('Authorization', alice).expect(201);
    issued.push(created.body.token);
    assert.equal(typeof created.body.token, 'string');
    assert.match(created.headers['cache-control'], /no-store/, 'the response carrying the secret is never cached');
    const users = await t.http().get('/api/v2/users/').set('Authorization', bearer(created.body.token)).expect(200);
    assert.equal(users.body.results[0].username, 'alice');
    assert.equal(users.headers['set-cookie'], undefined, 'bearer requests create no session');
  });

  it('answers with the AWX field set, the token in full once, and "************" afterwards', async () => {
    const created = await createToken(alice, { description: 'ci', scope: 'read' });
    assert.deepEqual(Object.keys(created).sort(), [...FIELDS].sort());
    assert.equal(created.type, 'o_auth2_access_token');
    assert.equal(created.url, `/api/v2/tokens/${created.id}/`);
    assert.equal(created.user, aliceId);
    assert.equal(created.application, null);
    assert.equal(created.refresh_token, null);
    assert.equal(created.description, 'ci');
    assert.equal(created.scope, 'read');
    assert.equal(created.last_used, null);
    assert.equal(created.related.user, `/api/v2/users/${aliceId}/`);
    assert.equal(created.summary_fields.user.username, 'alice');
    const detail = await t.http().get(created.url).set('Authorization', alice).expect(200);
    assert.equal(detail.body.token, '************');
    const list = await t.http().get('/api/v2/tokens/').set('Authorization', alice).expect(200);
    assert.ok(list.body.results.length >= 1);
    assert.ok(list.body.results.every((r: { token: string }) => r.token === '************'));
    assert.ok(!JSON.stringify(list.body).includes(created.token));
  });

  it('stores only the SHA-256 of a token, and every token is prefixed and carries ≥128 random bits', async () => {
    const a = await createToken(alice);
    const b = await createToken(alice);
    for (const token of [a.token, b.token]) assert.match(token, /^svcp_[0-9A-Za-z]{43}$/);
    assert.notEqual(a.token, b.token);
    const rows: Record<string, unknown>[] = await ds.query('SELECT * FROM oauth2_access_token WHERE id = ?', [a.id]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].token_hash, createHash('sha256').update(a.token).digest('hex'));
    assert.ok(!JSON.stringify(rows).includes(a.token), 'the raw token is nowhere in the row');
  });

  it('defaults the scope to write and refuses anything but space-separated read/write without duplicates', async () => {
    assert.equal((await createToken(alice)).scope, 'write');
    assert.equal((await createToken(alice, { scope: 'read write' })).scope, 'read write');
    for (const scope of ['admin', 'read read', '', 'read,write', 5, null]) {
      const res = await t.http().post('/api/v2/tokens/').set('Authorization', alice).send({ scope }).expect(400);
      assert.deepEqual(res.body, { scope: [SCOPE_MESSAGE] }, String(scope));
    }
  });

  it('sets expires from OAUTH2_PROVIDER.ACCESS_TOKEN_EXPIRE_SECONDS and refuses an expired token', async () => {
    await t.settings({ OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: 3600 } });
    const created = await createToken(bob);
    assert.equal(Date.parse(created.expires) - Date.parse(created.created), 3600 * 1000);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(created.token)).expect(200);
    t.clock.advance(3601);
    const res = await t.http().get('/api/v2/me/').set('Authorization', bearer(created.token)).expect(401);
    assert.deepEqual(res.body, { detail: 'Token has expired.' });
    assert.match(res.headers['www-authenticate'], /^Bearer realm="api", error="invalid_token"/);
    await t.settings({ OAUTH2_PROVIDER: {} });
  });

  it('refuses a read-scoped token on unsafe methods with 403 insufficient_scope, and allows GET', async () => {
    const read = await createToken(alice, { scope: 'read' });
    await t.http().get('/api/v2/tokens/').set('Authorization', bearer(read.token)).expect(200);
    for (const res of [
      await t.http().post('/api/v2/tokens/').set('Authorization', bearer(read.token)).send({}),
      await t.http().patch(`/api/v2/tokens/${read.id}/`).set('Authorization', bearer(read.token)).send({ description: 'x' }),
      await t.http().delete(`/api/v2/tokens/${read.id}/`).set('Authorization', bearer(read.token)),
    ]) {
      assert.equal(res.status, 403);
      assert.match(res.headers['www-authenticate'], /error="insufficient_scope"/);
    }
    await t.http().get(`/api/v2/tokens/${read.id}/`).set('Authorization', alice).expect(200);
  });

  it('answers unknown, malformed and query-string tokens with 401, never 500', async () => {
    for (const header of ['Bearer svcp_unknown', 'Bearer', 'Bearer a b', 'bearer svcp_!!!', 'Bearer ' + 'x'.repeat(5000)]) {
      const res = await t.http().get('/api/v2/me/').set('Authorization', header).expect(401);
      assert.deepEqual(res.body, { detail: 'Invalid or revoked token.' }, header);
      assert.match(res.headers['www-authenticate'], /^Bearer realm="api", error="invalid_token"/);
    }
    // Tokens in URLs are not read (ASVS 14.2.1): the request is simply anonymous.
    const good = await createToken(alice);
    const res = await t.http().get(`/api/v2/me/?access_token=${good.token}`).expect(401);
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="api"');
  });

  it('changes description and scope with PUT/PATCH and ignores read-only fields', async () => {
    const created = await createToken(alice);
    const patched = await t.http().patch(`/api/v2/tokens/${created.id}/`).set('Authorization', alice)
      .send({ description: 'renamed', scope: 'read', user: bobId, token: 'x', application: 5 }).expect(200);
    assert.equal(patched.body.description, 'renamed');
    assert.equal(patched.body.scope, 'read');
    assert.equal(patched.body.user, aliceId);
    assert.equal(patched.body.application, null);
    assert.equal(patched.body.token, '************');
    const put = await t.http().put(`/api/v2/tokens/${created.id}/`).set('Authorization', alice).send({ scope: 'write' }).expect(200);
    assert.equal(put.body.scope, 'write');
    assert.equal(put.body.description, 'renamed');
    await t.http().patch(`/api/v2/tokens/${created.id}/`).set('Authorization', alice).send({ scope: 'root' }).expect(400);
    // The scope change applies to the token itself at the next request.
    await t.http().patch(`/api/v2/tokens/${created.id}/`).set('Authorization', alice).send({ scope: 'read' }).expect(200);
    await t.http().post('/api/v2/tokens/').set('Authorization', bearer(created.token)).send({}).expect(403);
  });

  it('revokes a token with DELETE: 204, refused at the very next request', async () => {
    const created = await createToken(alice);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(created.token)).expect(200);
    await t.http().delete(`/api/v2/tokens/${created.id}/`).set('Authorization', alice).expect(204);
    const res = await t.http().get('/api/v2/me/').set('Authorization', bearer(created.token)).expect(401);
    assert.deepEqual(res.body, { detail: 'Invalid or revoked token.' });
    await t.http().get(`/api/v2/tokens/${created.id}/`).set('Authorization', alice).expect(404);
  });

  it("keeps users to their own tokens (404 for others'), lets auditors read all and superusers manage all", async () => {
    const mine = await createToken(alice);
    await t.http().get(`/api/v2/tokens/${mine.id}/`).set('Authorization', bob).expect(404);
    await t.http().patch(`/api/v2/tokens/${mine.id}/`).set('Authorization', bob).send({ description: 'x' }).expect(404);
    await t.http().delete(`/api/v2/tokens/${mine.id}/`).set('Authorization', bob).expect(404);
    const bobList = await t.http().get('/api/v2/tokens/').set('Authorization', bob).expect(200);
    assert.ok(bobList.body.results.every((r: { user: number }) => r.user === bobId));
    const seen = await t.http().get(`/api/v2/tokens/${mine.id}/`).set('Authorization', auditor).expect(200);
    assert.deepEqual(seen.body.summary_fields.user_capabilities, { edit: false, delete: false });
    await t.http().delete(`/api/v2/tokens/${mine.id}/`).set('Authorization', auditor).expect(403);
    const all = await t.http().get('/api/v2/tokens/?page_size=200').set('Authorization', auditor).expect(200);
    assert.ok(all.body.results.some((r: { user: number }) => r.user === aliceId));
    await t.http().delete(`/api/v2/tokens/${mine.id}/`).set('Authorization', admin).expect(204);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(mine.token)).expect(401);
  });

  it('lists a user’s tokens, personal tokens and authorized tokens under /api/v2/users/N/', async () => {
    const personal = await createToken(bob, { description: 'personal' }, `/api/v2/users/${bobId}/personal_tokens/`);
    assert.equal(personal.application, null);
    const all = await t.http().get(`/api/v2/users/${bobId}/tokens/`).set('Authorization', bob).expect(200);
    assert.ok(all.body.results.some((r: { id: number }) => r.id === personal.id));
    assert.ok(all.body.results.every((r: { user: number }) => r.user === bobId));
    const personalList = await t.http().get(`/api/v2/users/${bobId}/personal_tokens/`).set('Authorization', bob).expect(200);
    assert.ok(personalList.body.results.some((r: { id: number }) => r.id === personal.id));
    assert.ok(personalList.body.results.every((r: { application: null }) => r.application === null));
    const authorized = await t.http().get(`/api/v2/users/${bobId}/authorized_tokens/`).set('Authorization', bob).expect(200);
    assert.equal(authorized.body.count, 0);
    const missing = await t.http().post(`/api/v2/users/${bobId}/authorized_tokens/`).set('Authorization', bob).send({}).expect(400);
    assert.deepEqual(missing.body, { application: ['This field is required.'] });
    await t.http().get(`/api/v2/users/${aliceId}/tokens/`).set('Authorization', bob).expect(404);
    await t.http().get(`/api/v2/users/${aliceId}/personal_tokens/`).set('Authorization', bob).expect(404);
    await t.http().post(`/api/v2/users/${aliceId}/tokens/`).set('Authorization', admin).send({}).expect(403);
    // Nobody creates a token for someone else: not the superuser (403), and another user does not see the user (404).
    for (const list of ['personal_tokens', 'authorized_tokens']) {
      await t.http().post(`/api/v2/users/${aliceId}/${list}/`).set('Authorization', admin).send({}).expect(403);
      await t.http().post(`/api/v2/users/${aliceId}/${list}/`).set('Authorization', bob).send({}).expect(404);
    }
    await t.http().get(`/api/v2/users/${bobId}/tokens/`).set('Authorization', auditor).expect(200);
    await t.http().get('/api/v2/users/9999/tokens/').set('Authorization', admin).expect(404);
  });

  it("revokes all of one user's tokens with DELETE /api/v2/users/N/tokens/ (the user or a superuser)", async () => {
    const a1 = await createToken(alice);
    const a2 = await createToken(alice);
    const b1 = await createToken(bob);
    await t.http().delete(`/api/v2/users/${aliceId}/tokens/`).set('Authorization', bob).expect(404);
    await t.http().delete(`/api/v2/users/${aliceId}/tokens/`).set('Authorization', auditor).expect(403);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(a1.token)).expect(200);
    await t.http().delete(`/api/v2/users/${aliceId}/tokens/`).set('Authorization', alice).expect(204);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(a1.token)).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(a2.token)).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(b1.token)).expect(200);
    await t.http().delete(`/api/v2/users/${bobId}/tokens/`).set('Authorization', admin).expect(204);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(b1.token)).expect(401);
  });

  it('keeps last_used and last_used_ip without a database write per request, and shows them at once on this node', async () => {
    const created = await createToken(alice);
    assert.equal(created.last_used_ip, null);
    t.clock.advance(5);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(created.token)).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(created.token)).expect(200);
    const [row] = await ds.query('SELECT last_used, last_used_ip FROM oauth2_access_token WHERE id = ?', [created.id]);
    assert.equal(row.last_used, null, 'no write on the request path');
    assert.equal(row.last_used_ip, null, 'no write on the request path');
    const shown = await t.http().get(`/api/v2/tokens/${created.id}/`).set('Authorization', alice).expect(200);
    assert.ok(shown.body.last_used, 'the pending stamp is shown');
    assert.ok(Date.parse(shown.body.last_used) >= Date.parse(created.created) + 5000);
    assert.equal(shown.body.last_used_ip, '127.0.0.1', 'the pending address is shown');
    assert.ok((await t.app.get(LastUsedBuffer).flush()) >= 1, 'one batched write');
    const [flushed] = await ds.query('SELECT last_used, last_used_ip FROM oauth2_access_token WHERE id = ?', [created.id]);
    assert.notEqual(flushed.last_used, null);
    assert.equal(flushed.last_used_ip, '127.0.0.1', 'written by the same batched UPDATE');
  });

  it('stops every token of a deactivated or deleted user; a password change leaves tokens alone', async () => {
    const id = await t.createUser('carol', 'Carol-pass-1');
    const carol = basic('carol', 'Carol-pass-1');
    const token = (await createToken(carol)).token;
    await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', carol).send({ password: 'Carol-pass-2', old_password: 'Carol-pass-1' }).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token)).expect(200);
    await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', admin).send({ is_active: false }).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token)).expect(401);
    // Refused at once by the user's cut-off; the row itself goes with the background clean-up.
    await t.app.get(Scheduler).runNow('revocation-cleanup');
    const [{ n }] = await ds.query('SELECT COUNT(*) AS n FROM oauth2_access_token WHERE user_id = ?', [id]);
    assert.equal(Number(n), 0, "the deactivated user's tokens are gone");
    await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', admin).send({ is_active: true }).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token)).expect(401);

    const daveId = await t.createUser('dave', 'Dave-pass-1');
    const daveToken = (await createToken(basic('dave', 'Dave-pass-1'))).token;
    await t.http().delete(`/api/v2/users/${daveId}/`).set('Authorization', admin).expect(204);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(daveToken)).expect(401);
  });

  it('refuses a token whose user is inactive even if the row survived', async () => {
    const id = await t.createUser('erin', 'Erin-pass-1');
    const token = (await createToken(basic('erin', 'Erin-pass-1'))).token;
    await ds.query('UPDATE auth_user SET is_active = ? WHERE id = ?', [false, id]);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token)).expect(401);
  });

  it("refuses local users' tokens while DISABLE_LOCAL_AUTH is on, and honours them again when it is off", async () => {
    const token = (await createToken(bob)).token;
    await t.settings({ DISABLE_LOCAL_AUTH: true });
    const res = await t.http().get('/api/v2/me/').set('Authorization', bearer(token)).expect(401);
    assert.deepEqual(res.body, { detail: 'Local authentication is disabled.' });
    await t.settings({ DISABLE_LOCAL_AUTH: false });
    await t.http().get('/api/v2/me/').set('Authorization', bearer(token)).expect(200);
  });

  it('refuses token creation to external (SSO) users unless ALLOW_OAUTH2_FOR_EXTERNAL_USERS', async () => {
    const sso = await t.app.get(UsersService).create({ username: 'sso-sam' }, NO_REQUEST, { externalAccount: 'social' });
    await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
    const seeded = await t.app.get(TokensService).issue({ user: sso, application: null, scope: 'write', trace: NO_REQUEST });
    issued.push(seeded.token);
    await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
    // The existing token keeps working (AWX checks at creation only) ...
    await t.http().get('/api/v2/me/').set('Authorization', bearer(seeded.token)).expect(200);
    // ... but it cannot create another.
    const res = await t.http().post('/api/v2/tokens/').set('Authorization', bearer(seeded.token)).send({}).expect(403);
    assert.deepEqual(res.body, {
      detail: '(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (social)',
    });
    await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
    await createToken(bearer(seeded.token));
    await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
  });

  it("lists and counts, in every token list, what a user's cut-off left (a count across users is all tokens less the cut ones)", async () => {
    const carl = basic('carl', 'Carl-pass-1');
    const cora = basic('cora', 'Cora-pass-1');
    const carlId = await t.createUser('carl', 'Carl-pass-1');
    const coraId = await t.createUser('cora', 'Cora-pass-1');
    // The lists must hide the cut rows while they are still there: the clean-up loop (every second) would
    // delete them at any moment of this test (it did, once, under a loaded CI run), so it waits till the end.
    const revocation = t.app.get(TokenRevocationService);
    const cleanupRevoked = revocation.cleanupRevoked;
    revocation.cleanupRevoked = async () => 0;
    try {
      await listsWithoutTheCutTokens(carl, carlId, coraId, cora);
    } finally {
      revocation.cleanupRevoked = cleanupRevoked;
    }
  });

  async function listsWithoutTheCutTokens(carl: string, carlId: number, coraId: number, cora: string): Promise<void> {
    const cut: number[] = [];
    for (let i = 0; i < 3; i++) cut.push((await createToken(carl, { description: `cut ${i}` })).id);
    await t.http().delete(`/api/v2/users/${carlId}/tokens/`).set('Authorization', admin).expect(204);
    // A cut-off is to the millisecond: the tokens after it are created in a later one.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const kept = [(await createToken(carl, { description: 'kept' })).id, (await createToken(carl, { description: 'kept' })).id];
    const coras = [(await createToken(cora)).id, (await createToken(cora)).id];
    const [{ n }] = await ds.query('SELECT COUNT(*) AS n FROM oauth2_access_token WHERE user_id = ?', [carlId]);
    assert.equal(Number(n), 5, "the cut tokens' rows still wait for the clean-up");
    const list = async (who: string, path: string) => {
      const res = await t.http().get(path).set('Authorization', who).expect(200);
      return { count: res.body.count as number, ids: (res.body.results as { id: number }[]).map((r) => r.id).sort((a, b) => a - b) };
    };
    assert.deepEqual(await list(admin, '/api/v2/tokens/?user__username__in=carl,cora&page_size=10'), { count: 4, ids: [...kept, ...coras] });
    assert.deepEqual(await list(admin, '/api/v2/tokens/?user__username=carl'), { count: 2, ids: kept });
    assert.deepEqual(await list(admin, '/api/v2/tokens/?description=cut+0'), { count: 0, ids: [] });
    assert.deepEqual(await list(admin, `/api/v2/users/${carlId}/tokens/`), { count: 2, ids: kept });
    assert.deepEqual(await list(admin, `/api/v2/users/${carlId}/personal_tokens/`), { count: 2, ids: kept });
    assert.deepEqual(await list(carl, '/api/v2/tokens/'), { count: 2, ids: kept });
    assert.deepEqual(await list(admin, `/api/v2/users/${coraId}/tokens/`), { count: 2, ids: coras });
    const page = await t.http().get('/api/v2/tokens/?user__username__in=carl,cora&page_size=1&page=4').set('Authorization', admin).expect(200);
    assert.equal(page.body.count, 4);
    assert.deepEqual(page.body.results.map((r: { id: number }) => r.id), [Math.max(...kept, ...coras)]);
    const all = await list(admin, '/api/v2/tokens/?page_size=200');
    assert.equal(all.count, all.ids.length, 'the count across users is the rows listed');
    assert.ok([...kept, ...coras].every((id) => all.ids.includes(id)), 'every live token is listed');
    assert.ok(!cut.some((id) => all.ids.includes(id)), 'no cut token is listed');
  }

  it('refuses DELETE /api/v2/tokens/ to non-superusers and revokes every token for a superuser', async () => {
    const a = await createToken(alice);
    const b = await createToken(bob);
    await t.http().delete('/api/v2/tokens/').set('Authorization', bob).expect(403);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(a.token)).expect(200);
    await t.http().delete('/api/v2/tokens/').set('Authorization', admin).expect(204);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(a.token)).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(b.token)).expect(401);
    const list = await t.http().get('/api/v2/tokens/').set('Authorization', admin).expect(200);
    assert.equal(list.body.count, 0, 'revoked tokens are not listed while they wait for the clean-up');
    await t.app.get(Scheduler).runNow('revocation-cleanup');
    const [{ n }] = await ds.query('SELECT COUNT(*) AS n FROM oauth2_access_token');
    assert.equal(Number(n), 0);
  });

  it('counts issued and revoked tokens in the Prometheus metrics', async () => {
    await t.app.get(Scheduler).runNow('revocation-cleanup');
    const metrics = await t.http().get('/api/v2/metrics/').set('Authorization', admin).expect(200);
    const issuedCount = Number(/svc_tokens_issued_total\{kind="personal"\} (\d+)/.exec(metrics.text)?.[1]);
    const revokedCount = Number(/svc_tokens_revoked_total (\d+)/.exec(metrics.text)?.[1]);
    assert.ok(issuedCount >= 20, `issued ${issuedCount}`);
    assert.ok(revokedCount >= 10, `revoked ${revokedCount}`);
    assert.ok(!/svc[pars]_[0-9A-Za-z]{43}/.test(metrics.text));
  });

  it('never logs a token', () => {
    assert.ok(issued.length >= 20, `${issued.length} tokens issued`);
    const joined = t.logs.join('\n');
    assert.ok(joined.includes('"event":"token_created"'), 'token creation is logged as an event');
    for (const token of issued) assert.ok(!joined.includes(token), 'a token appeared in the logs');
    assert.ok(!/svc[pars]_[0-9A-Za-z]{43}/.test(joined), 'no prefixed secret in the logs');
  });
});

describe('last_used at shutdown', () => {
  it('writes the pending last_used stamps when the service stops', async () => {
    const db = await createTestDatabase();
    try {
      const first = await startTestApp({ db });
      const created = await first.http().post('/api/v2/tokens/').set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(201);
      await first.http().get('/api/v2/me/').set('Authorization', bearer(created.body.token)).expect(200);
      const ds = first.app.get<DataSource>(getDataSourceToken());
      const [before] = await ds.query('SELECT last_used FROM oauth2_access_token WHERE id = ?', [created.body.id]);
      assert.equal(before.last_used, null);
      await first.close();
      const second = await startTestApp({ db });
      try {
        const shown = await second.http().get(`/api/v2/tokens/${created.body.id}/`).set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(200);
        assert.ok(shown.body.last_used, 'the stamp was written at shutdown');
      } finally {
        await second.close();
      }
    } finally {
      await db.drop();
    }
  });
});
