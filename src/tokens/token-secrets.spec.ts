import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { newSecret, randomBase62, SECRET_PREFIX, secretHash } from './token-secrets';

describe('token secrets', () => {
  it('gives every kind its prefix and 43 base62 characters (256 bits), all distinct (ASVS 11.5.1)', () => {
    for (const kind of Object.keys(SECRET_PREFIX) as (keyof typeof SECRET_PREFIX)[]) {
      const seen = new Set<string>();
      for (let i = 0; i < 2000; i++) {
        const secret = newSecret(kind);
        assert.ok(secret.startsWith(SECRET_PREFIX[kind]));
        assert.match(secret.slice(SECRET_PREFIX[kind].length), /^[0-9A-Za-z]{43}$/);
        seen.add(secret);
      }
      assert.equal(seen.size, 2000, kind);
    }
  });

  it('draws base62 characters without bias', () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(62_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    assert.equal(counts.size, 62);
    // 1000 expected per character (σ ≈ 31); folding bytes 248-255 onto '0'-'7' would push those to ~1210.
    for (const [c, n] of counts) assert.ok(n > 840 && n < 1160, `${c}: ${n}`);
  });

  it('stores SHA-256 hex', () => {
    assert.equal(secretHash('svcp_x'), createHash('sha256').update('svcp_x').digest('hex'));
  });
});
