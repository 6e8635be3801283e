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

  it('cleanUsername normalises the same way before dropping what a name may not hold', () => {
    assert.equal(cleanUsername('ｌａｒａ Croft!'), 'laraCroft');
    assert.equal(cleanUsername(undefined), '');
  });
});
