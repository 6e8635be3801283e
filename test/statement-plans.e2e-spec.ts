import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { seedRows } from '../bench/seed-rows';
import { CLEANUP_BATCH } from '../src/users/revocation-jobs';
import { limitedStatement, PlannedStatement } from '../src/database/batch-statements';
import { SessionsRepository } from '../src/sessions/sessions.repository';
import { DeviceCodesRepository } from '../src/tokens/device-codes.repository';
import { PendingStateRepository } from '../src/pending-state/pending-state.repository';
import { TokensRepository } from '../src/tokens/tokens.repository';
import { UsersRepository } from '../src/users/users.repository';
import { planProblems } from './support/statement-plans';
import { startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';

/**
 * Every periodic and clean-up statement is planned by an index on both databases (issue 29), at about
 * 100,000 rows per table: no full scan of a table that grows, no subquery run once per row. The
 * statements are the repositories' own (each lists what it runs periodically), so a new one is
 * checked as soon as it is listed. Two statements written wrong prove that the check sees it.
 */
const TABLES = ['user_session', 'oauth2_access_token', 'oauth2_refresh_token', 'oauth2_authorization_code', 'oauth2_device_code', 'login_failure', 'oauth2_token_family', 'pending_state'];

describe(`periodic statements are planned by an index at 100,000 rows (issue 29) [${TEST_DB}]`, () => {
  let t: TestApp;
  let ds: DataSource;
  let userId: number;
  const now = new Date();

  before(async () => {
    t = await startTestApp({ env: { SESSION_SWEEP: 'off' } });
    ds = t.app.get(DataSource);
    userId = await t.createUser('planned', 'Planned-pass-1');
    const stamp = now.toISOString().replace('T', ' ').replace('Z', '');
    await ds.query(
      "INSERT INTO oauth2_application (name, description, client_id, client_secret_hash, client_type, redirect_uris, authorization_grant_type, skip_authorization, user_id, created, modified) VALUES ('plans', '', 'plans-client', NULL, 'public', '', 'password', 0, ?, ?, ?)",
      [userId, stamp, stamp],
    );
    const [{ id: applicationId }] = (await ds.query("SELECT id FROM oauth2_application WHERE client_id = 'plans-client'")) as { id: number }[];
    await seedRows(ds, TEST_DB === 'mysql', userId, {
      liveSessions: 60_000, expiredSessions: 30_000, endedSessions: 10_000, tokens: 100_000,
      applicationId: Number(applicationId), refreshTokens: 100_000, codes: 100_000, deviceCodes: 100_000, loginFailures: 100_000, pendingStates: 100_000,
    }, now);
    if (TEST_DB === 'mysql') await ds.query(`ANALYZE TABLE ${TABLES.join(', ')}`);
    else await ds.query('ANALYZE');
  });
  after(() => t?.close());

  function statements(): PlannedStatement[] {
    const sample = { userId, now };
    return [
      ...t.app.get(SessionsRepository).periodicStatements(sample),
      ...t.app.get(TokensRepository).periodicStatements(sample),
      ...t.app.get(UsersRepository).periodicStatements(sample),
      ...t.app.get(DeviceCodesRepository).periodicStatements(sample),
      ...t.app.get(PendingStateRepository).periodicStatements(sample),
    ];
  }

  it('lists the periodic statements of sessions, tokens, device codes, the login throttle and the pending state', () => {
    const names = statements().map((s) => s.name);
    for (const expected of [/sessions: sweep idle/, /sessions: delete ended/, /sessions: end all of a user/, /login throttle/, /refresh/i, /access/i, /device-code sweep/, /pending-state sweep/, /pending state: the logins of one address/, /pending state: count of pending logins/, /the global ceiling, pending logins/]) {
      assert.ok(names.some((n) => expected.test(n)), `no statement named like ${expected}: ${names.join(', ')}`);
    }
  });

  it('plans none of them as a full scan or a per-row subquery', async () => {
    const found: string[] = [];
    for (const statement of statements()) {
      const { plan, problems } = await planProblems(ds, statement, TABLES);
      if (problems.length) found.push(`${statement.name}: ${problems.join('; ')}\n  ${statement.sql}\n  => ${plan}`);
    }
    assert.deepEqual(found, []);
  });

  it('sees a statement on an unindexed column as a full scan', async () => {
    const sql = limitedStatement(TEST_DB === 'mysql' ? 'mysql' : 'sqlite', 'DELETE FROM user_session', 'user_session', 'user_agent = ?', CLEANUP_BATCH);
    const { problems } = await planProblems(ds, { name: 'fixture: unindexed', sql, params: ['seeded'] }, TABLES);
    assert.ok(problems.some((p) => /scan|index walk/.test(p)), `not caught: ${problems.join('; ')}`);
  });

  it('sees a subquery run once per row, and the old portable batch form MariaDB walked the table with', async () => {
    const perRow =
      "UPDATE user_session SET ended_reason = 'idle_timeout' WHERE ended_at IS NULL AND expires <= " +
      '(SELECT MAX(s2.created) FROM user_session s2 WHERE s2.user_id = user_session.user_id AND s2.ip_address = user_session.ip_address)';
    const correlated = await planProblems(ds, { name: 'fixture: per-row subquery', sql: perRow, params: [] }, TABLES);
    assert.ok(correlated.problems.some((p) => /dependent|correlated/.test(p)), `not caught: ${correlated.plan}`);
    if (TEST_DB !== 'mysql') return; // SQLite planned the old form by its index: only MariaDB walked the table
    const derived =
      'UPDATE user_session SET ended_at = expires, ended_reason = ? WHERE id IN ' +
      `(SELECT id FROM (SELECT id FROM user_session WHERE ended_at IS NULL AND expires <= ? LIMIT ${CLEANUP_BATCH}) AS due)`;
    const old = await planProblems(ds, { name: 'fixture: derived table', sql: derived, params: ['idle_timeout', now.toISOString().replace('T', ' ').replace('Z', '')] }, TABLES);
    assert.ok(old.problems.length > 0, `not caught: ${old.plan}`);
  });
});
