import { regexProblem } from '../../database/linear-regex';
import { BadRequest } from '../errors';
import { FieldType, MAX_IN_VALUES } from './list-spec';
import { globEscape, likeEscape, parseBool, parseValue } from './values';

const TEXT_LOOKUPS = new Set(['contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'regex', 'iregex']);

/**
 * One lookup on one column as SQL, its values as named parameters (`:lq0`, `:lq1`…): the same meaning on
 * SQLite and MariaDB (exact and the case-sensitive lookups compare bytes on both; regexes are RE2-checked).
 */
export class Conditions {
  private counter = 0;
  /** Whether any condition matches a regex: its statements then run within the regex budget (raw-rows.ts). */
  usesRegex = false;
  readonly params: Record<string, unknown> = {};

  constructor(private readonly mysql: boolean) {}

  private param(value: unknown): string {
    const key = `lq${this.counter++}`;
    this.params[key] = value;
    return `:${key}`;
  }

  condition(column: string, type: FieldType, lookup: string, raw: string, name: string): string {
    if (lookup === 'isnull') return `${column} ${parseBool(raw, name) ? 'IS NULL' : 'IS NOT NULL'}`;
    if (lookup === 'in') return this.inList(column, type, raw, name);
    if (TEXT_LOOKUPS.has(lookup) && type !== 'string') throw new BadRequest(`${name}: the "${lookup}" lookup applies to text fields only.`);
    const p = (value: unknown) => this.param(value);
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

  private inList(column: string, type: FieldType, raw: string, name: string): string {
    const items = raw.split(',');
    if (!raw || items.some((i) => i === '')) throw new BadRequest(`${name}__in needs a comma-separated list of values.`);
    if (items.length > MAX_IN_VALUES) throw new BadRequest(`${name}__in: at most ${MAX_IN_VALUES} values, ${items.length} given.`);
    const values = items.map((i) => parseValue(i, type, name));
    if (values.some((v) => v === null)) throw new BadRequest(`${name}__in: null is not a value to list; use ${name}__isnull.`);
    const key = `lq${this.counter++}`;
    this.params[key] = values;
    return `${column} IN (:...${key})`;
  }
}
