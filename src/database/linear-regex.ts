import { RE2JS, RE2JSException } from 're2js';

/**
 * The one regular-expression dialect of the `regex`/`iregex` lookups (issue 28): RE2's syntax, checked by
 * re2js (a maintained pure-JavaScript port of RE2, so nothing to build) on both databases. RE2 has no
 * backreferences or lookaround and limits counted repeats to 1000, so SQLite matches in time linear in
 * the row (re2js), and MariaDB's PCRE2 gets only patterns it parses the same way; MariaDB's own time is
 * bounded per statement (REGEX_STATEMENT_BUDGET_MS). JavaScript-only escapes (`\u0041`) and unclosed
 * POSIX classes (`[[:alpha:]`) are refused alike. Write `\x{41}` and `[[:alpha:]]`.
 */
export const MAX_PATTERN_LENGTH = 1000;

/** How long one list statement may spend matching patterns before the request is refused (400). */
export const REGEX_STATEMENT_BUDGET_MS = 500;

/** The code of the error a statement fails with when its patterns ran past the budget. */
export const REGEX_TIMEOUT = 'REGEX_TIMEOUT';

/** Why `pattern` is refused, or null when both databases take it. */
export function regexProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `a pattern may be at most ${MAX_PATTERN_LENGTH} characters long`;
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (err) {
    if (err instanceof RE2JSException) return err.message.replace(/^error parsing regexp: /, '');
    throw err;
  }
}

/** A compiled pattern (case-insensitive for `iregex`); the caller has checked it with regexProblem. */
export function compileRegex(pattern: string, caseInsensitive: boolean): RE2JS {
  return RE2JS.compile(pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
}
