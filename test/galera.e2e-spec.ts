// @galera: npm test runs this file again on a 3-member Galera cluster (scripts/galera-files.sh)
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createConnection } from 'mysql2/promise';
import request from 'supertest';
import { basic } from './support/test-app';
import { createTestDatabase, GALERA_PORTS, memberUrl, TestDatabase } from './support/test-db';
import { eventsSince, logMarks } from './support/log-events';
import { ServiceProcess, spawnServices } from './support/service-process';
import { settingsRefreshed } from './support/settings-refresh';

/**
 * Issue 14: three service nodes, each attached to a different member of a 3-member MariaDB Galera
 * cluster (scripts/galera-cluster.sh, started once by the Galera pass of `npm test`). Row locks and
 * GET_LOCK hold on one member only, conflicting writes fail at commit, and a read waits for replication
 * only with wsrep_sync_wait, which the members leave at Galera's 0 and the service sets on its own
 * connections: every guarantee of SPEC must still hold whichever node a request reaches.
 */
const ADMIN_PASSWORD = 'Galera-admin-pass-1';

describe('three nodes on a 3-member Galera cluster', { skip: GALERA_PORTS.length ? false : 'runs in the Galera pass of npm test (TEST_GALERA_PORTS)' }, () => {
  let db: TestDatabase;
  let nodes: ServiceProcess[];
  const admin = basic('admin', ADMIN_PASSWORD);
  const env = () => ({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD, SECRET_KEY: 'galera-secret-key-0123456789-abcdefghijklmnop' });

  before(async () => {
    db = await createTestDatabase();
    // All three at once, on three members: the migration lease is a certified row, so one node migrates.
    nodes = await spawnServices(3, env());
  });
  after(async () => {
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await db?.drop();
  });

  it('runs on members as Galera ships them (wsrep_sync_wait=0): the nodes started and set causal reads themselves (issue 34)', async () => {
    for (let i = 0; i < 3; i++) {
      const conn = await createConnection(memberUrl(db.url, i));
      try {
        const [[row]] = (await conn.query('SELECT @@GLOBAL.wsrep_sync_wait AS global_wait, @@GLOBAL.wsrep_on AS wsrep_on')) as [{ global_wait: number; wsrep_on: number }[], unknown];
        assert.deepEqual({ ...row }, { global_wait: 0, wsrep_on: 1 }, `member ${i}`);
      } finally {
        await conn.end();
      }
    }
    for (const node of nodes) await request(node.url).get('/api/v2/ping/').expect(200);
  });

  it('migrated once with all nodes starting together, every table with a primary key, on every member', async () => {
    for (let i = 0; i < 3; i++) {
      const conn = await createConnection(memberUrl(db.url, i));
      try {
        const [migrations] = (await conn.query('SELECT name, COUNT(*) AS n FROM migrations GROUP BY name HAVING n > 1')) as [unknown[], unknown];
        assert.deepEqual(migrations, [], 'no migration recorded twice');
        const [noKey] = (await conn.query(
          `SELECT t.table_name FROM information_schema.tables t WHERE t.table_schema = DATABASE() AND t.table_type = 'BASE TABLE'
           AND NOT EXISTS (SELECT 1 FROM information_schema.table_constraints c WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.constraint_type = 'PRIMARY KEY')`,
        )) as [unknown[], unknown];
        assert.deepEqual(noKey, [], 'Galera needs a primary key on every table');
      } finally {
        await conn.end();
      }
    }
    for (const node of nodes) await request(node.url).get('/api/v2/me/').set('Authorization', admin).expect(200);
    const users = await request(nodes[2].url).get('/api/v2/users/').set('Authorization', admin).expect(200);
    assert.equal(users.body.count, 1, 'the superuser was created once');
  });

  it('100 racing logins spread over the nodes with SESSIONS_PER_USER=2 leave exactly the 2 newest', async () => {
    await request(nodes[0].url).patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ SESSIONS_PER_USER: 2 }).expect(200);
    await request(nodes[0].url).post('/api/v2/users/').set('Authorization', admin).send({ username: 'racer', password: 'Racer-pass-1' }).expect(201);
    // Every node reads the new limit at its next settings refresh.
    for (const node of nodes) {
      await settingsRefreshed(node.url, admin);
      assert.equal((await request(node.url).get('/api/v2/settings/authentication/').set('Authorization', admin).expect(200)).body.SESSIONS_PER_USER, 2, node.url);
    }
    const logins = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const csrf = randomBytes(32).toString('base64url');
        return request(nodes[i % 3].url)
          .post('/api/login/')
          .set('Cookie', `csrftoken=${csrf}`)
          .set('X-CSRFToken', csrf)
          .type('form')
          .send({ username: 'racer', password: 'Racer-pass-1' });
      }),
    );
    const failures = nodes.flatMap((n) => n.output.join('').split('\n').filter((l) => l.includes('unhandled_error')));
    for (const res of logins) assert.equal(res.status, 302, `${res.text}\n${failures.join('\n').slice(0, 3000)}`);
    const cookies = logins.map((res) => ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('svc_session_id='))!.split(';')[0]);
    const conn = await createConnection(memberUrl(db.url, 1));
    try {
      const [live] = (await conn.query(
        "SELECT s.key_hash FROM user_session s JOIN auth_user u ON u.id = s.user_id WHERE u.username = 'racer' AND s.ended_at IS NULL ORDER BY s.created DESC, s.id DESC",
      )) as [{ key_hash: string }[], unknown];
      assert.equal(live.length, 2, `${live.length} sessions left live`);
      // Those two answer on every node; every other login's session is refused with the limit's reason.
      const liveHashes = new Set(live.map((r) => r.key_hash));
      let refused = 0;
      for (const [i, cookie] of cookies.entries()) {
        const hash = createHash('sha256').update(cookie.split('=')[1]).digest('hex');
        const res = await request(nodes[i % 3].url).get('/api/v2/me/').set('Cookie', cookie);
        if (liveHashes.has(hash)) assert.equal(res.status, 200);
        else {
          assert.equal(res.status, 401);
          assert.equal(res.body.reason, 'session_limit');
          refused++;
        }
      }
      assert.equal(refused, 98);
    } finally {
      await conn.end();
    }
    await request(nodes[0].url).patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ SESSIONS_PER_USER: -1 }).expect(200);
  });

  it('a revoked token, a deactivation and a password change are refused on the other nodes at the very next request', async () => {
    const created = await request(nodes[0].url).post('/api/v2/users/').set('Authorization', admin).send({ username: 'mover', password: 'Mover-pass-1' }).expect(201);
    for (let round = 0; round < 10; round++) {
      const [a, b, c] = [nodes[round % 3], nodes[(round + 1) % 3], nodes[(round + 2) % 3]];
      const token = (await request(a.url).post('/api/v2/tokens/').set('Authorization', admin).send({ scope: 'write' }).expect(201)).body;
      await request(b.url).get('/api/v2/me/').set('Authorization', `Bearer ${token.token}`).expect(200);
      await request(a.url).delete(`/api/v2/tokens/${token.id}/`).set('Authorization', admin).expect(204);
      await request(b.url).get('/api/v2/me/').set('Authorization', `Bearer ${token.token}`).expect(401);
      await request(c.url).get('/api/v2/me/').set('Authorization', `Bearer ${token.token}`).expect(401);
    }
    // Revoke-all by cut-off (issue 21) counts on the other members at once too.
    const token = (await request(nodes[0].url).post('/api/v2/tokens/').set('Authorization', admin).send({ scope: 'write' }).expect(201)).body;
    const adminId = (await request(nodes[1].url).get('/api/v2/me/').set('Authorization', admin).expect(200)).body.results[0].id;
    await request(nodes[1].url).delete(`/api/v2/users/${adminId}/tokens/`).set('Authorization', admin).expect(204);
    await request(nodes[2].url).get('/api/v2/me/').set('Authorization', `Bearer ${token.token}`).expect(401);
    let password = 'Mover-pass-1';
    for (let round = 0; round < 5; round++) {
      const old = basic('mover', password);
      const [a, b] = [nodes[round % 3], nodes[(round + 1) % 3]];
      await request(b.url).get('/api/v2/me/').set('Authorization', old).expect(200);
      password = `Mover-pass-${round + 2}`;
      await request(a.url).patch(`/api/v2/users/${created.body.id}/`).set('Authorization', admin).send({ password }).expect(200);
      await request(b.url).get('/api/v2/me/').set('Authorization', old).expect(401);
    }
    await request(nodes[0].url).patch(`/api/v2/users/${created.body.id}/`).set('Authorization', admin).send({ is_active: false }).expect(200);
    await request(nodes[1].url).get('/api/v2/me/').set('Authorization', basic('mover', password)).expect(401);
  });

  it("a setting changed through one member is read on the other nodes at their next settings refresh", async () => {
    await request(nodes[2].url).patch('/api/v2/settings/authentication/').set('Authorization', admin).send({ SESSION_COOKIE_AGE: 901 }).expect(200);
    for (const node of nodes.slice(0, 2)) {
      await settingsRefreshed(node.url, admin);
      assert.equal((await request(node.url).get('/api/v2/settings/authentication/').set('Authorization', admin).expect(200)).body.SESSION_COOKIE_AGE, 901);
    }
  });

  it('login failures are counted across nodes: 40 parallel wrong passwords over three members verify at most the allowed number', async () => {
    await request(nodes[0].url).post('/api/v2/users/').set('Authorization', admin).send({ username: 'target', password: 'Target-pass-1' }).expect(201);
    const before = await verifications();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => request(nodes[i % 3].url).get('/api/v2/me/').set('Authorization', basic('target', `wrong-${i}`))));
    for (const a of answers) assert.ok(a.status === 401 || a.status === 429, `${a.status} ${a.text}`);
    const verified = (await verifications()) - before;
    assert.ok(verified <= 5, `${verified} passwords verified`);
    await request(nodes[2].url).get('/api/v2/me/').set('Authorization', basic('target', 'Target-pass-1')).expect(429);
  });

  it('an authorization code exchanged on three nodes at once is redeemed exactly once', async () => {
    const app = await request(nodes[0].url).post('/api/v2/applications/').set('Authorization', admin).send({
      name: 'code-race', client_type: 'confidential', authorization_grant_type: 'authorization-code', redirect_uris: 'https://client.example/cb', skip_authorization: true,
    }).expect(201);
    for (let round = 0; round < 3; round++) {
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const authorize = await request(nodes[round % 3].url)
        .get('/api/o/authorize/')
        .query({ response_type: 'code', client_id: app.body.client_id, redirect_uri: 'https://client.example/cb', code_challenge: challenge, code_challenge_method: 'S256', scope: 'read' })
        .set('Authorization', admin)
        .expect(302);
      const code = new URL(authorize.headers.location).searchParams.get('code')!;
      assert.ok(code, authorize.headers.location);
      const exchange = (node: ServiceProcess) =>
        request(node.url).post('/api/o/token/').type('form').send({
          grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/cb', code_verifier: verifier, client_id: app.body.client_id, client_secret: app.body.client_secret,
        });
      const marks = logMarks(nodes);
      const answers = await Promise.all([exchange(nodes[0]), exchange(nodes[1]), exchange(nodes[2])]);
      // One event per presentation on whichever node: exactly one compare-and-swap won across the cluster.
      const events = await eventsSince(nodes, marks, ['authorization_code_redeemed', 'authorization_code_replayed'], 3);
      assert.deepEqual(events, { authorization_code_redeemed: 1, authorization_code_replayed: 2 });
      for (const a of answers.filter((x) => x.status !== 200)) {
        assert.equal(a.status, 400, a.text);
        assert.equal(a.body.error, 'invalid_grant', a.text);
      }
      // The winner has its tokens unless a replay was marked before it saved them; the replays revoke them anyway.
      const ok = answers.filter((a) => a.status === 200);
      assert.ok(ok.length === 1 || answers.every((a) => a.status === 400), answers.map((a) => a.status).join(' '));
      for (const a of ok) await request(nodes[(round + 1) % 3].url).get('/api/v2/me/').set('Authorization', `Bearer ${a.body.access_token}`).expect(401);
    }
  });

  it('a refresh token raced on three nodes rotates exactly once, and the reuse kills the family everywhere', async () => {
    const app = await request(nodes[0].url).post('/api/v2/applications/').set('Authorization', admin)
      .send({ name: 'refresh-race', client_type: 'public', authorization_grant_type: 'password' }).expect(201);
    const token = (node: ServiceProcess, form: Record<string, string>) => request(node.url).post('/api/o/token/').type('form').send({ client_id: app.body.client_id, ...form });
    for (let round = 0; round < 3; round++) {
      const first = (await token(nodes[round % 3], { grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD }).expect(200)).body;
      const marks = logMarks(nodes);
      const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => token(nodes[i % 3], { grant_type: 'refresh_token', refresh_token: first.refresh_token })));
      // One event per racer on whichever node: exactly one rotation across the cluster, eight reuses.
      const events = await eventsSince(nodes, marks, ['refresh_token_rotated', 'refresh_token_reused'], 9);
      assert.deepEqual(events, { refresh_token_rotated: 1, refresh_token_reused: 8 });
      const winners = answers.filter((a) => a.status === 200);
      assert.ok(winners.length === 1 || answers.every((a) => a.status === 400), answers.map((a) => a.status).join(' '));
      for (const a of answers.filter((x) => x.status !== 200)) {
        assert.equal(a.status, 400, a.text);
        assert.equal(a.body.error, 'invalid_grant', a.text);
      }
      for (const node of nodes) {
        await request(node.url).get('/api/v2/me/').set('Authorization', `Bearer ${first.access_token}`).expect(401);
        for (const w of winners) await request(node.url).get('/api/v2/me/').set('Authorization', `Bearer ${w.body.access_token}`).expect(401);
      }
    }
  });

  /** svc_password_verifications_total summed over the three nodes. */
  async function verifications(): Promise<number> {
    let total = 0;
    for (const node of nodes) {
      const text = (await request(node.url).get('/api/v2/metrics/').set('Authorization', admin).expect(200)).text;
      for (const m of text.matchAll(/^svc_password_verifications_total(?:\{[^}]*\})? (\d+)/gm)) total += Number(m[1]);
    }
    return total;
  }
});
