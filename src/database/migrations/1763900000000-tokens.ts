import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { createdModified, idColumn, timestampColumn } from './columns';

function foreignKey(column: string, table: string, onDelete: 'CASCADE' | 'SET NULL' = 'CASCADE'): TableForeignKey {
  return new TableForeignKey({ columnNames: [column], referencedTableName: table, referencedColumnNames: ['id'], onDelete });
}

function index(table: string, column: string): TableIndex {
  return new TableIndex({ name: `IDX_${table}_${column}`, columnNames: [column] });
}

/**
 * OAuth 2 applications, access and refresh tokens, authorization codes. Secrets are stored only as
 * SHA-256 hex (64 characters) in unique, hence indexed, columns: every bearer request looks one up.
 */
export class Tokens1763900000000 implements MigrationInterface {
  name = 'Tokens1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'oauth2_application',
        columns: [
          idColumn(),
          { name: 'name', type: 'varchar', length: '255' },
          { name: 'description', type: 'text' },
          { name: 'client_id', type: 'varchar', length: '100', isUnique: true },
          { name: 'client_secret_hash', type: 'varchar', length: '64', isNullable: true },
          { name: 'client_type', type: 'varchar', length: '32' },
          { name: 'redirect_uris', type: 'text' },
          { name: 'authorization_grant_type', type: 'varchar', length: '32' },
          { name: 'skip_authorization', type: 'boolean', default: false },
          { name: 'user_id', type: 'integer' },
          ...createdModified(),
        ],
        foreignKeys: [foreignKey('user_id', 'auth_user')],
        indices: [index('oauth2_application', 'user_id')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'oauth2_access_token',
        columns: [
          idColumn(),
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'user_id', type: 'integer' },
          { name: 'application_id', type: 'integer', isNullable: true },
          { name: 'description', type: 'text' },
          { name: 'scope', type: 'varchar', length: '32' },
          timestampColumn('expires'),
          timestampColumn('last_used', true),
          { name: 'family', type: 'varchar', length: '32', isNullable: true },
          ...createdModified(),
        ],
        foreignKeys: [foreignKey('user_id', 'auth_user'), foreignKey('application_id', 'oauth2_application')],
        indices: [
          index('oauth2_access_token', 'user_id'),
          index('oauth2_access_token', 'application_id'),
          index('oauth2_access_token', 'family'),
          index('oauth2_access_token', 'expires'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'oauth2_refresh_token',
        columns: [
          idColumn(),
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'user_id', type: 'integer' },
          { name: 'application_id', type: 'integer' },
          { name: 'access_token_id', type: 'integer', isNullable: true },
          { name: 'family', type: 'varchar', length: '32' },
          timestampColumn('family_started'),
          { name: 'scope', type: 'varchar', length: '32' },
          timestampColumn('revoked_at', true),
          ...createdModified(),
        ],
        foreignKeys: [
          foreignKey('user_id', 'auth_user'),
          foreignKey('application_id', 'oauth2_application'),
          foreignKey('access_token_id', 'oauth2_access_token', 'SET NULL'),
        ],
        indices: [
          index('oauth2_refresh_token', 'user_id'),
          index('oauth2_refresh_token', 'application_id'),
          index('oauth2_refresh_token', 'access_token_id'),
          index('oauth2_refresh_token', 'family'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'oauth2_authorization_code',
        columns: [
          idColumn(),
          { name: 'code_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'application_id', type: 'integer' },
          { name: 'user_id', type: 'integer' },
          { name: 'redirect_uri', type: 'text', isNullable: true },
          { name: 'scope', type: 'varchar', length: '32' },
          { name: 'code_challenge', type: 'varchar', length: '128', isNullable: true },
          { name: 'code_challenge_method', type: 'varchar', length: '10', isNullable: true },
          timestampColumn('expires'),
          timestampColumn('used_at', true),
          { name: 'family', type: 'varchar', length: '32', isNullable: true },
          timestampColumn('replayed_at', true),
          timestampColumn('created'),
        ],
        foreignKeys: [foreignKey('application_id', 'oauth2_application'), foreignKey('user_id', 'auth_user')],
        indices: [
          index('oauth2_authorization_code', 'application_id'),
          index('oauth2_authorization_code', 'user_id'),
          index('oauth2_authorization_code', 'expires'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('oauth2_authorization_code');
    await q.dropTable('oauth2_refresh_token');
    await q.dropTable('oauth2_access_token');
    await q.dropTable('oauth2_application');
  }
}
