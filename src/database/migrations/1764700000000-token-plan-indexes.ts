import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The indexes `cleartokens` plans by (issue 29): refresh tokens past their family's absolute expiry are
 * found by `family_started`, and dead families by walking `(family, revoked_at)` in family order, which
 * counts each family's live tokens from the index alone. The old `(family)` index is its prefix, so it goes.
 */
export class TokenPlanIndexes1764700000000 implements MigrationInterface {
  name = 'TokenPlanIndexes1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex('oauth2_refresh_token', new TableIndex({ name: 'IDX_oauth2_refresh_token_family_started', columnNames: ['family_started'] }));
    await q.createIndex('oauth2_refresh_token', new TableIndex({ name: 'IDX_oauth2_refresh_token_family_revoked', columnNames: ['family', 'revoked_at'] }));
    await q.dropIndex('oauth2_refresh_token', 'IDX_oauth2_refresh_token_family');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createIndex('oauth2_refresh_token', new TableIndex({ name: 'IDX_oauth2_refresh_token_family', columnNames: ['family'] }));
    await q.dropIndex('oauth2_refresh_token', 'IDX_oauth2_refresh_token_family_revoked');
    await q.dropIndex('oauth2_refresh_token', 'IDX_oauth2_refresh_token_family_started');
  }
}
