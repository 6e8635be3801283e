import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { createdModified, idColumn, largeTextColumn, timestampColumn } from './columns';

/**
 * Organizations, teams, their roles and who holds them (SPEC §21, issue 42), as AWX's `main_organization`,
 * `main_team`, `main_rbac_roles` and the role's members; and the stored claims of each user's latest login
 * through each source, which the maps' dry run replays. Roles and holders go with their organization, team
 * or user (ON DELETE CASCADE). Names compare exactly on every database: on MySQL the name columns get a
 * binary collation that does not pad (as migration 1764400000000 gave the SSO subject).
 */
export class Organizations1765200000000 implements MigrationInterface {
  name = 'Organizations1765200000000';

  async up(q: QueryRunner): Promise<void> {
    const cascade = (column: string, table: string) => ({ columnNames: [column], referencedTableName: table, referencedColumnNames: ['id'], onDelete: 'CASCADE' });
    await q.createTable(
      new Table({
        name: 'main_organization',
        columns: [
          idColumn(),
          { name: 'name', type: 'varchar', length: '512' },
          { name: 'description', type: 'text' },
          { name: 'max_hosts', type: 'integer', default: 0 },
          ...createdModified(),
        ],
        indices: [{ name: 'UQ_main_organization_name', columnNames: ['name'], isUnique: true }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'main_team',
        columns: [idColumn(), { name: 'name', type: 'varchar', length: '512' }, { name: 'description', type: 'text' }, { name: 'organization_id', type: 'integer' }, ...createdModified()],
        foreignKeys: [cascade('organization_id', 'main_organization')],
        indices: [{ name: 'UQ_main_team_organization_name', columnNames: ['organization_id', 'name'], isUnique: true }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'main_rbac_roles',
        columns: [
          idColumn(),
          { name: 'role_field', type: 'varchar', length: '32' },
          { name: 'organization_id', type: 'integer', isNullable: true },
          { name: 'team_id', type: 'integer', isNullable: true },
        ],
        foreignKeys: [cascade('organization_id', 'main_organization'), cascade('team_id', 'main_team')],
        indices: [
          { name: 'IDX_main_rbac_roles_organization', columnNames: ['organization_id'] },
          { name: 'IDX_main_rbac_roles_team', columnNames: ['team_id'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'main_rbac_role_members',
        columns: [
          { name: 'role_id', type: 'integer', isPrimary: true },
          { name: 'user_id', type: 'integer', isPrimary: true },
        ],
        foreignKeys: [cascade('role_id', 'main_rbac_roles'), cascade('user_id', 'auth_user')],
        indices: [{ name: 'IDX_main_rbac_role_members_user', columnNames: ['user_id'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'auth_login_claims',
        columns: [
          { name: 'user_id', type: 'integer', isPrimary: true },
          { name: 'source', type: 'varchar', length: '200', isPrimary: true },
          timestampColumn('login_at'),
          { name: 'allowed', type: 'boolean' },
          largeTextColumn(q, 'claims'),
        ],
        foreignKeys: [cascade('user_id', 'auth_user')],
      }),
    );
    await q.createIndex('auth_login_claims', new TableIndex({ name: 'IDX_auth_login_claims_source_login', columnNames: ['source', 'login_at'] }));
    await q.createIndex('auth_login_claims', new TableIndex({ name: 'IDX_auth_login_claims_login', columnNames: ['login_at'] }));
    if (q.connection.options.type === 'mysql') {
      const [{ version }] = await q.query('SELECT VERSION() AS version');
      const collation = /mariadb/i.test(String(version)) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
      for (const table of ['main_organization', 'main_team']) {
        await q.query(`ALTER TABLE ${table} MODIFY name VARCHAR(512) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`);
      }
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['auth_login_claims', 'main_rbac_role_members', 'main_rbac_roles', 'main_team', 'main_organization']) await q.dropTable(table);
  }
}
