import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { timestampColumn } from './columns';

/**
 * One row per grant (token family): what issuing and revoking lock, so a family revoked because a
 * refresh token was reused can never be issued another token by a request that raced the reuse (SPEC §5).
 */
export class TokenFamilies1764300000000 implements MigrationInterface {
  name = 'TokenFamilies1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'oauth2_token_family',
        columns: [{ name: 'family', type: 'varchar', length: '32', isPrimary: true }, timestampColumn('revoked_at', true)],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('oauth2_token_family');
  }
}
