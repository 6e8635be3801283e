import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, timestampColumn } from './columns';

export class Sessions1763850000000 implements MigrationInterface {
  name = 'Sessions1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'user_session',
        columns: [
          idColumn(),
          { name: 'key_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'user_id', type: 'integer' },
          { name: 'ip_address', type: 'varchar', length: '45' },
          { name: 'user_agent', type: 'varchar', length: '512', default: "''" },
          timestampColumn('created'),
          timestampColumn('last_seen'),
          timestampColumn('expires'),
          timestampColumn('absolute_expires', true),
          timestampColumn('ended_at', true),
          { name: 'ended_reason', type: 'varchar', length: '32', isNullable: true },
        ],
      }),
    );
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_user_ended', columnNames: ['user_id', 'ended_at'] }));
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_ip_ended', columnNames: ['ip_address', 'ended_at'] }));
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_expires', columnNames: ['expires'] }));
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_ended_at', columnNames: ['ended_at'] }));
    await q.createForeignKey(
      'user_session',
      new TableForeignKey({ columnNames: ['user_id'], referencedTableName: 'auth_user', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
    );
    // Rows locked with SELECT ... FOR UPDATE to serialise logins of one user or one address (MySQL).
    await q.createTable(new Table({ name: 'session_lock', columns: [{ name: 'name', type: 'varchar', length: '100', isPrimary: true }] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('session_lock');
    await q.dropTable('user_session');
  }
}
