import { Injectable } from '@nestjs/common';
import { FieldErrors } from '../common/errors';
import type { CategoryCheck } from '../settings/settings.service';
import { SettingsService } from '../settings/settings.service';
import { CommonPasswords } from './common-passwords';
import { PasswordHasher, UNUSABLE_PASSWORD_PREFIX } from './password-hasher.service';
import { PasswordHistoryRepository } from './password-history.repository';
import { passwordProblems, reuseMessage } from './password-policy';
import type { User } from './user.entity';

/**
 * LOCAL_PASSWORD_MAX_LENGTH may not be below LOCAL_PASSWORD_MIN_LENGTH (SPEC §22), whichever of the two a write
 * changes: the 400 names the key the write gave (the maximum when it gave both).
 */
export const lengthPair: CategoryCheck = (next, typed) => {
  const min = next.LOCAL_PASSWORD_MIN_LENGTH;
  const max = next.LOCAL_PASSWORD_MAX_LENGTH;
  if (typeof min !== 'number' || typeof max !== 'number' || max >= min) return undefined;
  const errors: Record<string, string[]> = {};
  if (typed.has('LOCAL_PASSWORD_MIN_LENGTH') && !typed.has('LOCAL_PASSWORD_MAX_LENGTH')) {
    errors.LOCAL_PASSWORD_MIN_LENGTH = [`Ensure this value is less than or equal to LOCAL_PASSWORD_MAX_LENGTH (${max}).`];
  } else errors.LOCAL_PASSWORD_MAX_LENGTH = [`Ensure this value is greater than or equal to LOCAL_PASSWORD_MIN_LENGTH (${min}).`];
  return errors;
};

/** The password policy of SPEC §22, asked wherever a local password is set (the API, createsuperuser, changepassword). */
@Injectable()
export class PasswordRules {
  constructor(
    private readonly settings: SettingsService,
    private readonly common: CommonPasswords,
    private readonly history: PasswordHistoryRepository,
    private readonly hasher: PasswordHasher,
  ) {
    // Registered here, not in SettingsService: settings imports no feature, and the pair is this policy's rule.
    settings.addCheck('authentication', lengthPair);
  }

  /**
   * Refuses `password` for the account named `username` (`user`: the account whose password it replaces) with
   * `{"password": [every broken rule's message]}`. History is asked last: up to 24 slow verifications.
   */
  async refuse(password: string, username: string, user?: User): Promise<void> {
    const problems = passwordProblems(password, this.settings, this.common, username);
    const history = this.settings.get('LOCAL_PASSWORD_HISTORY');
    if (user && history > 0 && (await this.reused(password, user, history))) problems.push(reuseMessage(history));
    if (problems.length) throw new FieldErrors({ password: problems });
  }

  /** Whether `password` is one of the user's last `count` (the current one included). */
  private async reused(password: string, user: User, count: number): Promise<boolean> {
    // The current hash first: a user imported with it (an AWX database) has no history row of it yet.
    const recent = await this.history.recent(user.id, count);
    const hashes = [...new Set([user.password, ...recent])].filter((hash) => !hash.startsWith(UNUSABLE_PASSWORD_PREFIX)).slice(0, count);
    for (const hash of hashes) {
      if ((await this.hasher.verify(password, hash)).ok) return true;
    }
    return false;
  }
}
