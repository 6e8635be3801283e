import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableForeignKeyOptions, TableIndexOptions } from 'typeorm';
import { createdModified, idColumn, largeTextColumn } from './columns';

/**
 * Hosts, credentials, job templates and jobs (SPEC §10), as AWX's `main_*` tables.
 * Foreign keys: created_by_id / modified_by_id → auth_user ON DELETE SET NULL (deleting a user keeps
 * what they made; superusers still manage it); main_job.job_template_id → main_jobtemplate ON DELETE
 * SET NULL (a job's record outlives its template, as in AWX). inventory_id and project_id have no
 * foreign key: those resources do not exist here.
 */
export class Resources1763950000000 implements MigrationInterface {
  name = 'Resources1763950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      owned('main_host', [
        { name: 'inventory_id', type: 'integer', isNullable: true },
        { name: 'enabled', type: 'boolean', default: true },
        { name: 'instance_id', type: 'varchar', length: '1024', default: "''" },
        largeTextColumn(q, 'variables'),
      ]),
    );
    await q.createTable(
      owned('main_credential', [{ name: 'credential_type', type: 'varchar', length: '64' }, largeTextColumn(q, 'inputs')]),
    );
    await q.createTable(owned('main_jobtemplate', [...jobOptions(q), { name: 'ask_limit_on_launch', type: 'boolean', default: true }]));
    await q.createTable(
      owned(
        'main_job',
        [
          { name: 'job_template_id', type: 'integer', isNullable: true },
          ...jobOptions(q),
          { name: 'launch_type', type: 'varchar', length: '20' },
          { name: 'status', type: 'varchar', length: '20' },
        ],
        [{ columnNames: ['job_template_id'], referencedTableName: 'main_jobtemplate', referencedColumnNames: ['id'], onDelete: 'SET NULL' }],
        [{ name: 'IDX_main_job_job_template', columnNames: ['job_template_id'] }],
      ),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['main_job', 'main_jobtemplate', 'main_credential', 'main_host']) await q.dropTable(table);
  }
}

/** AWX's JobOptions columns, shared by templates and jobs. */
function jobOptions(q: QueryRunner): TableColumnOptions[] {
  return [
    { name: 'job_type', type: 'varchar', length: '20' },
    { name: 'inventory_id', type: 'integer', isNullable: true },
    { name: 'project_id', type: 'integer', isNullable: true },
    { name: 'playbook', type: 'varchar', length: '1024' },
    { name: 'limit_pattern', type: 'text' },
    largeTextColumn(q, 'extra_vars'),
  ];
}

/** A table of user-owned objects: id, name, description, owner and audit stamps, plus its own columns. */
function owned(name: string, columns: TableColumnOptions[], foreignKeys: TableForeignKeyOptions[] = [], indices: TableIndexOptions[] = []): Table {
  const user = (column: string): TableForeignKeyOptions => ({
    columnNames: [column],
    referencedTableName: 'auth_user',
    referencedColumnNames: ['id'],
    onDelete: 'SET NULL',
  });
  return new Table({
    name,
    columns: [
      idColumn(),
      { name: 'name', type: 'varchar', length: '512' },
      { name: 'description', type: 'text' },
      ...columns,
      { name: 'created_by_id', type: 'integer', isNullable: true },
      { name: 'modified_by_id', type: 'integer', isNullable: true },
      ...createdModified(),
    ],
    foreignKeys: [user('created_by_id'), user('modified_by_id'), ...foreignKeys],
    // Lists are filtered by owner; SQLite does not index foreign keys by itself.
    indices: [
      { name: `IDX_${name}_created_by`, columnNames: ['created_by_id'] },
      { name: `IDX_${name}_modified_by`, columnNames: ['modified_by_id'] },
      ...indices,
    ],
  });
}
