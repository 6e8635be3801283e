import type { RE2JS } from 're2js';
import { compileRegex, REGEX_TIMEOUT } from './linear-regex';

/** A better-sqlite3 connection, as far as registering functions goes. */
interface FunctionHost {
  function(name: string, options: object, fn: (...args: unknown[]) => unknown): unknown;
}

/**
 * The `regex`/`iregex` lookups of AWX's list query language: SQLite has REGEXP syntax but no function.
 * Registered on the service's connection and on the off-thread read connection alike. Matching is RE2's
 * (linear in the row, linear-regex.ts); the read worker also gives each statement a deadline, so a pattern
 * over many long rows fails its request instead of holding the reader.
 */
export function registerSqliteFunctions(db: FunctionHost): void {
  db.function('regexp', { deterministic: true }, (pattern, value) => regexTest(pattern, value, false));
  db.function('iregexp', { deterministic: true }, (pattern, value) => regexTest(pattern, value, true));
}

const compiled = new Map<string, RE2JS>();
let deadline = 0;

/** Until `ms` from now (0: no limit), the regex functions of this thread throw once the time is up. */
export function setRegexDeadline(ms: number): void {
  deadline = ms ? Date.now() + ms : 0;
}

/** 1 when `value` matches `pattern`; the patterns of a query are compiled once (a few kept). */
function regexTest(pattern: unknown, value: unknown, caseInsensitive: boolean): number {
  if (value === null || value === undefined) return 0;
  if (deadline && Date.now() > deadline) throw Object.assign(new Error('regular expression time budget exceeded'), { code: REGEX_TIMEOUT });
  const key = `${caseInsensitive ? 'i' : ''}/${String(pattern)}`;
  let re = compiled.get(key);
  if (!re) {
    re = compileRegex(String(pattern), caseInsensitive);
    if (compiled.size > 64) compiled.clear();
    compiled.set(key, re);
  }
  return re.matcher(String(value)).find() ? 1 : 0;
}
