import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/** The same rule as users/usernames.ts `foldUsername` (database/ imports no feature; the users spec proves they agree). */
function fold(name: string): string {
  const normal = /^[\x20-\x7e]*$/.test(name) ? name : name.normalize('NFKC');
  return /^[\x20-\x7e]*$/.test(normal) ? normal.toLowerCase() : normal.toUpperCase().toLowerCase();
}

/**
 * Every user's name as names compare (issue 55, SPEC §14 and §20: `Émile` is `émile` on every database):
 * computed by the service, stored, indexed, and filled in here for the users that exist. Not unique: two rows
 * made before this migration (SQLite folded ASCII only) may fold alike; a lookup takes the oldest.
 */
export class UsernameFolded1765300000000 implements MigrationInterface {
  name = 'UsernameFolded1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('auth_user', new TableColumn({ name: 'username_folded', type: 'varchar', length: '600', isNullable: true }));
    const rows = (await q.query('SELECT id, username FROM auth_user')) as { id: number; username: string }[];
    for (const row of rows) await q.query('UPDATE auth_user SET username_folded = ? WHERE id = ?', [fold(row.username), row.id]);
    await q.createIndex('auth_user', new TableIndex({ name: 'IDX_auth_user_username_folded', columnNames: ['username_folded'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('auth_user', 'IDX_auth_user_username_folded');
    await q.dropColumn('auth_user', 'username_folded');
  }
}
