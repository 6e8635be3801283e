import { Injectable } from '@nestjs/common';
import { FieldErrors, PermissionDenied } from '../common/errors';
import { SettingsService } from '../settings/settings.service';
import { LoginLocksRepository } from './login-locks.repository';
import type { User } from './user.entity';

export const BREAK_GLASS_CANNOT_EXPIRE = 'The break-glass superuser cannot expire.';

/**
 * SPEC §22's break-glass superuser, the one account an administrator can always get in with: never locked beyond
 * the failure window, never deactivated for inactivity, never expired. One rule (LoginLocksRepository.breakGlass)
 * for the throttle's cap, the user resource's `break_glass` and the refusals here.
 */
@Injectable()
export class BreakGlass {
  constructor(
    private readonly settings: SettingsService,
    private readonly locks: LoginLocksRepository,
  ) {
    // Registered here, not in SettingsService: settings imports no feature, and the rule is this module's.
    settings.addCheck('authentication', async (next, typed) => {
      const name = next.BREAK_GLASS_USERNAME;
      if (!typed.has('BREAK_GLASS_USERNAME') || typeof name !== 'string' || !name || (await this.locks.breakGlass(name))) return undefined;
      return { BREAK_GLASS_USERNAME: [`${name} is not an active local superuser without account_expires.`] };
    });
  }

  /** The break-glass superuser's id now, or null when there is none. */
  async id(): Promise<number | null> {
    return (await this.locks.breakGlass(this.settings.get<string>('BREAK_GLASS_USERNAME')))?.id ?? null;
  }

  async is(user: Pick<User, 'id'>): Promise<boolean> {
    return (await this.id()) === user.id;
  }

  /**
   * A write of `account_expires` (SPEC §22): only a superuser may send a different value (403, nothing changes), and
   * the break-glass superuser may not be given one (400 naming it).
   */
  async refuseExpiryWrite(viewer: Pick<User, 'isSuperuser'>, target: User, value: Date | null | undefined): Promise<void> {
    if (value === undefined) return;
    if (!viewer.isSuperuser && (value?.getTime() ?? null) !== (target.accountExpires?.getTime() ?? null)) throw new PermissionDenied();
    if (value && (await this.is(target))) throw FieldErrors.of('account_expires', BREAK_GLASS_CANNOT_EXPIRE);
  }
}
