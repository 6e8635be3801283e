/**
 * One statement that changes at most `limit` rows matching `where`, on either database: MySQL has
 * `UPDATE … LIMIT` / `DELETE … LIMIT`; SQLite (built without that option) takes the ids from a
 * limited subquery. Set-based clean-up is a loop of these, never one statement per row.
 */
export function limitedStatement(mysql: boolean, head: string, table: string, where: string, limit: number): string {
  return mysql
    ? `${head} WHERE ${where} LIMIT ${limit}`
    : `${head} WHERE id IN (SELECT id FROM ${table} WHERE ${where} LIMIT ${limit})`;
}
