import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SettingsService } from '../settings/settings.service';
import { passwordProblems } from './password-policy';

function settings(values: Record<string, number>): SettingsService {
  return { get: (key: string) => values[key] ?? 0 } as unknown as SettingsService;
}

describe('password policy', () => {
  it('counts Unicode digits, capitals and specials', () => {
    const s = settings({ LOCAL_PASSWORD_MIN_LENGTH: 6, LOCAL_PASSWORD_MIN_DIGITS: 1, LOCAL_PASSWORD_MIN_UPPER: 1, LOCAL_PASSWORD_MIN_SPECIAL: 1 });
    assert.deepEqual(passwordProblems('Äbcdé1!', s), []);
    assert.deepEqual(passwordProblems('abcdef', s), [
      'Password must contain at least 1 digits.',
      'Password must contain at least 1 uppercase characters.',
      'Password must contain at least 1 special characters.',
    ]);
  });

  it('counts characters, not UTF-16 units, for the minimum length', () => {
    assert.deepEqual(passwordProblems('😀😀😀', settings({ LOCAL_PASSWORD_MIN_LENGTH: 3 })), []);
    assert.equal(passwordProblems('😀😀', settings({ LOCAL_PASSWORD_MIN_LENGTH: 3 })).length, 1);
  });

  it('caps the length at 128', () => {
    assert.deepEqual(passwordProblems('x'.repeat(129), settings({})), ['Password max length is 128']);
  });
});
