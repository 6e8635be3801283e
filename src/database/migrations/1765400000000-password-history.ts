import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, timestampColumn } from './columns';

/**
 * `password_history` (SPEC §22, issue 57): the hashes of each local user's last 24 passwords, the current one
 * included, whatever LOCAL_PASSWORD_HISTORY says, so that raising the setting applies at once. The users that
 * exist start with their current hash. The foreign key cascades: a user's deletion clears the rows.
 */
export class PasswordHistory1765400000000 implements MigrationInterface {
  name = 'PasswordHistory1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'password_history',
        columns: [
          idColumn(),
          { name: 'user_id', type: 'integer' },
          { name: 'password', type: 'varchar', length: '255' },
          timestampColumn('created'),
        ],
      }),
    );
    await q.createIndex('password_history', new TableIndex({ name: 'IDX_password_history_user', columnNames: ['user_id', 'id'] }));
    await q.createForeignKey(
      'password_history',
      new TableForeignKey({ columnNames: ['user_id'], referencedTableName: 'auth_user', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
    );
    // Local users' usable hashes only: "!" marks an external or service account, which has no password here.
    await q.query(
      "INSERT INTO password_history (user_id, password, created) SELECT id, password, modified FROM auth_user WHERE external_account IS NULL AND password NOT LIKE '!%'",
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('password_history');
  }
}
