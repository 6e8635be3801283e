import { BadRequest, PermissionDenied } from '../errors';
import type { FieldType } from './list-spec';

/** The 403 of a filter or order the caller may not make: a secret, or a related field beyond what it may read. */
export function filteringRefused(field: string): PermissionDenied {
  return new PermissionDenied(field === 'password' ? 'Filtering on password fields is not allowed.' : `Filtering on ${field} is not allowed.`);
}

export function parseBool(raw: string, name: string): boolean {
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new BadRequest(`${name}: "${raw.slice(0, 100)}" is not a boolean (true, false, 1 or 0).`);
}

/** A query-string value as the field's type reads it (SPEC §19); a related id also reads `null`/`none`. */
export function parseValue(raw: string, type: FieldType, name: string): unknown {
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
export function likeEscape(value: string): string {
  return value.replace(/[!%_]/g, (c) => `!${c}`);
}

/** GLOB (SQLite's case-sensitive LIKE): `*`, `?` and `[` in the value match themselves. */
export function globEscape(value: string): string {
  return value.replace(/[*?[]/g, (c) => `[${c}]`);
}

/** The values of a query parameter, repeated or not. */
export function asList(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}
