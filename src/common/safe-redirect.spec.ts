import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { safeNext } from './safe-redirect';

const own = 'https://svc.example.com';
/** Where the browser is when it reads the Location (a relative one resolves against this). */
const page = `${own}/api/login/`;

/** What a browser does with a Location header: the WHATWG URL parser against the page's URL. */
function landsOn(location: string): string {
  return new URL(location, page).origin;
}

describe('safeNext', () => {
  it('keeps local paths, and our own absolute URLs whole', () => {
    assert.equal(safeNext('/api/v2/me/?a=1#x', own), '/api/v2/me/?a=1#x');
    assert.equal(safeNext('https://svc.example.com/accounts/profile/', own), 'https://svc.example.com/accounts/profile/');
    assert.equal(safeNext('https://SVC.example.com:443/a/../b/?q=1', own), 'https://svc.example.com/b/?q=1');
    assert.equal(safeNext('/', own), '/');
  });

  it('never reduces our own URL to a path a browser reads as another host (issue 40)', () => {
    for (const next of [
      'https://svc.example.com//evil.example/x',
      'https://svc.example.com///evil.example/x',
      'https://svc.example.com/.//evil.example/x',
      'https://svc.example.com/./..//evil.example/x',
      'https://svc.example.com/%2e//evil.example/x',
      'https://svc.example.com/a/..//evil.example/',
      'https:/svc.example.com//evil.example/',
    ]) {
      const location = safeNext(next, own);
      assert.ok(location, next);
      assert.ok(location.startsWith(`${own}/`), `${next} -> ${location}`);
      assert.equal(landsOn(location), own, `${next} -> ${location}`);
    }
  });

  it('refuses other hosts, protocol-relative and backslash tricks, schemes, credentials and control characters', () => {
    const bad: unknown[] = [
      '//evil.com', '///evil.com', '////evil.com', '/\\evil.com', '\\\\evil.com', '\\/evil.com', '/\\/evil.com',
      'https://evil.com/', 'http://svc.example.com/', 'https://svc.example.com.evil.com/', 'https://svc.example.com@evil.com/',
      'https://user:pw@svc.example.com/', 'https://svc.example.com:8443/', 'http:evil.com', 'https:evil.com', 'http:/evil.com',
      'https:\\\\evil.com', 'https:/\\evil.com', 'javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,x', 'evil.com', 'evil.com/x',
      '/ok\r\nSet-Cookie: x', '/\t/evil.com', '/\n/evil.com', '/\r/evil.com', '\t//evil.com', ' //evil.com', '/\u0000/evil.com',
      '/x\\..\\\\evil.com', '/\u007f/evil.com', '%2F%2Fevil.com', '%2f/evil.com', '', 42, null, undefined, {}, ['/a'], 'x'.repeat(3000),
    ];
    for (const next of bad) assert.equal(safeNext(next, own), null, JSON.stringify(next)?.slice(0, 60));
  });

  it('keeps encoded forms encoded: they stay a path on this host', () => {
    for (const next of ['/%2F%2Fevil.com', '/%5Cevil.com', '/%09/evil.com', '/.%2F%2Fevil.com', '/.//evil.com', '/%2e%2e//evil.com']) {
      const location = safeNext(next, own);
      assert.equal(location, next);
      assert.equal(landsOn(location), own, next);
    }
  });

  it('percent-encodes characters a Location header cannot carry, and refuses what cannot be encoded', () => {
    assert.equal(safeNext('/accounts/profile/?q=привет', own), '/accounts/profile/?q=%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82');
    assert.equal(safeNext('/a b/€/😀', own), '/a%20b/%E2%82%AC/%F0%9F%98%80');
    assert.equal(safeNext('/／evil.com', own), '/%EF%BC%8Fevil.com');
    assert.equal(safeNext('https://svc.example.com/é?q=ü#ö', own), 'https://svc.example.com/%C3%A9?q=%C3%BC#%C3%B6');
    assert.equal(safeNext('/x\ud800', own), null);
  });

  it('property: whatever the input, the answer is null or ASCII that a browser resolves to our own origin', () => {
    // Pieces that parsers disagree on, strung together at random, after nothing, a slash, or our origin.
    const piece = fc.constantFrom(
      '/', '//', '\\', '.', '..', '%2f', '%2F', '%5c', '%2e', ':', '@', '?', '#', '\t', '\n', '\r', ' ', '\u0000', '\u00a0', '\u3002', '／', '＼',
      'evil.example', 'svc.example.com', 'http:', 'https:', 'javascript:', 'HTTPS:', ':443', ':8443', 'user@', 'a', 'é', '😀', '\ud800',
    );
    const prefix = fc.constantFrom('', '/', own, `${own}/`, 'https:', 'https://', 'http://svc.example.com');
    const candidate = fc.oneof(
      fc.tuple(prefix, fc.array(piece, { maxLength: 12 })).map(([head, parts]) => head + parts.join('')),
      fc.string({ maxLength: 40 }),
    );
    fc.assert(
      fc.property(candidate, (next) => {
        const location = safeNext(next, own);
        if (location === null) return;
        assert.match(location, /^[\x21-\x7e]+$/, `not a header value: ${JSON.stringify(location)}`);
        assert.equal(landsOn(location), own, `${JSON.stringify(next)} -> ${location}`);
        // Resolved against a page of another host it is still a path of that host or our own URL: never a third one.
        assert.ok(['https://other.example', own].includes(new URL(location, 'https://other.example/x/').origin), location);
      }),
      { numRuns: 5000 },
    );
  });
});
