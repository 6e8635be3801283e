import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { Scheduler } from '../src/common/scheduler';
import { createTestDatabase, TestDatabase } from './support/test-db';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

/** Background work is declared in one place (src/background-work.ts), visible in the metrics, and stopped before the last flush. */
describe('background loops', () => {
  let db: TestDatabase;
  let t: TestApp;
  before(async () => {
    db = await createTestDatabase();
    t = await startTestApp({ db });
  });
  after(() => db.drop());

  it('declares every loop with its period', () => {
    assert.deepEqual(
      t.app.get(Scheduler).list().sort((a, b) => a.name.localeCompare(b.name)),
      [
        { name: 'activity-stream-retention', periodMs: 600000 },
        { name: 'authentication-events-retention', periodMs: 600000 },
        { name: 'database-probe', periodMs: 1000 },
        { name: 'device-code-sweep', periodMs: 60000 },
        { name: 'inactive-accounts-sweep', periodMs: 900000 },
        { name: 'last-used-flush', periodMs: 15000 },
        { name: 'login-claims-sweep', periodMs: 60000 },
        { name: 'pending-state-sweep', periodMs: 60000 },
        { name: 'revocation-cleanup', periodMs: 1000 },
        { name: 'session-sweep', periodMs: 60000 },
        { name: 'session-watch', periodMs: 2000 },
        { name: 'settings-refresh', periodMs: 400 },
        { name: 'throttle-sweep', periodMs: 60000 },
        { name: 'token-expiry-notices', periodMs: 60000 },
      ],
    );
  });

  it('shows each loop and its passes in the metrics', async () => {
    await t.app.get(Scheduler).runNow('session-sweep');
    const metrics = (await t.http().get('/api/v2/metrics/').set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(200)).text;
    assert.match(metrics, /^svc_background_loop_period_seconds\{loop="last-used-flush"\} 15$/m);
    assert.match(metrics, /^svc_background_loop_period_seconds\{loop="settings-refresh"\} 0\.4$/m);
    assert.match(metrics, /^svc_background_runs_total\{loop="session-sweep",outcome="ok"\} [1-9]\d*$/m);
  });

  it('stops every loop on shutdown, then flushes the buffered last_used stamps', async () => {
    const created = await t.http().post('/api/v2/tokens/').set('Authorization', basic('admin', ADMIN_PASSWORD)).send({}).expect(201);
    await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${created.body.token}`).expect(200);
    const dataSource = t.app.get(DataSource);
    const [before] = await dataSource.query('SELECT last_used FROM oauth2_access_token WHERE id = ?', [created.body.id]);
    assert.equal(before.last_used, null, 'the stamp waits in memory for the next flush');
    // Close the app without dropping the database, then read the row with a connection of our own.
    await t.app.close();
    const reader = await new DataSource({ ...(dataSource.options as object), entities: [], migrations: [] } as never).initialize();
    try {
      const [row] = await reader.query('SELECT last_used FROM oauth2_access_token WHERE id = ?', [created.body.id]);
      assert.notEqual(row.last_used, null, 'the last flush ran at shutdown');
    } finally {
      await reader.destroy();
    }
  });
});
