import type { QueryRunner, TableColumnOptions } from 'typeorm';

/** Column shapes shared by every migration; types chosen to mean the same on SQLite and MySQL. */
export function idColumn(): TableColumnOptions {
  return { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' };
}

export function timestampColumn(name: string, nullable = false): TableColumnOptions {
  return { name, type: 'datetime', precision: 3, isNullable: nullable };
}

export function createdModified(): TableColumnOptions[] {
  return [timestampColumn('created'), timestampColumn('modified')];
}

/** Text beyond MySQL's 64 KiB TEXT (credential inputs, variables): MEDIUMTEXT there, TEXT on SQLite. */
export function largeTextColumn(q: QueryRunner, name: string): TableColumnOptions {
  return { name, type: q.connection.options.type === 'mysql' ? 'mediumtext' : 'text' };
}
