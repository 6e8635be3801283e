import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { timestampColumn } from './columns';

/**
 * SPEC §22 (AC-2(3)): `account_expires`, the instant from which every login path refuses the user as expired; and
 * what ACCOUNT_INACTIVE_DAYS counts from besides `created`: the latest login (kept whatever the events' retention)
 * and the latest re-activation.
 */
export class AccountExpiry1765440000000 implements MigrationInterface {
  name = 'AccountExpiry1765440000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('auth_user', [
      new TableColumn(timestampColumn('account_expires', true)),
      new TableColumn(timestampColumn('last_login_event_at', true)),
      new TableColumn(timestampColumn('reactivated_at', true)),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('auth_user', 'reactivated_at');
    await q.dropColumn('auth_user', 'last_login_event_at');
    await q.dropColumn('auth_user', 'account_expires');
  }
}
