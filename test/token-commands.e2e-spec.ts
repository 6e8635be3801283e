import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AccessToken } from '../src/tokens/access-token.entity';
import { basic, startTestApp, TestApp } from './support/test-app';
import { registerApp, tokenRequest } from './support/oauth2';
import { runManage } from './support/service-process';

const bearer = (token: string) => `Bearer ${token}`;

/** create_oauth2_token, revoke_oauth2_tokens, cleartokens (SPEC §11), against the same database as a running app. */
describe('token management commands', () => {
  let t: TestApp;
  let ds: DataSource;
  let env: Record<string, string>;
  const printed: string[] = [];
  let app: { id: number; clientId: string; secret?: string };

  const manage = (args: string[]) => {
    const res = runManage(args, env);
    if (res.status === 0 && args[0] === 'create_oauth2_token') printed.push(res.stdout.trim());
    return res;
  };
  const passwordGrant = async (username: string, password: string) => {
    const res = await tokenRequest(t, { grant_type: 'password', username, password }, app).expect(200);
    printed.push(res.body.access_token, res.body.refresh_token);
    return res.body as { access_token: string; refresh_token: string };
  };

  before(async () => {
    t = await startTestApp();
    ds = t.app.get<DataSource>(getDataSourceToken());
    env = { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir };
    await t.createUser('alice', 'Alice-pass-1');
    await t.createUser('bob', 'Bob-pass-1');
    const registered = await registerApp(t, basic('alice', 'Alice-pass-1'), { client_type: 'confidential', authorization_grant_type: 'password' });
    app = { id: registered.id, clientId: registered.clientId, secret: registered.clientSecret };
  });
  after(() => t.close());

  it('create_oauth2_token prints a working personal token (write by default, or --scope read)', async () => {
    const res = manage(['create_oauth2_token', '--user', 'alice']);
    assert.equal(res.status, 0, res.stderr);
    const token = res.stdout.trim();
    assert.match(token, /^svcp_[0-9A-Za-z]{43}$/);
    assert.equal(res.stdout, `${token}\n`, 'only the token on stdout');
    const me = await t.http().get('/api/v2/me/').set('Authorization', bearer(token)).expect(200);
    assert.equal(me.body.results[0].username, 'alice');
    await t.http().post('/api/v2/tokens/').set('Authorization', bearer(token)).send({}).expect(201).then((r) => printed.push(r.body.token));
    const read = manage(['create_oauth2_token', '--user', 'alice', '--scope', 'read']);
    assert.equal(read.status, 0, read.stderr);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(read.stdout.trim())).expect(200);
    await t.http().post('/api/v2/tokens/').set('Authorization', bearer(read.stdout.trim())).send({}).expect(403);
  });

  it('create_oauth2_token fails with one line for a missing or unknown user or a bad scope', () => {
    const cases: [string[], RegExp][] = [
      [['create_oauth2_token'], /Username not supplied/],
      [['create_oauth2_token', '--user', 'ghost'], /The user 'ghost' does not exist\./],
      [['create_oauth2_token', '--user', 'alice', '--scope', 'admin'], /--scope must be/],
    ];
    for (const [args, message] of cases) {
      const res = manage(args);
      assert.equal(res.status, 1, args.join(' '));
      assert.match(res.stderr, message);
      assert.equal(res.stderr.trim().split('\n').length, 1);
    }
  });

  it('create_oauth2_token --expires-in sets the lifetime, validated like expires_in of the API and capped by the policy', async () => {
    const lifetime = async (token: string) => {
      const [row] = await ds.query('SELECT created, expires FROM oauth2_access_token WHERE token_hash = ?', [createHash('sha256').update(token).digest('hex')]);
      const date = (v: unknown) => (v instanceof Date ? v : new Date(`${String(v).replace(' ', 'T')}Z`));
      return (date(row.expires).getTime() - date(row.created).getTime()) / 1000;
    };
    const short = manage(['create_oauth2_token', '--user', 'alice', '--expires-in', '600']);
    assert.equal(short.status, 0, short.stderr);
    assert.equal(await lifetime(short.stdout.trim()), 600);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(short.stdout.trim())).expect(200);
    const cases: [string, RegExp][] = [
      ['59', /--expires-in: Ensure this value is greater than or equal to 60\./],
      ['soon', /--expires-in: A valid integer is required\./],
      ['1.5', /--expires-in: A valid integer is required\./],
      ['31536000001', /--expires-in: Ensure this value is less than or equal to 31536000000\./],
    ];
    for (const [value, message] of cases) {
      const res = manage(['create_oauth2_token', '--user', 'alice', '--expires-in', value]);
      assert.equal(res.status, 1, value);
      assert.match(res.stderr, message);
      assert.equal(res.stderr.trim().split('\n').length, 1);
      assert.equal(res.stdout, '', 'no token printed');
    }
    await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 3600 });
    try {
      const above = manage(['create_oauth2_token', '--user', 'alice', '--expires-in', '3601']);
      assert.equal(above.status, 1);
      assert.match(above.stderr, /--expires-in: Ensure this value is less than or equal to 3600\./);
      const capped = manage(['create_oauth2_token', '--user', 'alice']);
      assert.equal(capped.status, 0, capped.stderr);
      assert.equal(await lifetime(capped.stdout.trim()), 3600, 'the default lifetime, capped');
    } finally {
      await t.settings({ TOKEN_MAX_LIFETIME_SECONDS: 0 });
    }
  });

  it('list_expiring_tokens lists the tokens expiring within the window (id, user, application, expires), never a secret', async () => {
    const soon = manage(['create_oauth2_token', '--user', 'bob', '--expires-in', '3600']).stdout.trim();
    const notSoon = manage(['create_oauth2_token', '--user', 'bob']).stdout.trim();
    const appToken = await t.http().post('/api/v2/tokens/').set('Authorization', basic('alice', 'Alice-pass-1'))
      .send({ application: app.id, expires_in: 7200 }).expect(201);
    printed.push(appToken.body.token);
    const idOf = async (token: string) =>
      Number((await ds.query('SELECT id FROM oauth2_access_token WHERE token_hash = ?', [createHash('sha256').update(token).digest('hex')]))[0].id);
    const [soonId, notSoonId] = [await idOf(soon), await idOf(notSoon)];
    const res = manage(['list_expiring_tokens']);
    assert.equal(res.status, 0, res.stderr);
    const lines = res.stdout.trim().split('\n').map((l) => l.split('\t'));
    assert.deepEqual(lines[0], ['id', 'user', 'application', 'expires']);
    const soonLine = lines.find((l) => l[0] === String(soonId));
    assert.ok(soonLine, res.stdout);
    assert.equal(soonLine![1], 'bob');
    assert.equal(soonLine![2], '-');
    assert.match(soonLine![3], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const appLine = lines.find((l) => l[0] === String(appToken.body.id));
    assert.deepEqual(appLine, [String(appToken.body.id), 'alice', 'app', appToken.body.expires]);
    assert.ok(!lines.some((l) => l[0] === String(notSoonId)), 'a token with a thousand years left is not listed');
    const order = lines.slice(1).map((l) => Date.parse(l[3]));
    assert.deepEqual(order, [...order].sort((a, b) => a - b), 'soonest first');
    assert.ok(!/svc[pacrs]_/.test(res.stdout + res.stderr), 'no secret');
    const narrow = manage(['list_expiring_tokens', '--within', '60']);
    assert.equal(narrow.status, 0, narrow.stderr);
    assert.equal(narrow.stdout, 'id\tuser\tapplication\texpires\n');
    const wide = manage(['list_expiring_tokens', '--within', '31536000000']);
    assert.ok(wide.stdout.split('\n').some((l) => l.startsWith(`${notSoonId}\t`)));
    const bad = manage(['list_expiring_tokens', '--within', 'week']);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--within must be a whole number of seconds/);
    // Its grant (and refresh token) goes, so the revocation counts below are alice's password grants alone.
    await t.http().delete(`/api/v2/tokens/${appToken.body.id}/`).set('Authorization', basic('alice', 'Alice-pass-1')).expect(204);
  });

  it("revoke_oauth2_tokens --user revokes that user's access tokens; --all also their refresh tokens", async () => {
    const alicePat = manage(['create_oauth2_token', '--user', 'alice']).stdout.trim();
    const bobPat = manage(['create_oauth2_token', '--user', 'bob']).stdout.trim();
    const pair = await passwordGrant('alice', 'Alice-pass-1');
    const res = manage(['revoke_oauth2_tokens', '--user', 'alice']);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /Revoked \d+ access token\(s\)\./);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(alicePat)).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(pair.access_token)).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(bobPat)).expect(200);
    // Without --all the refresh token survives (AWX) and can mint a new access token.
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: pair.refresh_token }, app).expect(200);
    printed.push(refreshed.body.access_token, refreshed.body.refresh_token);
    const all = manage(['revoke_oauth2_tokens', '--user', 'alice', '--all']);
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stdout, /and 1 refresh token\(s\)\./);
    const refused = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token }, app);
    assert.equal(refused.body.error, 'invalid_grant');
    const unknown = manage(['revoke_oauth2_tokens', '--user', 'ghost']);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /The user '[^']+' does not exist\./);
  });

  it('revoke_oauth2_tokens without --user revokes every access token', async () => {
    const a = manage(['create_oauth2_token', '--user', 'alice']).stdout.trim();
    const b = manage(['create_oauth2_token', '--user', 'bob']).stdout.trim();
    // Both worked, each as its own user, before the command: the 401s below are the revocation's doing.
    assert.equal((await t.http().get('/api/v2/me/').set('Authorization', bearer(a)).expect(200)).body.results[0].username, 'alice');
    assert.equal((await t.http().get('/api/v2/me/').set('Authorization', bearer(b)).expect(200)).body.results[0].username, 'bob');
    assert.equal(manage(['revoke_oauth2_tokens']).status, 0);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(a)).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(b)).expect(401);
  });

  it('cleartokens deletes expired tokens and dead refresh-token families, keeps live ones, and shows progress', async () => {
    const live = manage(['create_oauth2_token', '--user', 'bob']).stdout.trim();
    const expired = manage(['create_oauth2_token', '--user', 'bob']).stdout.trim();
    const past = new Date('2001-01-01T00:00:00Z');
    const repo = ds.getRepository(AccessToken);
    const [{ id: expiredId }] = await ds.query('SELECT MAX(id) AS id FROM oauth2_access_token');
    await repo.update({ id: Number(expiredId) }, { expires: past });
    const filler = Array.from({ length: 1100 }, (_, i) => ({
      tokenHash: `filler${String(i).padStart(58, '0')}`, userId: 1, applicationId: null, description: '', scope: 'write',
      expires: past, lastUsed: null, family: null, created: past, modified: past,
    }));
    for (let i = 0; i < filler.length; i += 250) await repo.insert(filler.slice(i, i + 250));
    // A rotated family: its revoked first token is kept while the family lives (reuse detection) ...
    const pair = await passwordGrant('bob', 'Bob-pass-1');
    const rotated = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: pair.refresh_token }, app).expect(200);
    printed.push(rotated.body.access_token, rotated.body.refresh_token);
    // ... and a family revoked as a whole is dead and goes.
    const dead = await passwordGrant('bob', 'Bob-pass-1');
    await t.http().post('/api/o/revoke_token/').type('form').send({ client_id: app.clientId, client_secret: app.secret, token: dead.refresh_token }).expect(200);
    const res = manage(['cleartokens']);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /Expired OAuth 2 Access Tokens deleted: 1101/);
    assert.match(res.stdout, /Refresh Tokens deleted: \d+\n/);
    const familyOf = async (token: string) =>
      (await ds.query('SELECT family FROM oauth2_refresh_token WHERE token_hash = ?', [createHash('sha256').update(token).digest('hex')]))[0]?.family;
    assert.equal(await familyOf(dead.refresh_token), undefined, 'the dead family is gone');
    const rotatedFamily = await familyOf(pair.refresh_token);
    assert.ok(rotatedFamily, 'the revoked token of a live family is kept');
    const [{ n }] = await ds.query('SELECT COUNT(*) AS n FROM oauth2_refresh_token WHERE revoked_at IS NOT NULL AND family NOT IN (SELECT family FROM oauth2_refresh_token WHERE revoked_at IS NULL)');
    assert.equal(Number(n), 0, 'no revoked token of a dead family is left');
    assert.match(res.stderr, /1000 access tokens deleted so far/);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(live)).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', bearer(expired)).expect(401);
    // Reuse of the rotated token is still recognised after the sweep.
    const reuse = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: pair.refresh_token }, app);
    assert.equal(reuse.body.error, 'invalid_grant');
    await t.http().get('/api/v2/me/').set('Authorization', bearer(rotated.body.access_token)).expect(401);
  });

  it('never logs a token the commands printed', () => {
    const joined = t.logs.join('\n');
    assert.ok(printed.length >= 8);
    assert.deepEqual(printed.filter((s) => joined.includes(s)), []);
  });
});
