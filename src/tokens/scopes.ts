import type { TokenScope } from '../common/principal';

export const ALLOWED_SCOPES = ['read', 'write'] as const;
export const DEFAULT_SCOPE = 'write';
/** AWX's message for any bad scope value. */
export const SCOPE_MESSAGE = "Must be a simple space-separated string with allowed scopes ['read', 'write'].";

/** Space-separated `read`/`write`, each at most once, not empty; returns the normalised string or null. */
export function parseScope(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const words = value.split(/\s+/).filter((w) => w !== '');
  if (!words.length || words.length !== new Set(words).size) return null;
  if (!words.every((w) => (ALLOWED_SCOPES as readonly string[]).includes(w))) return null;
  return words.join(' ');
}

/** What a token may do: `write` implies read; anything else is read-only. */
export function effectiveScope(scope: string): TokenScope {
  return scope.split(' ').includes('write') ? 'write' : 'read';
}
