import { Injectable, Logger } from '@nestjs/common';
import { AuthMetrics } from '../common/auth-metrics';
import { AuthError } from '../common/errors';
import { SampledLog } from '../common/sampled-log';
import { SettingsService } from '../settings/settings.service';
import { LoginThrottle, LoginThrottled } from './login-throttle.service';
import { User } from './user.entity';
import { UsersService } from './users.service';

export type PasswordPath = 'session' | 'basic' | 'password_grant';

export interface CredentialCheck {
  username: string;
  password: string;
  clientIp: string;
  path: PasswordPath;
}

/** Optional fast path for repeated credentials (basic auth); see BasicCredentialCache. */
export interface RepeatCache {
  key(username: string, password: string): string;
  matches(key: string, currentHash: string): boolean;
  remember(key: string, hash: string): void;
}

/**
 * The one place a local username/password is checked, shared by the login form, basic auth and the
 * OAuth password grant, so every path gets the same rules: the local-auth switch, the login throttle,
 * one answer for unknown user and wrong password, metrics, and one structured event per outcome
 * (basic successes sampled, so a busy API does not drown the log).
 */
@Injectable()
export class LocalCredentialsService {
  private readonly logger = new Logger('auth');
  private readonly basicUse = new SampledLog(this.logger);

  constructor(
    private readonly users: UsersService,
    private readonly settings: SettingsService,
    private readonly throttle: LoginThrottle,
    private readonly metrics: AuthMetrics,
  ) {}

  async check(attempt: CredentialCheck, cache?: RepeatCache): Promise<User> {
    const { username, path, clientIp } = attempt;
    if (this.settings.get('DISABLE_LOCAL_AUTH')) {
      this.fail(attempt, 'local_auth_disabled');
      throw new AuthError('local_auth_disabled');
    }
    let state;
    try {
      state = await this.throttle.check(username, clientIp, path);
    } catch (err) {
      if (err instanceof LoginThrottled) this.metrics.throttled.inc({ method: path });
      throw err;
    }
    const user = await this.verify(attempt, cache);
    if (!user) {
      await this.throttle.failed(username, clientIp);
      this.fail(attempt, 'invalid_credentials');
      throw new AuthError('invalid_credentials');
    }
    await this.throttle.succeeded(state);
    // Browser logins are counted by SessionLogin, which every login path (form, SSO) goes through.
    if (path !== 'session') this.metrics.logins.inc({ method: path, outcome: 'success' });
    if (path === 'basic') {
      this.basicUse.log(`${user.id}|${clientIp}`, { event: 'api_auth', method: 'basic', outcome: 'success', user_id: user.id, username, client_ip: clientIp });
    } else if (path === 'password_grant') {
      this.logger.log({ event: 'login', method: path, outcome: 'success', user_id: user.id, username, client_ip: clientIp });
    }
    return user;
  }

  private async verify(attempt: CredentialCheck, cache?: RepeatCache): Promise<User | null> {
    const { username, password } = attempt;
    if (!cache) return this.users.verifyPassword(username, password);
    const key = cache.key(username, password);
    const candidate = await this.users.findByUsername(username);
    if (candidate && candidate.isActive && cache.matches(key, candidate.password)) return candidate;
    // A miss verifies the row already read instead of looking the user up a second time.
    const user = await this.users.verifyPasswordOf(candidate, password);
    if (user) cache.remember(key, user.password);
    return user;
  }

  private fail(attempt: CredentialCheck, outcome: string): void {
    this.metrics.logins.inc({ method: attempt.path, outcome });
    this.logger.warn({ event: 'login_failed', method: attempt.path, username: attempt.username, client_ip: attempt.clientIp, outcome });
  }
}
