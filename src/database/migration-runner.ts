import type { DataSource } from 'typeorm';

const LOCK_NAME = 'automation_service_migrations';

/**
 * Runs pending migrations under a database-wide lock so several nodes can start together:
 * MySQL's GET_LOCK on a held connection; SQLite serialises writers on the file itself.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<number> {
  if (dataSource.options.type !== 'mysql') {
    const done = await dataSource.runMigrations({ transaction: 'all' });
    return done.length;
  }
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [row] = await runner.query('SELECT GET_LOCK(?, 120) AS acquired', [LOCK_NAME]);
    if (Number(row.acquired) !== 1) throw new Error('could not take the migration lock within 120 seconds');
    try {
      const done = await dataSource.runMigrations({ transaction: 'each' });
      return done.length;
    } finally {
      await runner.query('SELECT RELEASE_LOCK(?)', [LOCK_NAME]);
    }
  } finally {
    await runner.release();
  }
}
