import { Brackets, SelectQueryBuilder, WhereExpressionBuilder } from 'typeorm';
import { offThreadReads } from '../database/off-thread-reads';
import { REGEX_STATEMENT_BUDGET_MS, REGEX_TIMEOUT, regexProblem } from '../database/linear-regex';
import { isStatementTimeout } from '../database/errors';
import { BadRequest, PermissionDenied } from './errors';
import { Page, pageOf, pageRequest } from './pagination';
import type { Account } from './principal';

/**
 * AWX's list query language (SPEC §19: FieldLookupBackend, OrderByBackend, DRF's SearchFilter) turned
 * into conditions of the list's own SQL query, so a filtered page reads one page of rows and never
 * widens what the caller may see (the caller's visibility is already in the query this adds to).
 *
 * Each list declares the fields it exposes, their types, which are secret, the related objects it can
 * be filtered through (`user__username`) and its search fields. Everything else is refused: an unknown
 * field or lookup, a wrong value, a repeated relation, a bad regex, more than MAX_CONDITIONS conditions
 * are 400; a secret is 403, and so is a related object's field beyond its summary when the caller may not
 * read that object itself (issue 28: counting rows must not reveal what the caller cannot read; issue 40:
 * what the caller may read, its own user for one, is open).
 */
export type FieldType = 'int' | 'string' | 'bool' | 'datetime' | 'fk';

export interface ListSpec {
  /**
   * API field name -> entity property (and its type), or 'secret' for what may never be filtered on. A field
   * with an `expression` is computed from the row's columns (a role's `name` from its `role_field`).
   */
  fields: Record<string, ListField | 'secret'>;
  /** Related objects by API name: the entity relation to join, and what that object exposes. */
  relations?: Record<string, RelatedList>;
  /** Fields `search=` looks in (case-insensitively). */
  search: string[];
  /** The list's own order, also the tie-break after `order_by` (default: by id). */
  defaultOrder?: [string, 'ASC' | 'DESC'][];
  /** The list reads AWX's reserved `role_level` itself (organizations, teams; SPEC §21); on any other list it is a 400. */
  roleLevel?: boolean;
}

export interface ListField {
  property: string;
  type: FieldType;
  /** SQL over the row's alias instead of the property's column. */
  expression?: (alias: string) => string;
}

/** AWX's answer to `role_level` on a list whose objects are not guarded by roles (SPEC §21). */
export const ROLE_LEVEL_REFUSED = 'Cannot apply role_level filter to this list because its model does not use roles for access control.';

/** Query parameters that are never filters. */
const RESERVED = new Set(['page', 'page_size', 'format', 'order', 'order_by', 'search', 'type', 'count_disabled', 'no_truncate', 'limit']);
const LOOKUPS = new Set(['exact', 'iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'regex', 'iregex', 'gt', 'gte', 'lt', 'lte', 'in', 'isnull']);

export type QueryParams = Record<string, unknown>;

/** A related object a list can be filtered and ordered through. */
export interface RelatedList {
  relation: string;
  spec: () => ListSpec;
  /** The fields the list itself shows of the object (its summary_fields entry): open to every caller. */
  summary: readonly string[];
  /** Whether the caller may read every object of this kind (then the rest of `spec` is open at once). */
  readableBy: (viewer: Account) => boolean;
  /**
   * The property of the related object that names the one user who may read it besides those: `id` for a
   * user (users read themselves), the owner's id for what users own. The rest of `spec` is open to a caller
   * when every object of this relation among the rows the caller may see is one it may read.
   */
  readableByOwner: string;
}

/** At most this many conditions (filters, each of their values, search terms) in one query string (SPEC §19). */
export const MAX_CONDITIONS = 200;
/** At most this many values in one `__in` list. */
export const MAX_IN_VALUES = 500;
/** At most this many fields in `order_by`. */
export const MAX_ORDER_FIELDS = 10;

interface Built {
  and: string[];
  or: string[];
  params: Record<string, unknown>;
}

/**
 * One page of a list: the query builder (already limited to what the caller may see) gets the filters,
 * search and ordering of the query string, then one COUNT and one page of rows are read.
 */
export async function queryPage<T extends object, R>(
  qb: SelectQueryBuilder<T>,
  spec: ListSpec,
  query: QueryParams,
  path: string,
  viewer: Account,
  present: (rows: T[]) => R[] | Promise<R[]>,
): Promise<Page<R>> {
  const request = pageRequest(query);
  const { usesRegex } = await applyListQuery(qb, qb.alias, spec, query, viewer);
  const count = await countRows(qb, usesRegex);
  // Nothing on the page (an empty list, a page past its end): no statement to read it.
  const rows = count > request.offset ? await pageRows(qb, request.offset, request.pageSize, usesRegex) : [];
  return pageOf(path, request, count, await present(rows), query);
}

/** What `excludeRows` left out of a list: the condition the page reads, and its exact complement. */
const exclusions = new WeakMap<SelectQueryBuilder<object>, { kept: string; dropped: string }>();

/**
 * Leaves out of a list the rows a condition on a to-one joined row drops (the tokens a user's cut-off
 * revoked): the page reads `kept`; `dropped` must be its exact complement over the joined rows. The count
 * is then every row less the dropped ones, so counting joins nothing for it: testing `kept` through each
 * token's user made MariaDB's count of 500,000 tokens 68–143 ms against 40–62 ms for all rows, while the
 * dropped ones are an index range per cut-off user (issue 43).
 */
export function excludeRows<T extends object>(qb: SelectQueryBuilder<T>, kept: string, dropped: string): SelectQueryBuilder<T> {
  exclusions.set(qb as SelectQueryBuilder<object>, { kept, dropped });
  return qb.andWhere(kept);
}

/**
 * `COUNT(1)` over the list's conditions, joining only what a condition names. The ORM's own count is
 * `COUNT(DISTINCT id)` over every join the list selects, which reads every joined row (issue 21); a
 * list's joins are to-one, so dropping the unused ones and counting plainly gives the same number from
 * an index. A list with an `excludeRows` condition is counted as all its rows less the dropped ones.
 */
async function countRows<T extends object>(qb: SelectQueryBuilder<T>, usesRegex: boolean): Promise<number> {
  const exclusion = exclusions.get(qb as SelectQueryBuilder<object>);
  const all = exclusion && countWith(qb, usesRegex, [exclusion.kept, '1=1']);
  const dropped = exclusion && countWith(qb, usesRegex, [exclusion.kept, exclusion.dropped]);
  if (!all || !dropped) return countWith(qb, usesRegex)!;
  const [a, d] = await Promise.all([all, dropped]);
  return a - d;
}

/** The count of a clone of `qb` with one top-level condition replaced (`[from, to]`); undefined when it has no such condition. */
function countWith<T extends object>(qb: SelectQueryBuilder<T>, usesRegex: boolean, replace?: [string, string]): Promise<number> | undefined {
  const counting = qb.clone();
  if (replace) {
    const at = counting.expressionMap.wheres.find((w) => w.condition === replace[0]);
    if (!at) return undefined;
    at.condition = replace[1];
  }
  const where = conditionText(counting.expressionMap.wheres);
  const joins = counting.expressionMap.joinAttributes;
  const named = (alias: string) => where.includes(`${alias}.`) || where.includes(`${counting.escape(alias)}.`);
  const needed = new Set(joins.filter((j) => named(j.alias.name)).map((j) => j.alias.name));
  for (const join of [...joins].reverse()) if (needed.has(join.alias.name) && join.parentAlias) needed.add(join.parentAlias);
  counting.expressionMap.joinAttributes = joins.filter((j) => needed.has(j.alias.name));
  // An index hint serves the page's order; a count has none, and its planner knows the covering index.
  counting.expressionMap.useIndex = undefined;
  counting.orderBy().offset(undefined).limit(undefined).select('COUNT(1)', 'cnt');
  return rawRows<{ cnt: string | number }>(counting, usesRegex).then(([row]) => Number(row?.cnt ?? 0));
}

/** The text of a query builder's conditions (its public `expressionMap.wheres`): what a count must join for. */
function conditionText(condition: SelectQueryBuilder<object>['expressionMap']['wheres'][number]['condition']): string {
  if (typeof condition === 'string') return condition;
  if (Array.isArray(condition)) return condition.map((w) => conditionText(w.condition)).join(' ');
  return 'parameters' in condition ? condition.parameters.join(' ') : conditionText(condition.condition);
}

/**
 * One page: its ids first (ordered and offset over an index alone), then those rows. Offsetting full
 * rows would read every skipped row on MySQL, and for full rows its planner may sort the whole list
 * instead of walking the list's index (measured: 1.1 s against 0.17 s for a first page of 500,000).
 */
async function pageRows<T extends object>(qb: SelectQueryBuilder<T>, offset: number, size: number, usesRegex: boolean): Promise<T[]> {
  const alias = qb.alias;
  const idRows = await rawRows<{ id: number | string }>(qb.clone().select(`${alias}.id`, 'id').offset(offset).limit(size), usesRegex);
  const ids = idRows.map((r) => Number(r.id));
  if (!ids.length) return [];
  // The ids already passed the caller's visibility and every filter: the rows are read by id alone, so no
  // pattern is matched a second time (on SQLite that second time was on the event loop). By their primary
  // key: an index hint that served the list's order (USE INDEX) would make MySQL walk that index instead
  // (a user's personal tokens: 465 ms for 25 rows of 500,000).
  const byIds = qb.clone().orderBy().where(`${alias}.id IN (:...pageIds)`, { pageIds: ids });
  byIds.expressionMap.useIndex = undefined;
  const rows = await byIds.getMany();
  const byId = new Map(rows.map((r) => [(r as { id: number }).id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is T => r !== undefined);
}

/**
 * Applies every filter, `search` and `order_by` of the query string to a list's query builder; refuses
 * (403) a path through a related object beyond its summary while any row the caller may see relates to
 * such an object the caller may not read.
 */
export async function applyListQuery<T extends object>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  spec: ListSpec,
  query: QueryParams,
  viewer: Account,
): Promise<{ usesRegex: boolean }> {
  const ctx = new Context(qb, alias, spec, qb.connection.options.type === 'mysql', viewer);
  const built: Built = { and: [], or: [], params: {} };
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
  const terms = asList(query.search).flatMap((value) => value.split(',').filter((t) => t !== ''));
  // Counted before anything is built: SQLite refuses an expression deeper than 1000, and no list needs more.
  if (filters.length + terms.length > MAX_CONDITIONS) {
    throw new BadRequest(`Too many conditions: ${filters.length} filters and ${terms.length} search terms given, at most ${MAX_CONDITIONS} in all.`);
  }
  for (const [key, value] of filters) ctx.filter(key, value, built);
  for (const term of terms) ctx.search(term, built);
  ctx.order(asList(query.order_by ?? query.order));
  // Every join is made; the conditions are not added yet: the rows the caller may see, for the guards.
  await ctx.checkGuards(qb.clone());
  for (const cond of built.and) qb.andWhere(cond);
  if (built.or.length) qb.andWhere(new Brackets((b: WhereExpressionBuilder) => built.or.forEach((c) => b.orWhere(c))));
  qb.setParameters({ ...qb.getParameters(), ...built.params });
  return { usesRegex: ctx.usesRegex };
}

/** Own properties only: `constructor`, `toString` and the like are names of no field (issue 28). */
function hasOwn<V>(record: Record<string, V> | undefined, key: string): record is Record<string, V> {
  return record !== undefined && Object.hasOwn(record, key);
}

function asList(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/**
 * A related object whose fields beyond its summary a path reads, for a caller who may not read every such
 * object: allowed only while no row the caller may see relates to one the caller may not read.
 */
interface Guard {
  /** The join alias of the related object, and its property naming the user who may read it. */
  alias: string;
  owner: string;
  /** The whole path that needed it, as the 403 names it (`application__user__email`). */
  path: string;
}

class Context<T extends object> {
  private joined = new Map<string, string>();
  private counter = 0;
  private readonly guards = new Map<string, Guard>();
  usesRegex = false;

  constructor(
    private readonly qb: SelectQueryBuilder<T>,
    private readonly alias: string,
    private readonly spec: ListSpec,
    private readonly mysql: boolean,
    private readonly viewer: Account,
  ) {}

  filter(key: string, value: string, built: Built): void {
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
    const { column, type, name } = this.resolve(parts, key);
    let cond = this.condition(column, type, lookup, value, name, built.params);
    if (negate) cond = `NOT (${cond})`;
    (or ? built.or : built.and).push(cond);
  }

  search(term: string, built: Built): void {
    const any = this.spec.search.map((field) => {
      const { column } = this.resolve([field], field);
      return this.condition(column, 'string', 'icontains', term, field, built.params);
    });
    built.and.push(`(${any.join(' OR ')})`);
  }

  order(values: string[]): void {
    let orderedById = false;
    let first = true;
    const items = values.flatMap((v) => v.split(',')).filter((v) => v !== '');
    if (items.length > MAX_ORDER_FIELDS) throw new BadRequest(`order_by: at most ${MAX_ORDER_FIELDS} fields, ${items.length} given.`);
    for (const item of items) {
      const descending = item.startsWith('-');
      const field = descending ? item.slice(1) : item;
      if (!/^[\x21-\x7e]+$/.test(field)) throw new BadRequest(`Invalid order_by field: ${JSON.stringify(field).slice(0, 100)}.`);
      const { column } = this.resolve(field.split('__'), field);
      if (first) this.qb.orderBy(column, descending ? 'DESC' : 'ASC');
      else this.qb.addOrderBy(column, descending ? 'DESC' : 'ASC');
      first = false;
      if (column === `${this.alias}.id`) orderedById = true;
    }
    // Ties keep the list's default order, which is by id unless the list says otherwise (SPEC §19).
    if (orderedById) return;
    for (const [property, direction] of this.spec.defaultOrder ?? [['id', 'ASC']]) {
      if (first) this.qb.orderBy(`${this.alias}.${property}`, direction);
      else this.qb.addOrderBy(`${this.alias}.${property}`, direction);
      first = false;
    }
  }

  /**
   * 403 naming the path when a guard finds, among the rows the caller may see (`visible`: the list's query
   * with its joins, before any filter), one whose related object the caller may not read. Only the caller's
   * own rows are looked at, and whatever the filter's value: the answer tells nothing the list does not show.
   */
  async checkGuards(visible: SelectQueryBuilder<T>): Promise<void> {
    for (const guard of this.guards.values()) {
      const hidden = visible
        .clone()
        .orderBy()
        .select('1', 'hidden')
        .andWhere(`${guard.alias}.id IS NOT NULL AND (${guard.alias}.${guard.owner} IS NULL OR ${guard.alias}.${guard.owner} <> :lqViewer)`, { lqViewer: this.viewer.id })
        .limit(1);
      if ((await rawRows(hidden, false)).length) throw secretRefused(guard.path);
    }
  }

  /** A field path (`user`, `username`) to a column of the query, joining related objects once each. */
  private resolve(parts: string[], key: string): { column: string; type: FieldType; name: string } {
    let spec = this.spec;
    let alias = this.alias;
    // Set after a relation the caller may not read whole: beyond its summary, the path needs a guard.
    let guarded: { summary: readonly string[]; owner: string } | null = null;
    const visited = new Set<string>();
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      const last = i === parts.length - 1;
      const field = hasOwn(spec.fields, part) ? spec.fields[part] : undefined;
      if (field === 'secret') throw secretRefused(part);
      const relation = spec.relations && hasOwn(spec.relations, part) ? spec.relations[part] : undefined;
      if (guarded && !guarded.summary.includes(part) && !this.guards.has(alias)) {
        this.guards.set(alias, { alias, owner: guarded.owner, path: parts.join('__') });
      }
      if (last) {
        if (field) return { column: field.expression ? field.expression(alias) : `${alias}.${field.property}`, type: field.type, name: part };
        if (relation) {
          // A related object by itself is its id (`user=3`).
          return { column: `${this.join(alias, part, relation.relation)}.id`, type: 'fk', name: part };
        }
        throw new BadRequest(`${key}: "${part}" is not a field that can be filtered or ordered on here.`);
      }
      if (!relation) throw new BadRequest(`${key}: "${part}" is not a related object of this list.`);
      if (visited.has(relation.relation)) throw new BadRequest(`${key}: a path may visit "${part}" only once.`);
      visited.add(relation.relation);
      alias = this.join(alias, part, relation.relation);
      spec = relation.spec();
      guarded = relation.readableBy(this.viewer) ? null : { summary: relation.summary, owner: relation.readableByOwner };
    }
    throw new BadRequest(`Invalid field: ${key}.`);
  }

  private join(from: string, name: string, relation: string): string {
    const key = `${from}.${relation}`;
    let joinAlias = this.joined.get(key);
    if (!joinAlias) {
      const existing = this.qb.expressionMap.joinAttributes.find((j) => j.entityOrProperty === key);
      joinAlias = existing?.alias.name ?? `q_${from}_${name}`;
      if (!existing) this.qb.leftJoin(key, joinAlias);
      this.joined.set(key, joinAlias);
    }
    return joinAlias;
  }

  private condition(column: string, type: FieldType, lookup: string, raw: string, name: string, params: Record<string, unknown>): string {
    const p = (value: unknown) => {
      const key = `lq${this.counter++}`;
      params[key] = value;
      return `:${key}`;
    };
    if (lookup === 'isnull') return `${column} ${parseBool(raw, name) ? 'IS NULL' : 'IS NOT NULL'}`;
    if (lookup === 'in') {
      const items = raw.split(',');
      if (!raw || items.some((i) => i === '')) throw new BadRequest(`${name}__in needs a comma-separated list of values.`);
      if (items.length > MAX_IN_VALUES) throw new BadRequest(`${name}__in: at most ${MAX_IN_VALUES} values, ${items.length} given.`);
      const values = items.map((i) => parseValue(i, type, name));
      if (values.some((v) => v === null)) throw new BadRequest(`${name}__in: null is not a value to list; use ${name}__isnull.`);
      const key = `lq${this.counter++}`;
      params[key] = values;
      return `${column} IN (:...${key})`;
    }
    if (['contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'regex', 'iregex'].includes(lookup) && type !== 'string') {
      throw new BadRequest(`${name}: the "${lookup}" lookup applies to text fields only.`);
    }
    switch (lookup) {
      case 'exact': {
        const value = parseValue(raw, type, name);
        if (value === null) return `${column} IS NULL`;
        return type === 'string' && this.mysql ? `${column} COLLATE utf8mb4_bin = ${p(value)}` : `${column} = ${p(value)}`;
      }
      case 'iexact':
        return type === 'string' ? `LOWER(${column}) = LOWER(${p(raw)})` : `${column} = ${p(parseValue(raw, type, name))}`;
      case 'contains':
      case 'startswith':
      case 'endswith': {
        const before = lookup === 'startswith' ? '' : '%';
        const after = lookup === 'endswith' ? '' : '%';
        if (this.mysql) return `${column} COLLATE utf8mb4_bin LIKE ${p(before + likeEscape(raw) + after)} ESCAPE '!'`;
        return `${column} GLOB ${p(before.replace('%', '*') + globEscape(raw) + after.replace('%', '*'))}`;
      }
      case 'icontains':
      case 'istartswith':
      case 'iendswith': {
        const before = lookup === 'istartswith' ? '' : '%';
        const after = lookup === 'iendswith' ? '' : '%';
        return `LOWER(${column}) LIKE LOWER(${p(before + likeEscape(raw) + after)}) ESCAPE '!'`;
      }
      case 'regex':
      case 'iregex': {
        const problem = regexProblem(raw);
        if (problem) throw new BadRequest(`${name}__${lookup}: invalid regular expression (RE2 syntax): ${problem}.`);
        this.usesRegex = true;
        if (this.mysql) return `${column} COLLATE ${lookup === 'regex' ? 'utf8mb4_bin' : 'utf8mb4_general_ci'} REGEXP ${p(raw)}`;
        return `${lookup === 'regex' ? 'regexp' : 'iregexp'}(${p(raw)}, ${column}) = 1`;
      }
      default: {
        const value = parseValue(raw, type, name);
        if (value === null) throw new BadRequest(`${name}__${lookup}: null cannot be compared.`);
        const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[lookup]!;
        return `${column} ${op} ${p(value)}`;
      }
    }
  }
}

function secretRefused(field: string): PermissionDenied {
  return new PermissionDenied(field === 'password' ? 'Filtering on password fields is not allowed.' : `Filtering on ${field} is not allowed.`);
}

function parseBool(raw: string, name: string): boolean {
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new BadRequest(`${name}: "${raw.slice(0, 100)}" is not a boolean (true, false, 1 or 0).`);
}

function parseValue(raw: string, type: FieldType, name: string): unknown {
  switch (type) {
    case 'string':
      return raw;
    case 'bool':
      return parseBool(raw, name) ? 1 : 0;
    case 'fk':
      if (/^(null|none)$/i.test(raw)) return null;
    // falls through: otherwise an id
    case 'int':
      if (!/^-?[0-9]{1,15}$/.test(raw)) throw new BadRequest(`${name}: "${raw.slice(0, 100)}" is not an integer.`);
      return Number(raw);
    case 'datetime': {
      const date = /^\d{4}-\d{2}-\d{2}/.test(raw) ? new Date(raw) : new Date(NaN);
      if (Number.isNaN(date.getTime())) throw new BadRequest(`${name}: "${raw.slice(0, 100)}" is not a date and time (ISO 8601).`);
      return date;
    }
  }
}

/** LIKE with `!` as the escape character, so `%`, `_` and `!` in the value match themselves. */
function likeEscape(value: string): string {
  return value.replace(/[!%_]/g, (c) => `!${c}`);
}

/** GLOB (SQLite's case-sensitive LIKE): `*`, `?` and `[` in the value match themselves. */
function globEscape(value: string): string {
  return value.replace(/[*?[]/g, (c) => `[${c}]`);
}

/**
 * The raw rows of a SELECT; on SQLite read off the event loop, since these are the long reads of a list.
 * A statement with a regex lookup has REGEX_STATEMENT_BUDGET_MS to run (SQLite's read worker sets it
 * for every statement; MariaDB through its executable comment, which MySQL reads as a comment) and the
 * request is a 400 past it, never a held reader.
 */
async function rawRows<R>(qb: SelectQueryBuilder<object>, usesRegex: boolean): Promise<R[]> {
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
