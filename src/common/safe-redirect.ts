/**
 * A `next` target we may redirect to (SPEC §2), or null. Safe means: whatever a browser makes of the
 * `Location`, it lands on our own origin. Two shapes pass:
 * - a local path: exactly one `/`, then neither `/` nor `\` (a browser reads `//host` and `/\host` as
 *   another host), with no control character or backslash anywhere (browsers drop tabs and newlines
 *   inside a URL and read `\` as `/`, so `/\t/evil` and `/x\..\\evil` could become `//evil`);
 * - an absolute http(s) URL of our own origin, as the WHATWG parser (the browsers' own) serialises it,
 *   used whole. It is never cut down to its path: `http://svc//evil.example/x` and `http://svc/.//evil/`
 *   have the path `//evil…`, which as a `Location` of its own is a protocol-relative link elsewhere.
 * Everything else is refused (`//evil`, `http:evil`, `https:/\evil`, other schemes and origins, userinfo).
 * Every route that redirects to a `next` goes through here (login, second step, single sign-on, logout).
 */
export function safeNext(next: unknown, ownOrigin: string): string | null {
  if (typeof next !== 'string' || !next || next.length > 2048 || /[\u0000-\u001f\u007f\\]/.test(next)) return null;
  if (/^\/(?![/\\])/.test(next)) return asciiUri(next);
  let url: URL;
  try {
    url = new URL(next);
  } catch {
    return null;
  }
  // An origin is compared whole (scheme, host, port); credentials in a `next` are never ours to pass on.
  if (url.origin !== ownOrigin || url.username || url.password) return null;
  return url.href;
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
