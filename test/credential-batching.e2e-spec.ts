import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { PreparedStatements } from '../src/database/prepared-statements';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { browserLogin } from './support/browser-login';

/**
 * The hot lookups of concurrent requests share one statement (database/lookup-batches.ts). Whatever
 * lands in one batch, each request must be answered as its own credential: no answer crosses to another
 * request of the burst, and a refused credential refuses only its own request.
 */
describe('concurrent credentials (lookups in shared statements)', () => {
  let t: TestApp;
  const USERS = 12;
  const admin = basic('admin', ADMIN_PASSWORD);
  const people: { id: number; username: string; password: string; cookie: string; token: string; tokenId: number }[] = [];

  type Kind = 'session' | 'bearer' | 'basic';
  type Person = (typeof people)[number];
  interface Asked {
    p: Person;
    kind: Kind;
    password?: string;
  }

  /** GET /api/v2/me/ with the request's credential, on one of the agent's open connections. */
  function me(agent: http.Agent, { p, kind, password = p.password }: Asked): Promise<{ status: number; body: Record<string, any> }> {
    const headers: Record<string, string> =
      kind === 'session' ? { Cookie: p.cookie } : kind === 'bearer' ? { Authorization: `Bearer ${p.token}` } : { Authorization: basic(p.username, password) };
    return new Promise((resolve, reject) => {
      const req = http.get(`${t.url}/api/v2/me/`, { agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
    });
  }

  /**
   * The requests written at once on connections already open, so that they reach the service in the
   * same turn of its event loop and their lookups share statements. Sent again (at most 10 times) until
   * a statement carried more than one lookup; every answer of every burst is returned.
   */
  async function burst(asked: Asked[]): Promise<{ status: number; body: Record<string, any> }[][]> {
    const agent = new http.Agent({ keepAlive: true, maxSockets: asked.length });
    const prepared = t.app.get(PreparedStatements);
    const rounds: { status: number; body: Record<string, any> }[][] = [];
    try {
      // Open every connection first (a ping each, all at once).
      await Promise.all(asked.map(() => new Promise((resolve) => http.get(`${t.url}/api/v2/ping/`, { agent }, (res) => res.resume().on('end', resolve)))));
      for (let round = 0; round < 10; round++) {
        const before = prepared.lookupCounts();
        rounds.push(await Promise.all(asked.map((a) => me(agent, a))));
        const after = prepared.lookupCounts();
        if (after.statements - before.statements < after.lookups - before.lookups) return rounds;
      }
      assert.fail('no burst had two lookups in one statement');
    } finally {
      agent.destroy();
    }
  }

  before(async () => {
    t = await startTestApp();
    // Bursts are repeated (up to 10 times) with the same wrong names: the login throttle must not answer for them.
    await t.settings({ LOGIN_FAILURES_ALLOWED: 1000 });
    for (let i = 0; i < USERS; i++) {
      const username = `burst${i}`;
      const password = `Burst-pass-${i}-x`;
      const id = await t.createUser(username, password);
      const cookie = `${t.config.sessionCookieName}=${(await browserLogin(t, username, password)).session}`;
      const created = await t.http().post('/api/v2/tokens/').set('Authorization', basic(username, password)).send({ scope: 'read' }).expect(201);
      people.push({ id, username, password, cookie, token: created.body.token, tokenId: created.body.id });
    }
  });
  after(() => t.close());

  it('answers every request of a burst as its own credential, whatever shares its statement', async () => {
    const asked = people.flatMap((p) => (['session', 'bearer', 'basic'] as Kind[]).map((kind) => ({ p, kind })));
    for (const answers of await burst(asked)) {
      answers.forEach((res, i) => {
        assert.equal(res.status, 200, `${asked[i].kind} of ${asked[i].p.username}`);
        assert.equal(res.body.results[0].username, asked[i].p.username, `${asked[i].kind} answered as its own user`);
        assert.equal(res.body.results[0].id, asked[i].p.id);
      });
    }
  });

  it('matches user names exactly in a burst, on a case-insensitive collation too', async () => {
    // "BURST0" finds burst0's row on MySQL's collation; only the exact name may authenticate.
    const asked: Asked[] = people.slice(0, 4).flatMap((p) => [
      { p, kind: 'basic' as Kind },
      { p: { ...p, username: p.username.toUpperCase() }, kind: 'basic' as Kind },
    ]);
    for (const answers of await burst(asked)) {
      answers.forEach((res, i) => {
        const exact = i % 2 === 0;
        assert.equal(res.status, exact ? 200 : 401, `${asked[i].p.username}`);
        if (exact) assert.equal(res.body.results[0].username, asked[i].p.username);
      });
    }
  });

  it('refuses in a burst exactly the revoked, ended or wrong credentials, and no other', async () => {
    const refused = people.filter((_, i) => i % 2 === 1);
    for (const p of refused) {
      await t.http().delete(`/api/v2/tokens/${p.tokenId}/`).set('Authorization', admin).expect(204);
      await t.http().delete(`/api/v2/users/${p.id}/sessions/`).set('Authorization', admin).expect(204);
    }
    const asked = people.flatMap((p) =>
      (['session', 'bearer', 'basic'] as Kind[]).map((kind) => ({ p, kind, password: refused.includes(p) ? 'wrong-password' : p.password })),
    );
    for (const answers of await burst(asked)) {
      answers.forEach((res, i) => {
        const { p, kind } = asked[i];
        if (refused.includes(p)) {
          assert.equal(res.status, 401, `${kind} of ${p.username} is refused`);
          assert.equal(res.body.results, undefined);
        } else {
          assert.equal(res.status, 200, `${kind} of ${p.username} still works`);
          assert.equal(res.body.results[0].username, p.username);
        }
      });
    }
  });
});
