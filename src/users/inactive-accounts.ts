import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { RequestTrace } from '../common/request-context';
import { SettingsService } from '../settings/settings.service';
import { SERVICE_ACCOUNT } from './account-policy';
import { BreakGlass } from './break-glass';
import { InactiveAccountsRepository } from './inactive-accounts.repository';
import type { User } from './user.entity';
import { UsersService } from './users.service';

const DAY_MS = 86_400_000;

type Period = Pick<User, 'isActive' | 'externalAccount' | 'created' | 'lastLoginEventAt' | 'reactivatedAt'>;

/** When the user's inactivity period began (SPEC §22): the latest of creation, last login and last re-activation. */
export function periodStart(user: Pick<Period, 'created' | 'lastLoginEventAt' | 'reactivatedAt'>): number {
  return Math.max(user.created.getTime(), user.lastLoginEventAt?.getTime() ?? 0, user.reactivatedAt?.getTime() ?? 0);
}

/**
 * SPEC §22 (AC-2(3)) ACCOUNT_INACTIVE_DAYS: a user whose period is older than that many days is deactivated exactly
 * as a superuser's `is_active: false` does (UsersService.update: sessions end with `user_disabled`, tokens are
 * revoked), at a proven login or by the sweep. Service accounts and the break-glass superuser are exempt.
 */
@Injectable()
export class InactiveAccounts {
  private readonly logger = new Logger('users');

  constructor(
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly users: UsersService,
    private readonly repository: InactiveAccountsRepository,
    private readonly breakGlass: BreakGlass,
  ) {}

  /** A date comparison on the row already read, no query: whether the rule would deactivate the user now. */
  isIdle(user: Period, now = this.clock.now()): boolean {
    const days = this.settings.get<number>('ACCOUNT_INACTIVE_DAYS');
    if (!days || !user.isActive || user.externalAccount === SERVICE_ACCOUNT) return false;
    return now.getTime() - periodStart(user) > days * DAY_MS;
  }

  /** At a proven login: deactivates an idle user (not the break-glass one); true when it did. */
  async enforce(user: User, trace: RequestTrace): Promise<boolean> {
    if (!this.isIdle(user) || (await this.breakGlass.is(user))) return false;
    await this.deactivate(user, trace);
    return true;
  }

  /** The sweep: every idle user (or, `dryRun`, those it would deactivate), the break-glass superuser left out. */
  async sweep(trace: RequestTrace, dryRun = false): Promise<User[]> {
    const days = this.settings.get<number>('ACCOUNT_INACTIVE_DAYS');
    if (!days) return [];
    const now = this.clock.now();
    const exempt = await this.breakGlass.id();
    const idle = (await this.repository.idleSince(new Date(now.getTime() - days * DAY_MS))).filter((u) => u.id !== exempt && this.isIdle(u, now));
    if (!dryRun) for (const user of idle) await this.deactivate(user, trace);
    return idle;
  }

  /** The password grant's login: the period restarts as at a browser login. */
  recordLogin(user: User): Promise<void> {
    user.lastLoginEventAt = this.clock.now();
    return this.repository.recordLogin(user.id, user.lastLoginEventAt);
  }

  private async deactivate(user: User, trace: RequestTrace): Promise<void> {
    await this.users.update(user, { is_active: false }, trace);
    user.isActive = false;
    const days = this.settings.get<number>('ACCOUNT_INACTIVE_DAYS');
    this.logger.log({ event: 'user_deactivated', reason: 'inactive', inactive_days: days, user_id: user.id, username: user.username, ...trace });
  }
}
