import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SettingsService } from '../settings/settings.service';
import { CommonPasswords } from './common-passwords';
import { containsUsername, passwordProblems } from './password-policy';
import { lengthPair } from './password-rules.service';

/** The settings' defaults (SPEC §9, §22) with `values` over them. */
function settings(values: Record<string, number | boolean>): SettingsService {
  const defaults: Record<string, number | boolean> = {
    LOCAL_PASSWORD_MIN_LENGTH: 0, LOCAL_PASSWORD_MIN_DIGITS: 0, LOCAL_PASSWORD_MIN_UPPER: 0, LOCAL_PASSWORD_MIN_SPECIAL: 0,
    LOCAL_PASSWORD_MAX_LENGTH: 128, LOCAL_PASSWORD_DENY_COMMON: true, LOCAL_PASSWORD_DENY_USERNAME: true,
  };
  return { get: (key: string) => ({ ...defaults, ...values })[key] } as unknown as SettingsService;
}

const common = new CommonPasswords();
const problems = (password: string, values: Record<string, number | boolean> = {}, username?: string) => passwordProblems(password, settings(values), common, username);

describe('password policy', () => {
  it('counts Unicode digits, capitals and specials', () => {
    const s = { LOCAL_PASSWORD_MIN_LENGTH: 6, LOCAL_PASSWORD_MIN_DIGITS: 1, LOCAL_PASSWORD_MIN_UPPER: 1, LOCAL_PASSWORD_MIN_SPECIAL: 1 };
    assert.deepEqual(problems('Äbcdé1!', s), []);
    assert.deepEqual(problems('abcdefq', s), [
      'Password must contain at least 1 digits.',
      'Password must contain at least 1 uppercase characters.',
      'Password must contain at least 1 special characters.',
    ]);
  });

  it('counts characters, not UTF-16 units, for both lengths', () => {
    assert.deepEqual(problems('😀😀😀', { LOCAL_PASSWORD_MIN_LENGTH: 3 }), []);
    assert.equal(problems('😀😀', { LOCAL_PASSWORD_MIN_LENGTH: 3 }).length, 1);
    assert.deepEqual(problems('😀'.repeat(128)), []);
    assert.deepEqual(problems('😀'.repeat(129)), ['Password max length is 128']);
  });

  it("caps the length with AWX's message at 128 and Django's at any other maximum", () => {
    assert.deepEqual(problems('x'.repeat(129)), ['Password max length is 128']);
    assert.deepEqual(problems('xy'.repeat(32) + 'z', { LOCAL_PASSWORD_MAX_LENGTH: 64 }), ['Ensure this field has no more than 64 characters.']);
    assert.deepEqual(problems('xy'.repeat(1000), { LOCAL_PASSWORD_MAX_LENGTH: 4096 }), []);
  });

  it('refuses deny-list entries after NFKC and lower-casing, and only whole entries', () => {
    for (const p of ['password', 'iloveyou', 'trustno1', 'qwertyuiop', '123456789', 'PassWord', 'ｐａｓｓｗｏｒｄ']) {
      assert.deepEqual(problems(p), ['This password is too common.'], p);
    }
    assert.deepEqual(problems('password-but-longer-7'), []);
    assert.deepEqual(problems('password', { LOCAL_PASSWORD_DENY_COMMON: false }), []);
    assert.ok(common.size > 25000, `${common.size} entries`);
  });

  it('refuses a password holding the username, ignoring case and width, for names of 3 characters or more', () => {
    assert.deepEqual(problems('my-Alice-pw', {}, 'alice'), ['The password must not contain the username.']);
    assert.ok(containsUsername('ＡＬＩＣＥ!1', 'alice'));
    assert.ok(containsUsername('Grüße-STRASSE', 'straße'));
    assert.ok(!containsUsername('joe-is-here', 'jo'));
    assert.ok(containsUsername('x-bob-x', 'bob'));
    assert.deepEqual(problems('my-Alice-pw', { LOCAL_PASSWORD_DENY_USERNAME: false }, 'alice'), []);
  });

  it('lists every broken rule in SPEC order: minimums, maximum, common, username', () => {
    const s = { LOCAL_PASSWORD_MIN_LENGTH: 70, LOCAL_PASSWORD_MIN_DIGITS: 1, LOCAL_PASSWORD_MIN_UPPER: 1, LOCAL_PASSWORD_MIN_SPECIAL: 1, LOCAL_PASSWORD_MAX_LENGTH: 64 };
    assert.deepEqual(problems('password', s, 'password'), [
      'Password must be at least 70 characters long.',
      'Password must contain at least 1 digits.',
      'Password must contain at least 1 uppercase characters.',
      'Password must contain at least 1 special characters.',
      'This password is too common.',
      'The password must not contain the username.',
    ]);
    // No deny-list entry is over 64 characters, so the maximum and the deny-list never break together.
    assert.deepEqual(problems('alice' + 'x'.repeat(60), s, 'alice'), [
      'Password must be at least 70 characters long.',
      'Password must contain at least 1 digits.',
      'Password must contain at least 1 uppercase characters.',
      'Password must contain at least 1 special characters.',
      'Ensure this field has no more than 64 characters.',
      'The password must not contain the username.',
    ]);
  });
});

describe('LOCAL_PASSWORD_MAX_LENGTH against LOCAL_PASSWORD_MIN_LENGTH', () => {
  const pair = (min: number, max: number, ...typed: string[]) => lengthPair({ LOCAL_PASSWORD_MIN_LENGTH: min, LOCAL_PASSWORD_MAX_LENGTH: max }, new Set(typed));

  it('names the key the write changed, the maximum when it changed both', () => {
    assert.equal(pair(64, 64, 'LOCAL_PASSWORD_MAX_LENGTH'), undefined);
    assert.deepEqual(pair(100, 64, 'LOCAL_PASSWORD_MAX_LENGTH'), { LOCAL_PASSWORD_MAX_LENGTH: ['Ensure this value is greater than or equal to LOCAL_PASSWORD_MIN_LENGTH (100).'] });
    assert.deepEqual(pair(100, 64, 'LOCAL_PASSWORD_MIN_LENGTH'), { LOCAL_PASSWORD_MIN_LENGTH: ['Ensure this value is less than or equal to LOCAL_PASSWORD_MAX_LENGTH (64).'] });
    assert.deepEqual(Object.keys(pair(100, 64, 'LOCAL_PASSWORD_MIN_LENGTH', 'LOCAL_PASSWORD_MAX_LENGTH')!), ['LOCAL_PASSWORD_MAX_LENGTH']);
  });
});
