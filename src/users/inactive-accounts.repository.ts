import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SERVICE_ACCOUNT } from './account-policy';
import { User } from './user.entity';
import { shiftPreviousLogin } from './previous-login';

/** How many users one pass of the inactivity sweep reads at most (the next pass takes the rest). */
export const INACTIVITY_SWEEP_BATCH = 1000;

/** The statements of SPEC §22's inactivity rule: the login time it keeps on the user, and the sweep's candidates. */
@Injectable()
export class InactiveAccountsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A login that is not a browser session's (the password grant): the time the period counts from. */
  async recordLogin(id: number, at: Date): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await shiftPreviousLogin(manager, id);
      await manager.getRepository(User).update({ id }, { lastLoginEventAt: at });
    });
  }

  /**
   * Active users (service accounts aside) whose period began before `cutoff`: created, last logged in and last
   * re-activated before it. Three comparisons rather than GREATEST(), which SQLite spells MAX() and NULL defeats.
   */
  async idleSince(cutoff: Date): Promise<User[]> {
    return this.dataSource
      .getRepository(User)
      .createQueryBuilder('u')
      .where('u.is_active = 1')
      .andWhere('(u.external_account IS NULL OR u.external_account <> :service)', { service: SERVICE_ACCOUNT })
      .andWhere('u.created < :cutoff', { cutoff })
      .andWhere('(u.last_login_event_at IS NULL OR u.last_login_event_at < :cutoff)', { cutoff })
      .andWhere('(u.reactivated_at IS NULL OR u.reactivated_at < :cutoff)', { cutoff })
      .orderBy('u.id', 'ASC')
      .take(INACTIVITY_SWEEP_BATCH)
      .getMany();
  }
}
