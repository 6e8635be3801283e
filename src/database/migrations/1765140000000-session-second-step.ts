import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { timestampColumn } from './columns';

/**
 * When the login that made a session completed its second step (SPEC §16, issue 40): such a session may
 * change second factors without a code for five minutes. Null for every other session, earlier ones included.
 */
export class SessionSecondStep1765140000000 implements MigrationInterface {
  name = 'SessionSecondStep1765140000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('user_session', new TableColumn(timestampColumn('second_step_at', true)));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('user_session', 'second_step_at');
  }
}
