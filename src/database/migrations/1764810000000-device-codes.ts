import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, timestampColumn } from './columns';

/**
 * The device authorization grant (RFC 8628, issue 32). Both codes are found by equality on their digests
 * (unique, hence indexed); the sweep deletes by `expires`; the foreign keys cascade, so deleting an
 * application or the approving user takes its device codes with it.
 */
export class DeviceCodes1764810000000 implements MigrationInterface {
  name = 'DeviceCodes1764810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'oauth2_device_code',
        columns: [
          idColumn(),
          { name: 'device_code_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'user_code_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'application_id', type: 'integer' },
          { name: 'scope', type: 'varchar', length: '32' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'user_id', type: 'integer', isNullable: true },
          { name: 'poll_interval', type: 'integer' },
          { name: 'polls', type: 'integer', default: 0 },
          timestampColumn('last_polled', true),
          timestampColumn('expires'),
          timestampColumn('decided_at', true),
          timestampColumn('created'),
        ],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['application_id'], referencedTableName: 'oauth2_application', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
          new TableForeignKey({ columnNames: ['user_id'], referencedTableName: 'auth_user', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
        indices: [
          new TableIndex({ name: 'IDX_oauth2_device_code_application_id', columnNames: ['application_id'] }),
          new TableIndex({ name: 'IDX_oauth2_device_code_user_id', columnNames: ['user_id'] }),
          new TableIndex({ name: 'IDX_oauth2_device_code_expires', columnNames: ['expires'] }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('oauth2_device_code');
  }
}
