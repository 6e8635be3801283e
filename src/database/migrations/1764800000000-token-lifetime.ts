import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * The life of a token (SPEC §15, issue 32): `last_used_ip`, written with `last_used` by the batched flush
 * (45 characters: the longest text form of an IPv6 address), and `expiry_notice`, null until the loop
 * that logs `token_expiring` claims the token. The loop claims `expiry_notice IS NULL AND expires` in a
 * range and then reads what it claimed by `expiry_notice = ?`: one `(expiry_notice, expires)` index
 * serves both, and tokens already noticed stay out of the claim's range however many wait to expire.
 */
export class TokenLifetime1764800000000 implements MigrationInterface {
  name = 'TokenLifetime1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('oauth2_access_token', [
      new TableColumn({ name: 'last_used_ip', type: 'varchar', length: '45', isNullable: true }),
      new TableColumn({ name: 'expiry_notice', type: 'varchar', length: '32', isNullable: true }),
    ]);
    await q.createIndex('oauth2_access_token', new TableIndex({ name: 'IDX_oauth2_access_token_expiry_notice', columnNames: ['expiry_notice', 'expires'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('oauth2_access_token', 'IDX_oauth2_access_token_expiry_notice');
    await q.dropColumn('oauth2_access_token', 'expiry_notice');
    await q.dropColumn('oauth2_access_token', 'last_used_ip');
  }
}
