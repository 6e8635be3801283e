import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { timestampColumn } from './columns';

/**
 * SPEC §22's `previous_login` of the user resource: the time of the login before the latest, moved from
 * `last_login_event_at` by each login, so `/api/v2/me/` reads it from the row it already reads.
 */
export class PreviousLogin1765470000000 implements MigrationInterface {
  name = 'PreviousLogin1765470000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('auth_user', new TableColumn(timestampColumn('previous_login_at', true)));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('auth_user', 'previous_login_at');
  }
}
