import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { createdModified, idColumn } from './columns';

export class UsersAndSettings1763800000000 implements MigrationInterface {
  name = 'UsersAndSettings1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'auth_user',
        columns: [
          idColumn(),
          { name: 'username', type: 'varchar', length: '150', isUnique: true },
          { name: 'first_name', type: 'varchar', length: '150', default: "''" },
          { name: 'last_name', type: 'varchar', length: '150', default: "''" },
          { name: 'email', type: 'varchar', length: '254', default: "''" },
          { name: 'password', type: 'varchar', length: '255' },
          { name: 'is_superuser', type: 'boolean', default: false },
          { name: 'is_system_auditor', type: 'boolean', default: false },
          { name: 'is_active', type: 'boolean', default: true },
          { name: 'external_account', type: 'varchar', length: '20', isNullable: true },
          ...createdModified(),
          { name: 'last_login', type: 'datetime', precision: 3, isNullable: true },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'conf_setting',
        columns: [
          idColumn(),
          { name: 'key', type: 'varchar', length: '255', isUnique: true },
          { name: 'value', type: 'text' },
          ...createdModified(),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('conf_setting');
    await q.dropTable('auth_user');
  }
}
