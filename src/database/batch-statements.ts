/** Which SQL dialect a statement is written for. */
export type Dialect = 'mysql' | 'sqlite';

/**
 * One statement that changes at most `limit` rows matching `where`, in the form each database plans by
 * an index on `where` (issue 29). MariaDB and MySQL take `UPDATE … WHERE … LIMIT n` and `DELETE … WHERE …
 * LIMIT n` on one table; the portable `id IN (SELECT id FROM (SELECT … LIMIT n) AS due)` was planned
 * there as a walk of the whole primary key with a dependent subquery per row (two seconds a batch at
 * 700,000 rows). SQLite is built without `UPDATE … LIMIT`, and takes a LIMIT in an `IN` subquery, which
 * it runs once on the index and then reads by rowid. Parameters keep their order in both forms.
 * Set-based clean-up is a loop of these, never one statement per row. `key` is the table's row key for
 * SQLite's form (`id`, or `rowid` for a table keyed otherwise).
 */
export function limitedStatement(dialect: Dialect, head: string, table: string, where: string, limit: number, index?: string, key = 'id'): string {
  if (dialect === 'mysql') return `${index && head.startsWith('UPDATE') ? withIndex(head, table, index) : head} WHERE ${where} LIMIT ${limit}`;
  return `${head} WHERE ${key} IN (SELECT ${key} FROM ${table}${index ? ` INDEXED BY ${index}` : ''} WHERE ${where} LIMIT ${limit})`;
}

/**
 * `index` names the index a statement must be planned on, where the planners' cost guesses went wrong:
 * MariaDB took the sweeper's (ended_at, expires) index for one user's sessions (a range over every
 * user's live sessions) where the user's own index answers at once, and SQLite scanned the throttle's
 * counters when half of them were due. MySQL's grammar takes no index hint in a DELETE: there the
 * planner's own choice stands (the plan test checks it).
 */
function withIndex(head: string, table: string, index: string): string {
  const at = `UPDATE ${table} `;
  if (!head.startsWith(at)) throw new Error(`an index hint needs an UPDATE of ${table}: ${head}`);
  return `UPDATE ${table} FORCE INDEX (${index}) ${head.slice(at.length)}`;
}

/**
 * A periodic or clean-up statement with representative parameters, as a repository lists them for the
 * plan test (test/statement-plans.e2e-spec.ts), which fails when a database would scan a whole table.
 */
export interface PlannedStatement {
  name: string;
  sql: string;
  params: unknown[];
}

/**
 * Runs `step` (one batch) while it reports more to do and the deadline has not passed, giving the event
 * loop a turn between batches (SQLite runs statements synchronously, so a long clean-up must not hold
 * every request). True when the work finished, false when the deadline stopped it.
 */
export async function inBatches(step: () => Promise<boolean>, deadline = Infinity): Promise<boolean> {
  for (;;) {
    if (!(await step())) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
