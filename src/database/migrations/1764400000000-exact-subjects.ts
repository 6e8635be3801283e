import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SPEC §7: the subject link (provider, uid) is compared exactly. SQLite compares text byte for byte
 * already; MySQL's default collation would merge case and accents ("alice", "Alice", "alicé") and ignore
 * trailing spaces, so the column gets a binary collation that does not pad there.
 */
export class ExactSubjects1764400000000 implements MigrationInterface {
  name = 'ExactSubjects1764400000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'mysql') return;
    // A binary collation that does not pad: utf8mb4_bin would still ignore trailing spaces.
    const [{ version }] = await q.query('SELECT VERSION() AS version');
    const collation = /mariadb/i.test(String(version)) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
    await q.query(`ALTER TABLE social_auth MODIFY uid VARCHAR(255) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'mysql') return;
    await q.query('ALTER TABLE social_auth MODIFY uid VARCHAR(255) NOT NULL');
  }
}
