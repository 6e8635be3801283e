import { MigrationInterface, QueryRunner, TableColumn, TableForeignKey, TableIndex } from 'typeorm';

/**
 * Client-credentials applications act as their own service account (SPEC §15, issue 32). The account
 * outlives a deleted application only as an inactive user, so the link is set null rather than cascaded;
 * the index serves "the applications of these service accounts" when an owner is deleted.
 */
export class ServiceAccounts1764820000000 implements MigrationInterface {
  name = 'ServiceAccounts1764820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('oauth2_application', new TableColumn({ name: 'service_account_id', type: 'integer', isNullable: true }));
    await q.createIndex('oauth2_application', new TableIndex({ name: 'IDX_oauth2_application_service_account', columnNames: ['service_account_id'] }));
    await q.createForeignKey(
      'oauth2_application',
      new TableForeignKey({ name: 'FK_oauth2_application_service_account', columnNames: ['service_account_id'], referencedTableName: 'auth_user', referencedColumnNames: ['id'], onDelete: 'SET NULL' }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropForeignKey('oauth2_application', 'FK_oauth2_application_service_account');
    await q.dropIndex('oauth2_application', 'IDX_oauth2_application_service_account');
    await q.dropColumn('oauth2_application', 'service_account_id');
  }
}
