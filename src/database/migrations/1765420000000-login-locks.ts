import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { timestampColumn } from './columns';

/** users/usernames.ts `foldUsername`, as 1765300000000 copies it (database/ imports no feature). */
function fold(name: string): string {
  const normal = /^[\x20-\x7e]*$/.test(name) ? name : name.normalize('NFKC');
  return /^[\x20-\x7e]*$/.test(normal) ? normal.toLowerCase() : normal.toUpperCase().toLowerCase();
}

/**
 * SPEC §22's lockout with unlock (issue 57) on §12's throttle counters: which counters are password pairs
 * (`lockable`: the only ones listed and unlocked; §15's and §16's code counters share the table), the lock a
 * pair took when its locking failure was recorded (`locked_until`, or `locked_indefinitely` for -1), its first
 * and last counted failures, and the name folded as §20 compares names, so that `user` and a user's
 * `login_locked` are found by an index on both databases alike. The counters that exist get their folded name
 * here (computed in JS: SQLite's LOWER() folds ASCII only) and become the pair's key (SPEC §22: `Alice` and
 * `ALICE` from one address are one pair); none is lockable yet, so none is listed until its next attempt.
 */
export class LoginLocks1765420000000 implements MigrationInterface {
  name = 'LoginLocks1765420000000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type === 'mysql';
    await q.addColumns('login_failure', [
      // Exact on MySQL: its default collation would also make `emile` and `émile` one key, which SQLite does not.
      new TableColumn({ name: 'username_folded', type: 'varchar', length: '600', isNullable: true, ...(mysql ? { collation: 'utf8mb4_bin' } : {}) }),
      new TableColumn({ name: 'lockable', type: 'boolean', default: false }),
      new TableColumn(timestampColumn('first_failure', true)),
      new TableColumn(timestampColumn('last_failure', true)),
      new TableColumn(timestampColumn('locked_until', true)),
      new TableColumn({ name: 'locked_indefinitely', type: 'boolean', default: false }),
    ]);
    const rows = (await q.query('SELECT id, username, client_ip FROM login_failure')) as { id: number; username: string; client_ip: string }[];
    const kept = new Set<string>();
    for (const row of rows.sort((a, b) => Number(a.id) - Number(b.id))) {
      const key = JSON.stringify([fold(row.username), row.client_ip]);
      // Two spellings counted apart before (SQLite): one pair now, the older counter kept.
      if (kept.has(key)) await q.query('DELETE FROM login_failure WHERE id = ?', [row.id]);
      else await q.query('UPDATE login_failure SET username_folded = ? WHERE id = ?', [fold(row.username), row.id]);
      kept.add(key);
    }
    await q.dropIndex('login_failure', 'UQ_login_failure_pair');
    await q.createIndex('login_failure', new TableIndex({ name: 'UQ_login_failure_pair_folded', columnNames: ['username_folded', 'client_ip'], isUnique: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('login_failure', 'UQ_login_failure_pair_folded');
    await q.createIndex('login_failure', new TableIndex({ name: 'UQ_login_failure_pair', columnNames: ['username', 'client_ip'], isUnique: true }));
    for (const column of ['locked_indefinitely', 'locked_until', 'last_failure', 'first_failure', 'lockable', 'username_folded']) await q.dropColumn('login_failure', column);
  }
}
