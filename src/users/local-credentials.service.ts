import { Injectable, Logger } from '@nestjs/common';
import { AuthMetrics } from '../common/auth-metrics';
import { AuthError, Throttled } from '../common/errors';
import { SampledLog } from '../common/sampled-log';
import { SettingsService } from '../settings/settings.service';
import { PreparedStatements } from '../database/prepared-statements';
import { LoginFailure } from './login-failure.entity';
import { LoginThrottle, pairKey, ThrottleRow } from './login-throttle.service';
import { User } from './user.entity';
import { UsersService } from './users.service';

export type PasswordPath = 'session' | 'basic' | 'password_grant' | 'password_change';

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
    private readonly prepared: PreparedStatements,
  ) {}

  private lookupSql?: string;

  async check(attempt: CredentialCheck, cache?: RepeatCache): Promise<User> {
    const { username, password, path, clientIp } = attempt;
    if (this.settings.get('DISABLE_LOCAL_AUTH')) {
      this.fail(attempt, 'local_auth_disabled');
      throw new AuthError('local_auth_disabled');
    }
    const { user: candidate, throttle } = await this.lookup(username, clientIp);
    const key = cache?.key(username, password);
    try {
      // A repeat of credentials that verified against this very hash: no new guess, so nothing to count.
      if (cache && key && candidate?.isActive && cache.matches(key, candidate.password)) {
        await this.throttle.admitKnownGood(throttle, path, username, clientIp);
        return this.succeeded(attempt, candidate);
      }
      const reservation = await this.throttle.reserve(username, clientIp, path);
      let user: User | null = null;
      try {
        user = await this.users.verifyPasswordOf(candidate, password);
      } finally {
        // An attempt that could not be verified (a database error) counts as a failure, never as nothing.
        await (user ? this.throttle.succeeded(reservation) : this.throttle.failed(reservation));
      }
      if (!user) {
        this.fail(attempt, 'invalid_credentials');
        throw new AuthError('invalid_credentials');
      }
      if (cache && key) cache.remember(key, user.password);
      return this.succeeded(attempt, user);
    } catch (err) {
      if (err instanceof Throttled) this.metrics.throttled.inc({ method: path });
      throw err;
    }
  }

  /**
   * A user proving their current password to change it (SPEC §8): counted by the login throttle like
   * every password attempt (a 429 when the pair is throttled); false when it is wrong.
   */
  async confirmCurrent(user: User, password: string, clientIp: string): Promise<boolean> {
    const reservation = await this.throttle.reserve(user.username, clientIp, 'password_change');
    let ok = false;
    try {
      ok = !!(await this.users.verifyPasswordOf(user, password));
    } finally {
      await (ok ? this.throttle.succeeded(reservation) : this.throttle.failed(reservation));
    }
    if (!ok) this.fail({ username: user.username, password: '', clientIp, path: 'password_change' }, 'invalid_credentials');
    return ok;
  }

  /** The user a name belongs to and the name's throttle counter from this address, in one statement. */
  private async lookup(username: string, clientIp: string): Promise<{ user: User | null; throttle: ThrottleRow | null }> {
    if (!username || username.length > 150) return { user: null, throttle: null };
    const p = this.prepared;
    this.lookupSql ??=
      `SELECT ${p.columns(User, 'u')}, f.id AS f_id, f.failures AS f_failures, f.pending AS f_pending, f.window_start AS f_window_start ` +
      `FROM ${p.table(User)} u LEFT JOIN ${p.table(LoginFailure)} f ON f.username = ? AND f.client_ip = ? WHERE u.username = ?`;
    const pair = pairKey(username, clientIp);
    const [row] = await p.rows(this.lookupSql, [pair.username, pair.clientIp, username]);
    if (!row) return { user: null, throttle: null };
    const user = p.hydrate(User, row, 'u');
    // Usernames are matched exactly as typed, on MySQL's case-insensitive collation too.
    if (user.username !== username) return { user: null, throttle: null };
    return { user, throttle: row.f_id == null ? null : this.throttle.throttleRow(row, 'f_') };
  }

  private succeeded(attempt: CredentialCheck, user: User): User {
    const { path, clientIp, username } = attempt;
    // Browser logins are counted by SessionLogin, which every login path (form, SSO) goes through.
    if (path !== 'session') this.metrics.logins.inc({ method: path, outcome: 'success' });
    if (path === 'basic') {
      this.basicUse.log(`${user.id}|${clientIp}`, { event: 'api_auth', method: 'basic', outcome: 'success', user_id: user.id, username, client_ip: clientIp });
    } else if (path === 'password_grant') {
      this.logger.log({ event: 'login', method: path, outcome: 'success', user_id: user.id, username, client_ip: clientIp });
    }
    return user;
  }

  private fail(attempt: CredentialCheck, outcome: string): void {
    this.metrics.logins.inc({ method: attempt.path, outcome });
    this.logger.warn({ event: 'login_failed', method: attempt.path, username: attempt.username, client_ip: attempt.clientIp, outcome });
  }
}
