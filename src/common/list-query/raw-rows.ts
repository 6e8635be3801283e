import type { SelectQueryBuilder } from 'typeorm';
import { isStatementTimeout } from '../../database/errors';
import { REGEX_STATEMENT_BUDGET_MS, REGEX_TIMEOUT } from '../../database/linear-regex';
import { offThreadReads } from '../../database/off-thread-reads';
import { BadRequest } from '../errors';

/**
 * The raw rows of a SELECT; on SQLite read off the event loop, since these are the long reads of a list.
 * A statement with a regex lookup has REGEX_STATEMENT_BUDGET_MS to run (SQLite's read worker sets it
 * for every statement; MariaDB through its executable comment, which MySQL reads as a comment) and the
 * request is a 400 past it, never a held reader.
 */
export async function rawRows<R>(qb: SelectQueryBuilder<object>, usesRegex: boolean): Promise<R[]> {
  const [sql, params] = qb.getQueryAndParameters();
  const reads = offThreadReads(qb.connection);
  try {
    if (reads) return (await reads.rows(sql, params.map((p: unknown) => (typeof p === 'boolean' ? (p ? 1 : 0) : p)))) as R[];
    if (!usesRegex || qb.connection.options.type !== 'mysql') return await qb.getRawMany<R>();
    const budget = `/*M!100108 SET STATEMENT max_statement_time=${REGEX_STATEMENT_BUDGET_MS / 1000} FOR */ `;
    return (await qb.connection.query(budget + sql, params)) as R[];
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === REGEX_TIMEOUT || (usesRegex && isStatementTimeout(err))) {
      throw new BadRequest(`The regular expression took too long over this list (over ${REGEX_STATEMENT_BUDGET_MS} ms); narrow the query with other filters.`);
    }
    throw err;
  }
}
