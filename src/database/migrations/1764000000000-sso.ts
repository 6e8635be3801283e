import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, timestampColumn } from './columns';

export class Sso1764000000000 implements MigrationInterface {
  name = 'Sso1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'social_auth',
        columns: [
          idColumn(),
          { name: 'user_id', type: 'integer' },
          { name: 'provider', type: 'varchar', length: '150' },
          { name: 'uid', type: 'varchar', length: '255' },
          timestampColumn('created'),
        ],
      }),
    );
    await q.createIndex('social_auth', new TableIndex({ name: 'UQ_social_auth_provider_uid', columnNames: ['provider', 'uid'], isUnique: true }));
    await q.createIndex('social_auth', new TableIndex({ name: 'IDX_social_auth_user', columnNames: ['user_id'] }));
    await q.createForeignKey(
      'social_auth',
      new TableForeignKey({ columnNames: ['user_id'], referencedTableName: 'auth_user', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
    );
    await q.createTable(
      new Table({
        name: 'sso_state',
        columns: [
          { name: 'state_key', type: 'varchar', length: '255', isPrimary: true },
          { name: 'provider', type: 'varchar', length: '160', default: "''" },
          { name: 'data', type: 'text', isNullable: true },
          timestampColumn('created'),
          timestampColumn('expires'),
        ],
      }),
    );
    await q.createIndex('sso_state', new TableIndex({ name: 'IDX_sso_state_expires', columnNames: ['expires'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sso_state');
    await q.dropTable('social_auth');
  }
}
