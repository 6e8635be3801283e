import { randomBytes } from 'node:crypto';

/** What `seedRows` needs: a way to run one SQL statement with positional parameters. */
export interface SqlRunner {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

export interface SeedCounts {
  liveSessions: number;
  expiredSessions: number;
  tokens: number;
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
