import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { idColumn, timestampColumn } from './columns';

/**
 * Millions of rows (issue 21). Revocation becomes one small write: per-user cut-offs on `auth_user`
 * and a one-row system cut-off that the validity rules compare with a credential's creation time;
 * `revocation_job` holds the clean-up that ends or deletes the rows afterwards in batches. The indexes
 * serve the questions actually asked: a user's live sessions in list order (covering the live test, so
 * a count or a deep page never reads the table), sessions due for the sweeper by expiry, and the
 * tokens a clean-up batch removes.
 */
export class RevocationCutoffs1764600000000 implements MigrationInterface {
  name = 'RevocationCutoffs1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('auth_user', [
      new TableColumn(timestampColumn('sessions_ended_before', true)),
      new TableColumn({ name: 'sessions_end_reason', type: 'varchar', length: '32', isNullable: true }),
      new TableColumn({ name: 'sessions_kept_id', type: 'integer', isNullable: true }),
      new TableColumn(timestampColumn('tokens_revoked_before', true)),
    ]);
    // The session-limit lock rows are written, not only read FOR UPDATE: on Galera a row lock holds on one
    // member, while two writes of one row conflict cluster-wide and one transaction is retried (issue 14).
    await q.addColumn('session_lock', new TableColumn({ name: 'version', type: 'integer', default: 0 }));
    await q.createTable(new Table({ name: 'revocation_cutoff', columns: [{ name: 'id', type: 'integer', isPrimary: true }, timestampColumn('tokens_revoked_before', true)] }));
    await q.query('INSERT INTO revocation_cutoff (id, tokens_revoked_before) VALUES (1, NULL)');
    await q.createTable(
      new Table({
        name: 'revocation_job',
        columns: [
          idColumn(),
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'user_id', type: 'integer', isNullable: true },
          timestampColumn('cutoff'),
          { name: 'reason', type: 'varchar', length: '32' },
          { name: 'kept_id', type: 'integer', isNullable: true },
          timestampColumn('created'),
        ],
      }),
    );

    // New indexes first: MySQL keeps an index on a foreign key's column, so the old ones go only after.
    await q.createIndex('user_session', new TableIndex({
      name: 'IDX_user_session_user_live',
      columnNames: ['user_id', 'ended_at', 'created', 'id', 'expires', 'absolute_expires'],
    }));
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_due_idle', columnNames: ['ended_at', 'expires'] }));
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_due_absolute', columnNames: ['ended_at', 'absolute_expires'] }));
    await q.createIndex('oauth2_access_token', new TableIndex({ name: 'IDX_oauth2_access_token_user_created', columnNames: ['user_id', 'created'] }));
    await q.createIndex('oauth2_access_token', new TableIndex({ name: 'IDX_oauth2_access_token_created', columnNames: ['created'] }));
    // A user's personal or authorized tokens, in id order (the user_id index serves all of a user's tokens).
    await q.createIndex('oauth2_access_token', new TableIndex({ name: 'IDX_oauth2_access_token_user_application', columnNames: ['user_id', 'application_id', 'id'] }));
    await q.createIndex('oauth2_refresh_token', new TableIndex({ name: 'IDX_oauth2_refresh_token_user_revoked', columnNames: ['user_id', 'revoked_at', 'created'] }));
    await q.createIndex('oauth2_refresh_token', new TableIndex({ name: 'IDX_oauth2_refresh_token_revoked', columnNames: ['revoked_at', 'created'] }));
    for (const [table, index] of [
      ['user_session', 'IDX_user_session_user_ended'],
      ['user_session', 'IDX_user_session_expires'],
      ['user_session', 'IDX_user_session_ended_at'],
      ['oauth2_refresh_token', 'IDX_oauth2_refresh_token_user_id'],
    ]) await q.dropIndex(table, index);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('oauth2_refresh_token', 'IDX_oauth2_refresh_token_revoked');
    await q.dropIndex('oauth2_refresh_token', 'IDX_oauth2_refresh_token_user_revoked');
    await q.createIndex('oauth2_refresh_token', new TableIndex({ name: 'IDX_oauth2_refresh_token_user_id', columnNames: ['user_id'] }));
    await q.dropIndex('oauth2_access_token', 'IDX_oauth2_access_token_user_application');
    await q.dropIndex('oauth2_access_token', 'IDX_oauth2_access_token_created');
    await q.dropIndex('oauth2_access_token', 'IDX_oauth2_access_token_user_created');
    await q.dropIndex('user_session', 'IDX_user_session_due_absolute');
    await q.dropIndex('user_session', 'IDX_user_session_due_idle');
    await q.dropIndex('user_session', 'IDX_user_session_user_live');
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_ended_at', columnNames: ['ended_at'] }));
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_expires', columnNames: ['expires'] }));
    await q.createIndex('user_session', new TableIndex({ name: 'IDX_user_session_user_ended', columnNames: ['user_id', 'ended_at'] }));
    await q.dropColumn('session_lock', 'version');
    await q.dropTable('revocation_job');
    await q.dropTable('revocation_cutoff');
    for (const c of ['tokens_revoked_before', 'sessions_kept_id', 'sessions_end_reason', 'sessions_ended_before']) await q.dropColumn('auth_user', c);
  }
}
