import type { DataSource } from 'typeorm';
import type { PlannedStatement } from '../../src/database/batch-statements';

/**
 * What the database would do to run a statement, and whether that reads a whole table (issue 29).
 * MariaDB/MySQL (`EXPLAIN`, which takes UPDATE and DELETE too): a row of type ALL (a table scan) or
 * index (a walk of a whole index) on one of `tables`, or any DEPENDENT (per-row) subquery. SQLite
 * (`EXPLAIN QUERY PLAN`): a SCAN of one of `tables` (with or without a covering index), or a
 * CORRELATED subquery. Returns the plan as text and the problems found in it.
 */
export async function planProblems(ds: DataSource, statement: PlannedStatement, tables: string[]): Promise<{ plan: string; problems: string[] }> {
  const big = new Set(tables);
  const problems: string[] = [];
  if (ds.options.type === 'mysql') {
    const rows = (await ds.query(`EXPLAIN ${statement.sql}`, statement.params)) as { select_type: string; table: string; type: string; key: string | null; rows: number | string }[];
    for (const r of rows) {
      if (/DEPENDENT/i.test(r.select_type)) problems.push(`a dependent subquery (${r.select_type} on ${r.table})`);
      if ((r.type === 'ALL' || r.type === 'index') && big.has(r.table)) problems.push(`a full ${r.type === 'ALL' ? 'table scan' : 'index walk'} of ${r.table} (${r.rows} rows)`);
    }
    return { plan: rows.map((r) => `${r.select_type}:${r.table}:${r.type}:${r.key ?? '-'}:${r.rows}`).join(' | '), problems };
  }
  const rows = (await ds.query(`EXPLAIN QUERY PLAN ${statement.sql}`, statement.params)) as { detail: string }[];
  for (const { detail } of rows) {
    const scanned = /^SCAN (\w+)/.exec(detail)?.[1];
    if (scanned && big.has(scanned)) problems.push(`a scan of ${scanned} (${detail})`);
    if (/CORRELATED/.test(detail)) problems.push(`a correlated subquery (${detail})`);
  }
  return { plan: rows.map((r) => r.detail).join(' | '), problems };
}
