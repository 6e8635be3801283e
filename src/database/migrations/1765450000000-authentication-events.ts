import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { idColumn, timestampColumn } from './columns';

/**
 * SPEC §23's authentication events: the one record of authentication, kept apart from the activity stream and
 * never updated but for a coalesced event's `details.attempts`. No foreign key to `auth_user`: an event outlives
 * its user (the summary keeps the user's names, `user` reads null once the user is gone). Indexed for the three
 * reads that must stay fast at a million rows: the first page (by id), a user's page, a page by time (and the
 * retention sweep). A session keeps the id of the `login_succeeded` that made it (SPEC §22's previous-login
 * notice reads it).
 */
export class AuthenticationEvents1765450000000 implements MigrationInterface {
  name = 'AuthenticationEvents1765450000000';

  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: number, nullable = false) => ({ name, type: 'varchar', length: String(length), isNullable: nullable });
    await q.createTable(
      new Table({
        name: 'authentication_event',
        columns: [
          idColumn(),
          timestampColumn('timestamp'),
          text('event', 32),
          { name: 'user_id', type: 'integer', isNullable: true },
          text('user_username', 150, true),
          text('user_first_name', 150, true),
          text('user_last_name', 150, true),
          text('username', 150),
          text('source', 64, true),
          text('method', 32, true),
          text('reason', 32, true),
          { name: 'session_id', type: 'integer', isNullable: true },
          { name: 'token_id', type: 'integer', isNullable: true },
          text('ip_address', 45, true),
          text('user_agent', 512),
          text('request_id', 64, true),
          text('action_node', 255),
          { name: 'details', type: 'text' },
        ],
      }),
    );
    await q.createIndex('authentication_event', new TableIndex({ name: 'IDX_authentication_event_user', columnNames: ['user_id', 'id'] }));
    await q.createIndex('authentication_event', new TableIndex({ name: 'IDX_authentication_event_timestamp', columnNames: ['timestamp', 'id'] }));
    await q.addColumn('user_session', new TableColumn({ name: 'login_event_id', type: 'integer', isNullable: true }));
    // Which batch statement ended a session (a sweep, a cut-off's clean-up, expire_sessions), so that the batch
    // reads back exactly the sessions it ended and reports each once.
    await q.addColumn('user_session', new TableColumn({ name: 'end_batch', type: 'varchar', length: '16', isNullable: true }));
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_end_batch', columnNames: ['end_batch'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('user_session', 'IDX_user_session_end_batch');
    await q.dropColumn('user_session', 'end_batch');
    await q.dropColumn('user_session', 'login_event_id');
    await q.dropTable('authentication_event');
  }
}
