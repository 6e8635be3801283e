/**
 * A `next` target we may redirect to: a local path (not `//host` or `/\host`), or an absolute URL on
 * our own origin, reduced to its path. Anything else is refused (no open redirects).
 */
export function safeNext(next: unknown, ownOrigin: string): string | null {
  if (typeof next !== 'string' || !next || next.length > 2048 || /[\u0000-\u001f\\]/.test(next)) return null;
  if (next.startsWith('/') && !next.startsWith('//')) return asciiUri(next);
  try {
    const url = new URL(next);
    if (url.origin === ownOrigin) return url.pathname + url.search + url.hash;
  } catch {
    /* not a URL */
  }
  return null;
}

/**
 * A Location header carries ASCII only: any other character of the path is percent-encoded as UTF-8,
 * as Django's iri_to_uri does (a `next` in Cyrillic or with an emoji is a redirect, not a 500). A string
 * that is not valid UTF-16 (a lone surrogate) cannot be encoded and is refused.
 */
function asciiUri(path: string): string | null {
  try {
    return path.replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run));
  } catch {
    return null;
  }
}
