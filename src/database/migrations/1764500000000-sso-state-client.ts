import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/** The address that started each pending single sign-on login, to bound what one address can create. */
export class SsoStateClient1764500000000 implements MigrationInterface {
  name = 'SsoStateClient1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('sso_state', new TableColumn({ name: 'client_ip', type: 'varchar', length: '45', default: "''" }));
    await q.createIndex('sso_state', new TableIndex({ name: 'IDX_sso_state_client', columnNames: ['client_ip', 'expires'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('sso_state', 'IDX_sso_state_client');
    await q.dropColumn('sso_state', 'client_ip');
  }
}
