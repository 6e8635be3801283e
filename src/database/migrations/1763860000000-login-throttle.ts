import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { idColumn, timestampColumn } from './columns';

export class LoginThrottle1763860000000 implements MigrationInterface {
  name = 'LoginThrottle1763860000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'login_failure',
        columns: [
          idColumn(),
          { name: 'username', type: 'varchar', length: '150' },
          { name: 'client_ip', type: 'varchar', length: '45' },
          { name: 'failures', type: 'integer' },
          timestampColumn('window_start'),
        ],
      }),
    );
    await q.createIndex('login_failure', new TableIndex({ name: 'UQ_login_failure_pair', columnNames: ['username', 'client_ip'], isUnique: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('login_failure');
  }
}
