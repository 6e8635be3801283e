import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * The login throttle counts an attempt before its password is checked (SPEC §12): `pending` holds the
 * attempts of a pair being verified right now, `failures` those that failed in the window.
 */
export class LoginAttemptsInFlight1764100000000 implements MigrationInterface {
  name = 'LoginAttemptsInFlight1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('login_failure', new TableColumn({ name: 'pending', type: 'integer', default: 0 }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('login_failure', 'pending');
  }
}
