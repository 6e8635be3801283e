import { Injectable, Logger } from '@nestjs/common';
import { AuthMetrics } from '../common/auth-metrics';
import { Throttled } from '../common/errors';
import type { RequestTrace } from '../common/request-context';
import { LoginThrottle } from '../users/login-throttle.service';
import type { User } from '../users/user.entity';

/**
 * One throttle for every check of a user's second factor (SPEC §16): the second step of a login (a code,
 * a security key's assertion, the forced set-up's first code), removing the authenticator app, new
 * recovery codes, and the code that proves a factor change. A six-digit code falls to about a million
 * guesses, so the checks are counted per user from any address, all in one allowance: a route left out
 * would be the attacker's oracle (issue 40 found two, at 370 guesses a second). The counters are the
 * login throttle's (LOGIN_FAILURES_ALLOWED within LOGIN_FAILURE_WINDOW, shared by every node, exact
 * under concurrency) under a key no username can take: `mfa:<user id>` with no address.
 */
@Injectable()
export class CodeThrottle {
  private readonly logger = new Logger('auth');

  constructor(
    private readonly throttle: LoginThrottle,
    private readonly metrics: AuthMetrics,
  ) {}

  /**
   * Runs one check: a truthy answer is a success (the user's failures are forgiven), a falsy one a failure.
   * Past the allowance it throws Throttled before the check runs, so nothing is checked or spent, even a
   * right code. A check that throws is settled by the throttle's one rule (LoginThrottle.attempt): a fault
   * counts as a failure, never as a free try.
   */
  async check<T>(user: Pick<User, 'id' | 'username'>, stage: string, trace: RequestTrace, attempt: () => Promise<T>): Promise<T> {
    try {
      return await this.throttle.attempt({ pairs: [[`mfa:${user.id}`, '']], rightForgives: true }, attempt, (result) => (result ? 'right' : 'wrong'));
    } catch (err) {
      if (!(err instanceof Throttled)) throw err;
      this.metrics.throttled.inc({ method: 'second_factor' });
      this.logger.warn({ event: 'login_throttled', method: 'second_factor', stage, user_id: user.id, username: user.username, retry_after: err.retryAfter, ...trace });
      throw new Throttled(err.retryAfter, 'wrong codes');
    }
  }
}
