import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatUserCode, newUserCode, normaliseUserCode, USER_CODE_ALPHABET } from './user-codes';

describe('device user codes (RFC 8628 §6.1, SPEC §15)', () => {
  it('draws eight letters of the alphabet, every letter about equally often', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 100_000; i++) {
      const code = newUserCode();
      assert.match(code, /^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      for (const c of code) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    assert.equal(counts.size, 20);
    // 40 000 expected per letter (σ ≈ 195): ±6σ fails a fair draw about once in 10^7 runs (±4.6σ at 5 000 codes
    // failed once in CI). Folding bytes 240-255 onto the first 16 letters would leave the last four at 12/256 of
    // 800 000 = 37 500, 13σ below.
    for (const [c, n] of counts) assert.ok(Math.abs(n - 40_000) < 1_170, `${c}: ${n}`);
  });

  it('shows XXXX-XXXX and reads a typed code without case, dashes or spaces', () => {
    assert.equal(formatUserCode('BCDFGHJK'), 'BCDF-GHJK');
    for (const typed of ['BCDF-GHJK', 'bcdf-ghjk', 'bcdfghjk', ' Bcdf ghjK ', 'BC-DF-GH-JK']) assert.equal(normaliseUserCode(typed), 'BCDFGHJK', typed);
  });

  it('refuses what cannot be a code', () => {
    for (const typed of ['', 'BCDF-GHJ', 'BCDF-GHJKL', 'ABCD-EFGH', 'BCDF-GHJ1', 'ВCDF-GHJK', 'x'.repeat(100), undefined, 42, ['BCDFGHJK']]) {
      assert.equal(normaliseUserCode(typed), null, String(typed));
    }
    assert.equal(USER_CODE_ALPHABET.length, 20);
  });
});
