/**
 * A `next` target we may redirect to: a local path (not `//host` or `/\host`), or an absolute URL on
 * our own origin, reduced to its path. Anything else is refused (no open redirects).
 */
export function safeNext(next: unknown, ownOrigin: string): string | null {
  if (typeof next !== 'string' || !next || next.length > 2048 || /[\u0000-\u001f\\]/.test(next)) return null;
  if (next.startsWith('/') && !next.startsWith('//')) return next;
  try {
    const url = new URL(next);
    if (url.origin === ownOrigin) return url.pathname + url.search + url.hash;
  } catch {
    /* not a URL */
  }
  return null;
}
