import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeNext } from './safe-redirect';

describe('safeNext', () => {
  const own = 'https://svc.example.com';
  it('keeps local paths and reduces our own absolute URLs to paths', () => {
    assert.equal(safeNext('/api/v2/me/?a=1#x', own), '/api/v2/me/?a=1#x');
    assert.equal(safeNext('https://svc.example.com/accounts/profile/', own), '/accounts/profile/');
  });
  it('refuses other hosts, protocol-relative and backslash tricks, schemes and control characters', () => {
    for (const bad of ['//evil.com', '/\\evil.com', 'https://evil.com/', 'http://svc.example.com/', 'javascript:alert(1)', '/ok\r\nSet-Cookie: x', '', 42, undefined, 'x'.repeat(3000)]) {
      assert.equal(safeNext(bad, own), null, String(bad).slice(0, 40));
    }
  });
  it('percent-encodes characters a Location header cannot carry, and refuses what cannot be encoded', () => {
    assert.equal(safeNext('/accounts/profile/?q=привет', own), '/accounts/profile/?q=%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82');
    assert.equal(safeNext('/a b/€/😀', own), '/a%20b/%E2%82%AC/%F0%9F%98%80');
    assert.equal(safeNext('/x\ud800', own), null);
  });
});
