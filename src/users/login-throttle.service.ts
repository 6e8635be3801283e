import { HttpException, HttpStatus, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { isUniqueViolation } from '../database/errors';
import { SettingsService } from '../settings/settings.service';
import { LoginFailure } from './login-failure.entity';

/** 429 with Retry-After; the login form renders it as a page, the API as JSON. */
export class LoginThrottled extends HttpException {
  constructor(public readonly retryAfter: number) {
    super({ detail: `Too many failed login attempts. Try again in ${retryAfter} seconds.` }, HttpStatus.TOO_MANY_REQUESTS);
  }
}

export interface ThrottleState {
  row: LoginFailure | null;
}

/**
 * Per (username, client address) throttling of password attempts (SPEC §12): after
 * LOGIN_FAILURES_ALLOWED failures within LOGIN_FAILURE_WINDOW seconds of the first one, the pair is
 * refused until the window passes. Other addresses are unaffected, so nobody can lock a victim out.
 * Counts live in the database so every node sees them.
 */
@Injectable()
export class LoginThrottle {
  private readonly logger = new Logger('auth');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
  ) {}

  private get repo() {
    return this.dataSource.getRepository(LoginFailure);
  }

  /** Throws LoginThrottled when the pair is over its allowance; returns the state for `succeeded`. */
  async check(username: string, clientIp: string, method: string): Promise<ThrottleState> {
    const key = pairKey(username, clientIp);
    const row = await this.repo.findOneBy(key);
    if (!row) return { row: null };
    const now = this.clock.now().getTime();
    const windowEnd = row.windowStart.getTime() + this.settings.get('LOGIN_FAILURE_WINDOW') * 1000;
    if (row.failures >= this.settings.get('LOGIN_FAILURES_ALLOWED') && now < windowEnd) {
      const retryAfter = Math.max(1, Math.ceil((windowEnd - now) / 1000));
      this.logger.warn({ event: 'login_throttled', method, username, client_ip: clientIp, retry_after: retryAfter, outcome: 'throttled' });
      throw new LoginThrottled(retryAfter);
    }
    return { row };
  }

  /** Counts a failure: a new window starts when there is none or the last one has passed. */
  async failed(username: string, clientIp: string): Promise<void> {
    const key = pairKey(username, clientIp);
    const now = this.clock.now();
    const windowStartedAfter = new Date(now.getTime() - this.settings.get('LOGIN_FAILURE_WINDOW') * 1000);
    for (let attempt = 0; attempt < 3; attempt++) {
      const counted = await this.repo
        .createQueryBuilder()
        .update(LoginFailure)
        .set({ failures: () => 'failures + 1' })
        .where('username = :username AND client_ip = :clientIp AND window_start > :after', { ...key, after: windowStartedAfter })
        .execute();
      if (counted.affected) return;
      const restarted = await this.repo.update(key, { failures: 1, windowStart: now });
      if (restarted.affected) return;
      try {
        await this.repo.insert({ ...key, failures: 1, windowStart: now });
        return;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err; // another node inserted it first: count again
      }
    }
  }

  /** A success resets the pair; costs a write only when there were failures. */
  async succeeded(state: ThrottleState): Promise<void> {
    if (state.row) await this.repo.delete({ id: state.row.id });
  }
}

function pairKey(username: string, clientIp: string) {
  return { username: username.slice(0, 150), clientIp: clientIp.slice(0, 45) };
}
