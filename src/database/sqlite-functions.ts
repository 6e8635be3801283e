/** A better-sqlite3 connection, as far as registering functions goes. */
interface FunctionHost {
  function(name: string, options: object, fn: (...args: unknown[]) => unknown): unknown;
}

/**
 * The `regex`/`iregex` lookups of AWX's list query language: SQLite has REGEXP syntax but no function.
 * Registered on the service's connection and on the off-thread read connection alike.
 */
export function registerSqliteFunctions(db: FunctionHost): void {
  db.function('regexp', { deterministic: true }, (pattern, value) => regexTest(pattern, value, ''));
  db.function('iregexp', { deterministic: true }, (pattern, value) => regexTest(pattern, value, 'i'));
}

const compiled = new Map<string, RegExp>();

/** 1 when `value` matches `pattern`; the patterns of a query are compiled once (a few kept). */
function regexTest(pattern: unknown, value: unknown, flags: string): number {
  if (value === null || value === undefined) return 0;
  const key = `${flags}/${String(pattern)}`;
  let re = compiled.get(key);
  if (!re) {
    re = new RegExp(String(pattern), flags);
    if (compiled.size > 64) compiled.clear();
    compiled.set(key, re);
  }
  return re.test(String(value)) ? 1 : 0;
}
