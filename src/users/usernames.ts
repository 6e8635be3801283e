/** Django's username rule, the one the users API enforces: letters, digits and @ . + - _, at most 150 characters. */
export const USERNAME = /^[\p{L}\p{N}@.+\-_]+$/u;
export const MAX_USERNAME = 150;
/** How many of `name`, `name-2`... a new external user tries before giving up. */
export const MAX_SUFFIX_TRIES = 100;

/**
 * The one reading of a username (SPEC §14), typed at a login or stored through the users API: NFKC, so
 * that `ｌａｒａ`, `𝐥𝐚𝐫𝐚` and `ℓara` are `lara` here as they are to a directory (RFC 4518 prepares names
 * with NFKC before comparing them). Otherwise a look-alike would miss the account it resembles, and a
 * directory would still bind it as that account's entry: a second account for one person.
 */
export function normalizeUsername(raw: string): string {
  // Printable ASCII is its own NFKC form: basic auth's repeat path (every request) skips the normalizer.
  return PRINTABLE_ASCII.test(raw) ? raw : raw.normalize('NFKC');
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The form two names are compared in (SPEC §14, §20: `Émile` is `émile`): NFKC, then case folded over all of
 * Unicode (upper then lower, so `ß` is `ss`). Computed here and stored beside the name (`username_folded`),
 * so SQLite, whose LOWER() folds ASCII only, and MariaDB, whose collation folds its own way, agree.
 */
export function foldUsername(name: string): string {
  const normal = normalizeUsername(name);
  return PRINTABLE_ASCII.test(normal) ? normal.toLowerCase() : normal.toUpperCase().toLowerCase();
}

/** `raw` reduced to the characters a username may hold (an SSO identity's name, an application's name). */
export function cleanUsername(raw: string | undefined): string {
  return normalizeUsername(raw ?? '').replace(/[^\p{L}\p{N}@.+\-_]/gu, '').slice(0, MAX_USERNAME);
}

/** The n-th candidate for a name: `base`, then `base-2`, `base-3`..., cut to fit. */
export function withSuffix(base: string, n: number): string {
  const suffix = n === 1 ? '' : `-${n}`;
  return base.slice(0, MAX_USERNAME - suffix.length) + suffix;
}

/** The input with its username, when it has one, as every other path reads it (SPEC §14). */
export function withNormalizedName<T extends { username?: string }>(input: T): T {
  return typeof input.username === 'string' ? { ...input, username: normalizeUsername(input.username) } : input;
}
