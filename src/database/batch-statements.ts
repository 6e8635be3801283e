/**
 * One statement that changes at most `limit` rows matching `where`, the same on both databases: the ids
 * come from a limited SELECT in a derived table (SQLite is built without `UPDATE … LIMIT`; MySQL takes no
 * LIMIT in an `IN` subquery, but does in a derived table, which it materialises). The SELECT is planned as
 * any SELECT: MariaDB planned `UPDATE … WHERE user_id = ? AND ended_at IS NULL … LIMIT` on the idle-due
 * index (every live session of every user) where the SELECT takes the user's own. Set-based clean-up is a
 * loop of these, never one statement per row.
 */
export function limitedStatement(head: string, table: string, where: string, limit: number): string {
  return `${head} WHERE id IN (SELECT id FROM (SELECT id FROM ${table} WHERE ${where} LIMIT ${limit}) AS due)`;
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
