import type { Pool, PoolConnection } from 'mysql2';
import type { DataSource } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';

const CAUSAL_READS = 'SET SESSION wsrep_sync_wait = 1';

/** The mysql2 pool behind a MySQL DataSource (`MysqlDriver.pool`, public in TypeORM's typings). */
function mysqlPool(dataSource: DataSource): Pool {
  return (dataSource.driver as MysqlDriver).pool as Pool;
}

/**
 * On a Galera member, a read waits for what other members committed only with `wsrep_sync_wait` (bit 1);
 * without it a token revoked through one member could pass through another for a moment. Galera ships with
 * 0, and an operator of a managed cluster may not change a global (SPEC §18), so the service sets the
 * session variable on every connection of its own pool: the ones the pool holds now, and each new one as
 * the pool opens it (mysql2 runs the SET before any other command on that connection). It refuses to start
 * only when the session value does not take. Nothing happens off Galera, or when the global already has it.
 */
export async function ensureCausalReads(dataSource: DataSource): Promise<'off' | 'global' | 'session'> {
  if (dataSource.options.type !== 'mysql') return 'off';
  const rows = (await dataSource.query("SHOW GLOBAL VARIABLES WHERE Variable_name IN ('wsrep_on', 'wsrep_sync_wait')")) as { Variable_name: string; Value: string }[];
  const value = (name: string) => rows.find((r) => r.Variable_name === name)?.Value;
  if (value('wsrep_on') !== 'ON') return 'off';
  if ((Number(value('wsrep_sync_wait')) & 1) === 1) return 'global';
  const pool = mysqlPool(dataSource);
  pool.on('connection', (connection) => connection.query(CAUSAL_READS));
  // Every connection the pool may already hold: take as many as it can hold at once and set each.
  const size = pool.config.connectionLimit ?? 10;
  const held = await Promise.all(
    Array.from({ length: size }, () => new Promise<PoolConnection>((resolve, reject) => pool.getConnection((err, c) => (err ? reject(err) : resolve(c))))),
  );
  try {
    await Promise.all(held.map((c) => new Promise<void>((resolve, reject) => c.query(CAUSAL_READS, (err) => (err ? reject(err) : resolve())))));
  } finally {
    for (const c of held) c.release();
  }
  const [row] = (await dataSource.query('SELECT @@SESSION.wsrep_sync_wait AS v')) as { v: number | string }[];
  if ((Number(row?.v) & 1) === 0) {
    throw new Error('this database is a Galera cluster member and wsrep_sync_wait could not be set on the service\'s connections: set wsrep_sync_wait=1 (my.cnf or SET GLOBAL) so that every node reads what the others committed');
  }
  return 'session';
}
