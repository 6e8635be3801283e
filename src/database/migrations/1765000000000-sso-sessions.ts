import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableForeignKey, TableIndex } from 'typeorm';
import { timestampColumn } from './columns';

/**
 * `sso_session` (SPEC §17, issue 33): the identity provider's session behind each single sign-on session,
 * a side table of `user_session` (a column there would widen the lookup of every request). Its row goes
 * with the session's: the foreign key cascades, so the sweeper's deletes and a user's deletion clear it.
 * Subjects and provider sessions are compared exactly, as social_auth's uid is (ExactSubjects).
 */
export class SsoSessions1765000000000 implements MigrationInterface {
  name = 'SsoSessions1765000000000';

  async up(q: QueryRunner): Promise<void> {
    const exact = await exactCollation(q);
    const text = (name: string, nullable: boolean): TableColumnOptions => ({
      name, type: 'varchar', length: '255', isNullable: nullable, ...(exact ? { charset: 'utf8mb4', collation: exact } : {}),
    });
    await q.createTable(
      new Table({
        name: 'sso_session',
        columns: [
          { name: 'session_id', type: 'integer', isPrimary: true },
          { name: 'provider', type: 'varchar', length: '160' },
          text('subject', false),
          text('provider_session', true),
          { name: 'data', type: 'text' },
          timestampColumn('created'),
        ],
      }),
    );
    await q.createIndex('sso_session', new TableIndex({ name: 'IDX_sso_session_subject', columnNames: ['provider', 'subject'] }));
    await q.createIndex('sso_session', new TableIndex({ name: 'IDX_sso_session_provider_session', columnNames: ['provider', 'provider_session'] }));
    await q.createForeignKey(
      'sso_session',
      new TableForeignKey({ columnNames: ['session_id'], referencedTableName: 'user_session', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('sso_session');
  }
}

/** MySQL's default collation merges case, accents and trailing spaces: a binary one that does not pad (none needed on SQLite). */
async function exactCollation(q: QueryRunner): Promise<string | null> {
  if (q.connection.options.type !== 'mysql') return null;
  const [{ version }] = await q.query('SELECT VERSION() AS version');
  return /mariadb/i.test(String(version)) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}
