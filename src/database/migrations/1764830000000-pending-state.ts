import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `sso_state` becomes `pending_state` (issue 31): the logins waiting for their second step live in the
 * same store as single sign-on's transactions, with the same encryption, sweep and per-address cap.
 */
export class PendingState1764830000000 implements MigrationInterface {
  name = 'PendingState1764830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.renameTable('sso_state', 'pending_state');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.renameTable('pending_state', 'sso_state');
  }
}
