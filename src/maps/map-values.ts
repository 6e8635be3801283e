import { z } from 'zod';
import { RE2JS } from 're2js';
import { refuse } from '../common/validation';
import { regexProblem } from '../database/linear-regex';

/**
 * The values inside AWX's map settings (SPEC §21), read as AWX 23's fields read them: DRF 3.14's
 * BooleanField for whole values and remove flags, `SocialMapField` (strings, `/pattern/flags`) for the
 * social maps' M, `LDAPDNMapField` for the LDAP maps' M.
 */

/** An M as stored: a whole boolean or null, or strings (a social `/pattern/flags` stays in that form). */
export type MapValue = boolean | null | string | string[];

/** DRF 3.14 BooleanField's TRUE_VALUES, FALSE_VALUES and NULL_VALUES (strings as written there). */
const TRUE_TEXT = new Set(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1']);
const FALSE_TEXT = new Set(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0']);
const NULL_TEXT = new Set(['null', 'Null', 'NULL', '']);

/** What DRF's BooleanField makes of a value: true, false, null, or undefined when it is none of them. */
export function drfBoolean(value: unknown): boolean | null | undefined {
  if (value === true || value === 1 || (typeof value === 'string' && TRUE_TEXT.has(value))) return true;
  if (value === false || value === 0 || (typeof value === 'string' && FALSE_TEXT.has(value))) return false;
  if (value === null || (typeof value === 'string' && NULL_TEXT.has(value))) return null;
  return undefined;
}

/** A remove flag (DRF BooleanField, required=False, not null): `"yes"`, `1`… read as booleans. */
export const removeFlag = z.unknown().transform((value, ctx): boolean => {
  const read = drfBoolean(value);
  if (read === null) refuse(ctx, 'This field may not be null.', value);
  else if (read === undefined) refuse(ctx, 'Must be a valid boolean.', value);
  return read ?? false;
});

/** Python's `type(value)` as AWX's message shows it. */
function pythonType(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? "<class 'int'>" : "<class 'float'>";
  if (typeof value === 'boolean') return "<class 'bool'>";
  if (value && typeof value === 'object') return "<class 'dict'>";
  return `<class '${typeof value}'>`;
}

/** AWX's `SocialMapStringRegexField`: `/pattern/` with optional flags `i` and `m` is a regular expression. */
const REGEX_FORM = /^\/(.*)\/([im]+)?$/s;

export interface MapPattern {
  pattern: string;
  ignoreCase: boolean;
  multiline: boolean;
}

/** The regular expression a social M string stands for, or null for a string compared exactly. */
export function mapPattern(value: string): MapPattern | null {
  const match = REGEX_FORM.exec(value);
  if (!match) return null;
  const flags = match[2] ?? '';
  return { pattern: match[1], ignoreCase: flags.includes('i'), multiline: flags.includes('m') };
}

/** How AWX reads a compiled pattern back: `/pattern/` then `i`, then `m`, each once. */
function patternText(pattern: MapPattern): string {
  return `/${pattern.pattern}/${pattern.ignoreCase ? 'i' : ''}${pattern.multiline ? 'm' : ''}`;
}

/** Compiles a checked pattern (§19: RE2). */
export function compilePattern(pattern: MapPattern): RE2JS {
  return RE2JS.compile(pattern.pattern, (pattern.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (pattern.multiline ? RE2JS.MULTILINE : 0));
}

/** Python's `re.match`: from the first character on, not necessarily to the end. */
export function matchesFromStart(regex: RE2JS, value: string): boolean {
  return regex.matcher(value).lookingAt();
}

type ItemCheck = (item: string) => string | { problem: string };

/**
 * DRF's CharField inside a ListField (numbers become text, whitespace is trimmed, blank is refused), then
 * the item's own check; `at` is the item's position, which DRF's ListField names in its errors.
 */
function listItem(value: unknown, ctx: z.RefinementCtx, check: ItemCheck, at: number[]): string | undefined {
  const fail = (message: string) => ctx.addIssue({ code: 'custom', message, input: value, path: at });
  if (typeof value !== 'string' && typeof value !== 'number') return void fail('Not a valid string.');
  const item = String(value).trim();
  if (item === '') return void fail('This field may not be blank.');
  const checked = check(item);
  if (typeof checked === 'string') return checked;
  fail(checked.problem);
  return undefined;
}

/** AWX's StringListBooleanField family: a whole boolean-like value, a string, or a list of strings. */
function mapValue(check: ItemCheck) {
  return z.unknown().transform((value, ctx): MapValue => {
    if (Array.isArray(value)) {
      const out: string[] = [];
      value.forEach((item, index) => {
        const read = listItem(item, ctx, check, [index]);
        if (read !== undefined) out.push(read);
      });
      return out;
    }
    const read = drfBoolean(value);
    if (read !== undefined) return read;
    if (typeof value === 'string') return listItem(value, ctx, check, []) ?? null;
    refuse(ctx, `Expected None, True, False, a string or list of strings but got ${pythonType(value)} instead.`, value);
    return null;
  });
}

/** A social M item: a username or email compared exactly, or `/pattern/flags` checked as §19 checks patterns. */
const socialItem: ItemCheck = (item) => {
  const pattern = mapPattern(item);
  if (!pattern) return item;
  const problem = regexProblem(pattern.pattern);
  return problem ? { problem: `Invalid regular expression (RE2 syntax): ${problem}.` } : patternText(pattern);
};

/** A DN item, checked as §14 checks DNs (the LDAP module passes its check: maps import no login method). */
function dnItem(isDn: (value: string) => boolean): ItemCheck {
  return (item) => (item.length <= 1024 && isDn(item) ? item : { problem: 'Enter a valid DN (e.g. "cn=admins,ou=groups,dc=example,dc=org").' });
}

export const socialMapValue = mapValue(socialItem);
export function ldapMapValue(isDn: (value: string) => boolean) {
  return mapValue(dnItem(isDn));
}

/** The strings of an M that is neither a boolean nor null (a single string is a one-item list). */
export function mapItems(value: MapValue): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value : [];
}
