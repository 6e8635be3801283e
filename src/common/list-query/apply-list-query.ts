import { Brackets, SelectQueryBuilder, WhereExpressionBuilder } from 'typeorm';
import { BadRequest } from '../errors';
import type { Account } from '../principal';
import { Conditions } from './conditions';
import { FieldPaths } from './field-paths';
import { hasOwn, ListSpec, LOOKUPS, MAX_CONDITIONS, QueryParams, RESERVED, ROLE_LEVEL_REFUSED } from './list-spec';
import { orderList } from './ordering';
import { asList } from './values';

/** The conditions a query string adds: ANDed, and the `or__` ones ORed together. */
interface Built {
  and: string[];
  or: string[];
}

/**
 * Applies every filter, `search` and `order_by` of the query string to a list's query builder (already limited
 * to what the caller may see), so a filtered page never widens it; refuses (403) a path through a related
 * object beyond what the caller may read of it (field-paths.ts).
 */
export async function applyListQuery<T extends object>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  spec: ListSpec,
  query: QueryParams,
  viewer: Account,
): Promise<{ usesRegex: boolean }> {
  const paths = new FieldPaths(qb, alias, spec, viewer);
  const conditions = new Conditions(qb.connection.options.type === 'mysql');
  const built: Built = { and: [], or: [] };
  const filters = filtersOf(spec, query);
  const terms = asList(query.search).flatMap((value) => value.split(',').filter((t) => t !== ''));
  // Counted before anything is built: SQLite refuses an expression deeper than 1000, and no list needs more.
  if (filters.length + terms.length > MAX_CONDITIONS) {
    throw new BadRequest(`Too many conditions: ${filters.length} filters and ${terms.length} search terms given, at most ${MAX_CONDITIONS} in all.`);
  }
  for (const [key, value] of filters) filter(paths, conditions, key, value, built);
  for (const term of terms) {
    const any = spec.search.map((field) => conditions.condition(paths.resolve([field], field).column, 'string', 'icontains', term, field));
    built.and.push(`(${any.join(' OR ')})`);
  }
  orderList(qb, alias, spec, paths, asList(query.order_by ?? query.order));
  // Every join is made; the conditions are not added yet: the rows the caller may see, for the guards.
  await paths.checkGuards(qb.clone());
  for (const cond of built.and) qb.andWhere(cond);
  if (built.or.length) qb.andWhere(new Brackets((b: WhereExpressionBuilder) => built.or.forEach((c) => b.orWhere(c))));
  qb.setParameters({ ...qb.getParameters(), ...conditions.params });
  return { usesRegex: conditions.usesRegex };
}

/** The query string's filters, `[key, value]` once per value; reserved words are left out (`limit` aside). */
function filtersOf(spec: ListSpec, query: QueryParams): [string, string][] {
  const filters: [string, string][] = [];
  for (const [rawKey, rawValue] of Object.entries(query)) {
    let key = rawKey;
    if (key === 'limit' && hasOwn(spec.fields, 'limit')) key = 'limit__exact';
    else if (RESERVED.has(key)) continue;
    else if (key === 'role_level') {
      if (spec.roleLevel) continue;
      throw new BadRequest(ROLE_LEVEL_REFUSED);
    }
    for (const value of asList(rawValue)) filters.push([key, value]);
  }
  return filters;
}

/** `[or__|chain__][not__]path[__lookup]=value`, AWX's FieldLookupBackend. */
function filter<T extends object>(paths: FieldPaths<T>, conditions: Conditions, key: string, value: string, built: Built): void {
  if (!/^[\x21-\x7e]+$/.test(key)) throw new BadRequest(`Invalid field name: ${JSON.stringify(key).slice(0, 100)}.`);
  let rest = key;
  let or = false;
  let negate = false;
  if (rest.startsWith('or__')) [or, rest] = [true, rest.slice(4)];
  else if (rest.startsWith('chain__')) rest = rest.slice(7);
  if (rest.startsWith('not__')) [negate, rest] = [true, rest.slice(5)];
  const parts = rest.split('__');
  let lookup = 'exact';
  if (parts.length > 1 && LOOKUPS.has(parts[parts.length - 1])) lookup = parts.pop()!;
  const { column, type, name } = paths.resolve(parts, key);
  let cond = conditions.condition(column, type, lookup, value, name);
  if (negate) cond = `NOT (${cond})`;
  (or ? built.or : built.and).push(cond);
}
