import { MigrationInterface, QueryRunner, Table, TableColumn, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, timestampColumn } from './columns';

const userKey = () => new TableForeignKey({ columnNames: ['user_id'], referencedTableName: 'auth_user', referencedColumnNames: ['id'], onDelete: 'CASCADE' });

/**
 * Two-step verification (SPEC §16, issue 31): authenticator-app secrets, recovery codes and security
 * keys, each row going with its user; `auth_user.mfa_enabled` says on the row every password path reads
 * whether a second step is owed.
 */
export class TwoStep1764840000000 implements MigrationInterface {
  name = 'TwoStep1764840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('auth_user', new TableColumn({ name: 'mfa_enabled', type: 'boolean', default: false }));
    await q.createTable(new Table({
      name: 'mfa_totp',
      columns: [
        { name: 'user_id', type: 'integer', isPrimary: true },
        { name: 'secret', type: 'text' },
        timestampColumn('confirmed_at', true),
        { name: 'last_step', type: 'integer', isNullable: true },
        timestampColumn('created'),
      ],
      foreignKeys: [userKey()],
    }));
    await q.createTable(new Table({
      name: 'mfa_recovery_code',
      columns: [idColumn(), { name: 'user_id', type: 'integer' }, { name: 'code_hash', type: 'varchar', length: '64' }, timestampColumn('used_at', true), timestampColumn('created')],
      foreignKeys: [userKey()],
      indices: [new TableIndex({ name: 'IDX_mfa_recovery_code_user_hash', columnNames: ['user_id', 'code_hash'] })],
    }));
    await q.createTable(new Table({
      name: 'mfa_security_key',
      columns: [
        idColumn(),
        { name: 'user_id', type: 'integer' },
        { name: 'name', type: 'varchar', length: '100' },
        { name: 'credential_id', type: 'varchar', length: '255', isUnique: true },
        { name: 'public_key', type: 'text' },
        { name: 'counter', type: 'integer', default: 0 },
        { name: 'transports', type: 'varchar', length: '100', default: "''" },
        timestampColumn('created'),
        timestampColumn('last_used', true),
      ],
      foreignKeys: [userKey()],
      indices: [new TableIndex({ name: 'IDX_mfa_security_key_user', columnNames: ['user_id'] })],
    }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['mfa_security_key', 'mfa_recovery_code', 'mfa_totp']) await q.dropTable(table);
    await q.dropColumn('auth_user', 'mfa_enabled');
  }
}
