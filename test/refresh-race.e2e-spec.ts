// @galera: npm test runs this file again on a 3-member Galera cluster (scripts/galera-files.sh)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { basic } from './support/test-app';
import { createTestDatabase, TEST_DB, TestDatabase } from './support/test-db';
import { eventsSince, logMarks } from './support/log-events';
import { ServiceProcess, spawnServices } from './support/service-process';

/**
 * SPEC §5: parallel uses of one refresh token. Exactly one request rotates it; the others are a
 * reuse, which kills the whole family, including whatever the winner was just issued. Eight real
 * parallel requests, spread over two service processes on one database.
 */
const RACERS = 8;

describe(`refresh token raced by ${RACERS} requests over two processes (${TEST_DB})`, () => {
  let db: TestDatabase;
  let nodes: ServiceProcess[];
  let clientId: string;
  const admin = basic('admin', 'Race-admin-pass-1');

  before(async () => {
    db = await createTestDatabase();
    nodes = await spawnServices(2, { DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD: 'Race-admin-pass-1', SECRET_KEY: 'refresh-race-secret-key-0123456789abcdefghij' });
    const app = await request(nodes[0].url).post('/api/v2/applications/').set('Authorization', admin)
      .send({ name: 'racer', client_type: 'public', authorization_grant_type: 'password' }).expect(201);
    clientId = app.body.client_id;
  });
  after(async () => {
    await Promise.all((nodes ?? []).map((n) => n.stop()));
    await db.drop();
  });

  const token = (node: ServiceProcess, form: Record<string, string>) => request(node.url).post('/api/o/token/').type('form').send({ client_id: clientId, ...form });

  for (let round = 1; round <= 3; round++) {
    it(`round ${round}: exactly one rotation wins, the others are refused as a reuse, and afterwards no token of the family works`, async () => {
      const first = (await token(nodes[0], { grant_type: 'password', username: 'admin', password: 'Race-admin-pass-1' }).expect(200)).body;
      const marks = logMarks(nodes);
      const answers = await Promise.all(
        Array.from({ length: RACERS }, (_, i) => token(nodes[i % 2], { grant_type: 'refresh_token', refresh_token: first.refresh_token })),
      );
      // Each racer leaves one event: the compare-and-swap's one winner `refresh_token_rotated`, every loser
      // `refresh_token_reused`. A lock that refused every racer would show no rotation, a broken one two.
      const events = await eventsSince(nodes, marks, ['refresh_token_rotated', 'refresh_token_reused'], RACERS);
      assert.deepEqual(events, { refresh_token_rotated: 1, refresh_token_reused: RACERS - 1 });
      // The winner's answer is its new pair, unless a loser's reuse revoked the family before the winner saved
      // it (SPEC §5: nothing issued to a request that raced the reuse works): then it is refused like the rest.
      const winners = answers.filter((a) => a.status === 200);
      assert.ok(winners.length === 1 || answers.every((a) => a.status === 400), answers.map((a) => a.status).join(' '));
      for (const a of answers.filter((x) => x.status !== 200)) {
        assert.equal(a.status, 400, a.text);
        assert.equal(a.body.error, 'invalid_grant');
      }
      // The reuse killed the family: the original access token, and anything the winner got, on both nodes.
      for (const node of nodes) {
        await request(node.url).get('/api/v2/me/').set('Authorization', `Bearer ${first.access_token}`).expect(401);
        for (const w of winners) {
          await request(node.url).get('/api/v2/me/').set('Authorization', `Bearer ${w.body.access_token}`).expect(401);
          const again = await token(node, { grant_type: 'refresh_token', refresh_token: w.body.refresh_token });
          assert.equal(again.status, 400, 'the winner\'s refresh token is dead too');
        }
      }
    });
  }
});
