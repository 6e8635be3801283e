import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { idColumn, timestampColumn } from './columns';

/**
 * SPEC §23's activity stream (AWX's `main_activitystream`) and the objects each entry touches. No foreign keys:
 * an entry outlives what it names. Indexed for the first page (by id), a page by time, by actor, by setting, and
 * the per-object lists and read rules (by kind and object).
 */
export class ActivityStream1765460000000 implements MigrationInterface {
  name = 'ActivityStream1765460000000';

  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: number, nullable = false) => ({ name, type: 'varchar', length: String(length), isNullable: nullable });
    await q.createTable(
      new Table({
        name: 'main_activitystream',
        columns: [
          idColumn(),
          timestampColumn('timestamp'),
          text('operation', 16),
          text('object1', 32),
          text('object2', 32),
          text('object_association', 16),
          text('object_type', 32),
          text('action_node', 255),
          { name: 'changes', type: 'text' },
          { name: 'summary_fields', type: 'text' },
          { name: 'actor_id', type: 'integer', isNullable: true },
          text('actor_username', 150, true),
          text('actor_first_name', 150, true),
          text('actor_last_name', 150, true),
          text('setting_category', 64, true),
          text('setting_name', 255, true),
        ],
      }),
    );
    await q.createIndex('main_activitystream', new TableIndex({ name: 'IDX_main_activitystream_timestamp', columnNames: ['timestamp', 'id'] }));
    await q.createIndex('main_activitystream', new TableIndex({ name: 'IDX_main_activitystream_actor', columnNames: ['actor_id', 'id'] }));
    await q.createIndex('main_activitystream', new TableIndex({ name: 'IDX_main_activitystream_setting', columnNames: ['setting_name', 'id'] }));
    await q.createTable(
      new Table({
        name: 'main_activitystream_object',
        columns: [idColumn(), { name: 'entry_id', type: 'integer' }, text('kind', 32), { name: 'object_id', type: 'integer' }],
      }),
    );
    await q.createIndex('main_activitystream_object', new TableIndex({ name: 'IDX_main_activitystream_object_kind', columnNames: ['kind', 'object_id', 'entry_id'] }));
    await q.createIndex('main_activitystream_object', new TableIndex({ name: 'IDX_main_activitystream_object_entry', columnNames: ['entry_id'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('main_activitystream_object');
    await q.dropTable('main_activitystream');
  }
}
