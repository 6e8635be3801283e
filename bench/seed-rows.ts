import { randomBytes } from 'node:crypto';

/** What `seedRows` needs: a way to run one SQL statement with positional parameters. */
export interface SqlRunner {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

export interface SeedCounts {
  liveSessions: number;
  expiredSessions: number;
  tokens: number;
  /** Counted (name, address) pairs of the throttle, every other one locked (SPEC §22's `/api/v2/login_locks/`). */
  loginPairs?: number;
  /** Ended sessions (ended two days ago, due for deletion). */
  endedSessions?: number;
  /** Refresh tokens and authorization codes of `applicationId`, half of them expired or revoked. */
  refreshTokens?: number;
  codes?: number;
  /** Device codes (RFC 8628) of `applicationId`, half of them expired a day ago. */
  deviceCodes?: number;
  applicationId?: number;
  /** Login-throttle counters of other pairs, half of them from a window long past. */
  loginFailures?: number;
  /** Pending login state (SSO transactions, second steps), from many addresses, half of it expired. */
  pendingStates?: number;
  /** SPEC §23's authentication events: one in ten of `userId`, the rest of no user; one millisecond apart. */
  authEvents?: number;
  /** SPEC §23's activity stream: user updates one millisecond apart, one in ten of `userId` (and made by them), the rest of user 1. */
  streamEntries?: number;
}

/**
 * Many sessions and tokens for one user, written by the database itself (`INSERT … SELECT` over a
 * generated sequence, in chunks), so a million rows take seconds rather than a million round trips.
 * Used by the scale benchmark (`npm run bench -- --scale N`) and, at a smaller size, by
 * test/scale.e2e-spec.ts. Creation times step back one millisecond per row from `now`.
 */
export async function seedRows(db: SqlRunner, mysql: boolean, userId: number, counts: SeedCounts, now = new Date()): Promise<void> {
  const salt = randomBytes(8).toString('hex');
  const day = 24 * 3600 * 1000;
  const text = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '');
  await insertSequence(db, mysql, counts.liveSessions, (n, from) =>
    `INSERT INTO user_session (key_hash, user_id, ip_address, user_agent, created, last_seen, expires, absolute_expires, ended_at, ended_reason) ` +
    `SELECT ${hash(mysql, `'${salt}s'`, n)}, ${userId}, '10.1.0.1', 'seeded', ${minus(mysql, `'${text(now)}'`, n)}, ${minus(mysql, `'${text(now)}'`, n)}, ` +
    `'${text(new Date(now.getTime() + day))}', NULL, NULL, NULL ${from}`,
  );
  await insertSequence(db, mysql, counts.expiredSessions, (n, from) =>
    `INSERT INTO user_session (key_hash, user_id, ip_address, user_agent, created, last_seen, expires, absolute_expires, ended_at, ended_reason) ` +
    `SELECT ${hash(mysql, `'${salt}e'`, n)}, ${userId}, '10.1.0.2', 'seeded', '${text(new Date(now.getTime() - 2 * day))}', ` +
    `'${text(new Date(now.getTime() - 2 * day))}', ${minus(mysql, `'${text(new Date(now.getTime() - 60_000))}'`, n)}, NULL, NULL, NULL ${from}`,
  );
  await insertSequence(db, mysql, counts.tokens, (n, from) =>
    `INSERT INTO oauth2_access_token (token_hash, user_id, application_id, description, scope, expires, last_used, family, created, modified) ` +
    `SELECT ${hash(mysql, `'${salt}t'`, n)}, ${userId}, NULL, 'seeded', 'write', '${text(new Date(now.getTime() + 365 * day))}', NULL, NULL, ` +
    `${minus(mysql, `'${text(now)}'`, n)}, '${text(now)}' ${from}`,
  );
  const ago = (ms: number) => `'${text(new Date(now.getTime() - ms))}'`;
  await insertSequence(db, mysql, counts.endedSessions ?? 0, (n, from) =>
    `INSERT INTO user_session (key_hash, user_id, ip_address, user_agent, created, last_seen, expires, absolute_expires, ended_at, ended_reason) ` +
    `SELECT ${hash(mysql, `'${salt}x'`, n)}, ${userId}, '10.1.0.3', 'seeded', ${ago(3 * day)}, ${ago(3 * day)}, ${ago(2 * day)}, NULL, ${minus(mysql, ago(2 * day), n)}, 'logged_out' ${from}`,
  );
  const app = counts.applicationId;
  // Even rows revoked (or used) two days ago, odd rows live.
  const halfPast = (n: string, past: string, live: string) => `CASE WHEN MOD(${n}, 2) = 0 THEN ${past} ELSE ${live} END`;
  if (app !== undefined) {
    await insertSequence(db, mysql, counts.refreshTokens ?? 0, (n, from) =>
      `INSERT INTO oauth2_refresh_token (token_hash, user_id, application_id, access_token_id, family, family_started, scope, revoked_at, created, modified) ` +
      `SELECT ${hash(mysql, `'${salt}r'`, n)}, ${userId}, ${app}, NULL, ${familyOf(mysql, n)}, ${ago(2 * day)}, 'write', ${halfPast(n, ago(2 * day), 'NULL')}, ` +
      `${minus(mysql, `'${text(now)}'`, n)}, '${text(now)}' ${from}`,
    );
    await insertSequence(db, mysql, counts.codes ?? 0, (n, from) =>
      `INSERT INTO oauth2_authorization_code (code_hash, application_id, user_id, redirect_uri, scope, code_challenge, code_challenge_method, expires, used_at, family, created) ` +
      `SELECT ${hash(mysql, `'${salt}c'`, n)}, ${app}, ${userId}, NULL, 'read', NULL, NULL, ${halfPast(n, ago(day), `'${text(new Date(now.getTime() + 600_000))}'`)}, NULL, NULL, ` +
      `${minus(mysql, `'${text(now)}'`, n)} ${from}`,
    );
    await insertSequence(db, mysql, counts.deviceCodes ?? 0, (n, from) =>
      `INSERT INTO oauth2_device_code (device_code_hash, user_code_hash, application_id, scope, state, user_id, poll_interval, polls, last_polled, expires, decided_at, created) ` +
      `SELECT ${hash(mysql, `'${salt}d'`, n)}, ${hash(mysql, `'${salt}u'`, n)}, ${app}, 'write', 'pending', NULL, 5, 0, NULL, ` +
      `${halfPast(n, ago(day), `'${text(new Date(now.getTime() + 600_000))}'`)}, NULL, ${minus(mysql, `'${text(now)}'`, n)} ${from}`,
    );
  }
  const seededName = (n: string) => (mysql ? `CONCAT('seeded-', ${n})` : `'seeded-' || ${n}`);
  await insertSequence(db, mysql, counts.loginPairs ?? 0, (n, from) =>
    `INSERT INTO login_failure (username, username_folded, client_ip, failures, pending, window_start, lockable, first_failure, last_failure, locked_until, locked_indefinitely) ` +
    `SELECT ${seededName(n)}, ${seededName(n)}, '10.9.0.1', ${halfPast(n, '5', '2')}, 0, ${ago(60_000)}, ${mysql ? 'TRUE' : '1'}, ${ago(60_000)}, ${ago(30_000)}, ` +
    `${halfPast(n, `'${text(new Date(now.getTime() + 840_000))}'`, 'NULL')}, ${mysql ? 'FALSE' : '0'} ${from}`,
  );
  await insertSequence(db, mysql, counts.pendingStates ?? 0, (n, from) =>
    `INSERT INTO pending_state (state_key, provider, data, created, expires, client_ip) ` +
    `SELECT ${mysql ? `CONCAT('seeded:', ${n})` : `'seeded:' || ${n}`}, 'mfa', NULL, ${ago(60_000)}, ` +
    `${halfPast(n, ago(day), `'${text(new Date(now.getTime() + 300_000))}'`)}, ${mysql ? `CONCAT('10.8.', MOD(${n}, 5000))` : `'10.8.' || (${n} % 5000)`} ${from}`,
  );
  await insertSequence(db, mysql, counts.authEvents ?? 0, (n, from) =>
    `INSERT INTO authentication_event (timestamp, event, user_id, user_username, user_first_name, user_last_name, username, source, method, reason, ` +
    `session_id, token_id, ip_address, user_agent, request_id, action_node, details) ` +
    `SELECT ${minus(mysql, `'${text(now)}'`, n)}, 'login_failed', CASE WHEN MOD(${n}, 10) = 0 THEN ${userId} ELSE NULL END, NULL, NULL, NULL, 'seeded', ` +
    `'local', 'basic', 'wrong_password', NULL, NULL, '10.7.0.1', 'seeded', NULL, 'bench', '{}' ${from}`,
  );
  await insertSequence(db, mysql, counts.streamEntries ?? 0, (n, from) =>
    `INSERT INTO main_activitystream (timestamp, operation, object1, object2, object_association, object_type, action_node, changes, summary_fields, ` +
    `actor_id, actor_username, actor_first_name, actor_last_name, setting_category, setting_name) ` +
    `SELECT ${minus(mysql, `'${text(now)}'`, n)}, 'update', 'user', '', '', '', 'bench', '{"first_name": ["a", "b"]}', '{}', ` +
    `CASE WHEN MOD(${n}, 10) = 0 THEN ${userId} ELSE NULL END, CASE WHEN MOD(${n}, 10) = 0 THEN 'bulk' ELSE NULL END, NULL, NULL, NULL, NULL ${from}`,
  );
  if (counts.streamEntries) {
    await db.query(
      `INSERT INTO main_activitystream_object (entry_id, kind, object_id) SELECT id, 'user', CASE WHEN actor_id IS NULL THEN 1 ELSE actor_id END ` +
        `FROM main_activitystream WHERE action_node = 'bench'`,
    );
    // Each user's own list: the user touched (the bulk user is also the actor of its entries).
    await db.query(`INSERT INTO main_activitystream_object (entry_id, kind, object_id) SELECT entry_id, 'user_list', object_id FROM main_activitystream_object WHERE kind = 'user'`);
  }
  await insertSequence(db, mysql, counts.loginFailures ?? 0, (n, from) =>
    `INSERT INTO login_failure (username, client_ip, failures, pending, window_start) ` +
    `SELECT 'seeded', ${mysql ? `CONCAT('10.9.', ${n})` : `'10.9.' || ${n}`}, 1, 0, ${halfPast(n, ago(2 * day), `'${text(now)}'`)} ${from}`,
  );
}

/** One family per two refresh tokens (a rotation), as text. */
function familyOf(mysql: boolean, n: string): string {
  return mysql ? `CONCAT('f', FLOOR((${n}) / 2))` : `'f' || ((${n}) / 2)`;
}

const CHUNK = 100_000;

/** Runs `statement` for n = 0 … total-1, CHUNK rows per statement, numbers made by a digits cross join. */
async function insertSequence(db: SqlRunner, mysql: boolean, total: number, statement: (n: string, from: string) => string): Promise<void> {
  const digits = '(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
  const levels = 5; // 100,000 numbers per chunk
  const from = Array.from({ length: levels }, (_, i) => `${digits} d${i}`).join(' CROSS JOIN ');
  const local = Array.from({ length: levels }, (_, i) => `d${i}.d * ${10 ** i}`).join(' + ');
  if (!mysql) await db.query('BEGIN');
  try {
    for (let start = 0; start < total; start += CHUNK) {
      const size = Math.min(CHUNK, total - start);
      const n = `(${start} + ${local})`;
      await db.query(`${statement(n, `FROM ${from}`)} WHERE ${local} < ${size}`);
    }
    if (!mysql) await db.query('COMMIT');
  } catch (err) {
    if (!mysql) await db.query('ROLLBACK');
    throw err;
  }
}

function hash(mysql: boolean, salt: string, n: string): string {
  return mysql ? `SHA2(CONCAT(${salt}, ${n}), 256)` : `lower(hex(randomblob(32)))`;
}

/** A datetime `n` milliseconds before `base`, as each database stores it. */
function minus(mysql: boolean, base: string, n: string): string {
  return mysql ? `DATE_SUB(${base}, INTERVAL (${n}) * 1000 MICROSECOND)` : `strftime('%Y-%m-%d %H:%M:%f', ${base}, '-' || ((${n}) / 1000.0) || ' seconds')`;
}
