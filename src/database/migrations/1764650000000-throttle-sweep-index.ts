import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The login throttle's sweep deletes counters whose window has passed (issue 29): without an index on
 * `window_start` each batch read the whole table on both databases.
 */
export class ThrottleSweepIndex1764650000000 implements MigrationInterface {
  name = 'ThrottleSweepIndex1764650000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex('login_failure', new TableIndex({ name: 'IDX_login_failure_window', columnNames: ['window_start'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('login_failure', 'IDX_login_failure_window');
  }
}
