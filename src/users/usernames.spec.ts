import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cleanUsername, normalizeUsername } from './usernames';

describe('usernames (SPEC §14, issue 40)', () => {
  it('reads look-alike spellings as the name a directory binds them to', () => {
    for (const name of ['ｌａｒａ', '𝐥𝐚𝐫𝐚', 'ℓara', 'lara']) assert.equal(normalizeUsername(name), 'lara', name);
    assert.equal(normalizeUsername('ａｄｍｉｎ'), 'admin');
    // Case is kept: the lookups compare without case themselves.
    assert.equal(normalizeUsername('ＬＡＲＡ'), 'LARA');
  });

  it('keeps a name that is already normal, accents included (composed, as NFKC writes them)', () => {
    for (const name of ['alice', 'o+brien', 'jürgen', 'svc-robot_2@x.y']) assert.equal(normalizeUsername(name), name);
    assert.equal(normalizeUsername('ju\u0308rgen'), 'jürgen');
  });

  it('takes printable ASCII as it is, which NFKC leaves unchanged (the fast path gives the normalizer answer)', () => {
    for (let code = 0x20; code <= 0x7e; code++) {
      const char = String.fromCharCode(code);
      assert.equal(char.normalize('NFKC'), char);
      assert.equal(normalizeUsername(`a${char}b`), `a${char}b`);
    }
    // Anything else still goes through NFKC, control characters and all.
    assert.equal(normalizeUsername('\u00a0x'), ' x');
  });

  it('cleanUsername normalises the same way before dropping what a name may not hold', () => {
    assert.equal(cleanUsername('ｌａｒａ Croft!'), 'laraCroft');
    assert.equal(cleanUsername(undefined), '');
  });
});
