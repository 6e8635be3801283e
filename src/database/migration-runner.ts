import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { startStep } from './start-progress';
import { isDeadlock, isLockConflict, isUniqueViolation } from './errors';

/** The lease row's name in `service_lock`, and the table (MySQL), as every node creates it before taking the lease. */
export const LEASE = 'migrations';
export const SERVICE_LOCK_TABLE =
  'CREATE TABLE IF NOT EXISTS service_lock (name VARCHAR(64) NOT NULL PRIMARY KEY, holder VARCHAR(64) NOT NULL, expires DATETIME(3) NOT NULL)';
const LEASE_SECONDS = 120;

/**
 * Runs pending migrations under a database-wide lock so several nodes can start together. On MySQL the
 * lock is a lease row in `service_lock`, not `GET_LOCK`: on a Galera cluster `GET_LOCK` holds on one
 * member only, while an inserted row is certified cluster-wide, so exactly one node holds the lease
 * whichever member it is attached to (the holder renews it; a lease left by a crashed node expires). SQLite:
 * see runSqliteMigrations.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<number> {
  if (dataSource.options.type !== 'mysql') return runSqliteMigrations(dataSource);
  await dataSource.query(SERVICE_LOCK_TABLE);
  const holder = randomBytes(12).toString('hex');
  const deadline = Date.now() + LEASE_SECONDS * 1000;
  for (;;) {
    try {
      await dataSource.query(`INSERT INTO service_lock (name, holder, expires) VALUES (?, ?, NOW(3) + INTERVAL ${LEASE_SECONDS} SECOND)`, [LEASE, holder]);
      break;
    } catch (err) {
      if (!isUniqueViolation(err) && !isDeadlock(err)) throw err;
      startStep('the migration lease, held by another node');
      if (Date.now() > deadline) throw new Error(`could not take the migration lock within ${LEASE_SECONDS} seconds`);
      await dataSource.query('DELETE FROM service_lock WHERE name = ? AND expires < NOW(3)', [LEASE]);
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  // Renewed while the migrations run, so a long one (an index over millions of rows) never lets the
  // lease expire under it; a renewal that fails is tried again at the next tick.
  const renewal = setInterval(() => {
    dataSource
      .query(`UPDATE service_lock SET expires = NOW(3) + INTERVAL ${LEASE_SECONDS} SECOND WHERE name = ? AND holder = ?`, [LEASE, holder])
      .catch(() => undefined);
  }, (LEASE_SECONDS * 1000) / 4);
  startStep('the migrations');
  try {
    return await migrateRetryingConflicts(dataSource);
  } finally {
    clearInterval(renewal);
    await dataSource.query('DELETE FROM service_lock WHERE name = ? AND holder = ?', [LEASE, holder]);
  }
}


/**
 * On a Galera member a migration's transaction can lose certification to a write certified on another
 * member at the same moment (another node starting: its lease attempt, its `CREATE TABLE IF NOT EXISTS`),
 * reported as a deadlock, and the node failed to start (seen once in five CI runs). Each migration ran in its
 * own transaction, so the ones still pending are looked up and run again, as a transaction would be.
 */
async function migrateRetryingConflicts(dataSource: DataSource): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await dataSource.runMigrations({ transaction: 'each' })).length;
    } catch (err) {
      if (!isLockConflict(err) || attempt >= 5) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/**
 * SQLite serialises writers on the file, but TypeORM reads which migrations ran before it opens its
 * transaction: two processes starting together on a new file can both decide to run the first one, and the
 * later one fails (`table "auth_user" already exists`, seen on Node 22's timing). Its transaction ('all')
 * rolled back whole, so it looks again: nothing pending means the other process did the work.
 */
async function runSqliteMigrations(dataSource: DataSource): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await dataSource.runMigrations({ transaction: 'all' })).length;
    } catch (err) {
      if (attempt >= 5) throw err;
      if (!(await dataSource.showMigrations())) return 0;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}
