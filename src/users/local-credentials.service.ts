import { Injectable, Logger } from '@nestjs/common';
import { AuthMetrics } from '../common/auth-metrics';
import { andThen, Awaitable, isPromiseLike } from '../common/awaitable';
import { AuthError, ServiceUnavailable, Throttled } from '../common/errors';
import { RequestTrace } from '../common/request-context';
import { SampledLog } from '../common/sampled-log';
import { AccountPolicy } from './account-policy';
import { InactiveAccounts } from './inactive-accounts';
import { backendRefusalReason, LoginEvents } from './login-events';
import { LoginThrottle, pairKey, ThrottledCheck, ThrottleRow } from './login-throttle.service';
import { askPasswordMethod, BackendOutcome, LoginMethods, PasswordBackend, PasswordBackendUnavailable } from './login-methods';
import { User } from './user.entity';
import { normalizeUsername } from './usernames';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

/** Whom a password can prove: a local account (external users have no usable password). */
const PASSWORD_HOLDER = { isActive: true, externalAccount: null };

export type PasswordRefusal = 'local_auth_disabled' | 'invalid_credentials' | 'account_expired';

/**
 * The one validity rule for a password (HTTP basic, the login form, the password grant, a password
 * change), through the account policy. A password proves a local account, so none is accepted while
 * local authentication is off: asked first without an attempt, before any lookup, so that the answer
 * does not tell whether the name exists (every caller asks so first). With the attempt: the password must be the user's and the user
 * must pass the policy (an inactive user's right password is refused as a wrong one, as AWX did). An expired
 * account (SPEC §22) is told so, but only once its password proved it, and the attempt is no failure for the throttle.
 */
export function passwordRefusal(policy: AccountPolicy, attempt?: { user: User | null; verified: boolean }): PasswordRefusal | null {
  if (!attempt) return policy.refusal(PASSWORD_HOLDER, 'password') ? 'local_auth_disabled' : null;
  if (!attempt.user || !attempt.verified) return 'invalid_credentials';
  const account = policy.refusal(attempt.user, 'password');
  return account === 'local_auth_disabled' || account === 'account_expired' ? account : account ? 'invalid_credentials' : null;
}

/** The throttle's verdict on a password refusal: an expired account's right password is no guess (SPEC §22). */
function verdictOf(refusal: PasswordRefusal | null): 'right' | 'wrong' {
  return refusal && refusal !== 'account_expired' ? 'wrong' : 'right';
}

export type PasswordPath = 'session' | 'basic' | 'password_grant' | 'password_change';

export interface CredentialCheck {
  username: string;
  password: string;
  clientIp: string;
  path: PasswordPath;
  /** The request the attempt came in (its log lines carry the request id). */
  trace: RequestTrace;
  /** The client's User-Agent, for the authentication events (SPEC §23). */
  userAgent?: string;
  /** Told which source proved the password, when a password method did (`ldap:default`, `radius`). */
  provenBy?: (source: string) => void;
}

/** What the throttle, the metrics and the log lines know of an attempt (never its password). */
type Attempt = Omit<CredentialCheck, 'password'>;

/** Optional fast path for repeated credentials (basic auth); see BasicCredentialCache. */
export interface RepeatCache {
  key(username: string, password: string): string;
  /** `maxAgeMs`: how old an entry may be now (a password backend's re-check period in force); any age when absent. */
  matches(key: string, currentHash: string, maxAgeMs?: number): boolean;
  /** `ttlMs`: how long the entry may be trusted (a password backend's re-check period); the cache's own when absent. */
  remember(key: string, hash: string, ttlMs?: number): void;
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
    private readonly repository: UsersRepository,
    private readonly policy: AccountPolicy,
    private readonly throttle: LoginThrottle,
    private readonly metrics: AuthMetrics,
    private readonly backends: LoginMethods,
    private readonly inactivity: InactiveAccounts,
    private readonly events: LoginEvents,
  ) {}

  /**
   * The user these credentials prove, or a refusal (thrown or rejected). A repeat of credentials that
   * verified against the user's current hash (`cache`) costs the one lookup and nothing more: basic auth's
   * repeat requests are a hot path.
   */
  check(typed: CredentialCheck, cache?: RepeatCache): Awaitable<User> {
    // Before anything else (SPEC §14): the lookup, the throttle and every backend see one spelling of a name.
    const normalized = normalizeUsername(typed.username);
    const attempt = normalized === typed.username ? typed : { ...typed, username: normalized };
    const { username, password, clientIp } = attempt;
    // With no other backend, nothing but a local password could prove anyone: refused before any lookup.
    // A configured directory keeps its users logging in while local authentication is off (SPEC §14).
    const refused = passwordRefusal(this.policy);
    if (refused && !this.backends.configured().length) {
      this.fail(attempt, refused);
      throw new AuthError(refused);
    }
    return andThen(this.lookup(username, clientIp), ({ user: candidate, throttle }) => {
      const key = cache?.key(username, password);
      const owner = candidate && this.backends.forAccount(candidate.externalAccount);
      // A repeat of credentials that verified against this very hash: no new guess, so nothing to count.
      // A directory user's repeat is trusted only for the directory's re-check period (SPEC §14).
      const maxAge = owner ? owner.repeatTtlMs() : undefined;
      if (cache && key && candidate && cache.matches(key, candidate.password, maxAge) && !passwordRefusal(this.policy, { user: candidate, verified: true })) {
        return andThen(this.counted(attempt, () => this.throttle.admitKnownGood(throttle), candidate), () =>
          this.admitted(attempt, candidate),
        );
      }
      // A local (or SSO, or service) account is proven by its hash alone, never by a directory (no takeover).
      // The backends' settings are read only for a name no local account holds: not on basic's repeat path.
      if (candidate && !owner) return this.counted(attempt, () => this.verifyNew(attempt, candidate, cache, key), candidate);
      const backends = owner ? [owner] : this.backends.configured();
      if (!backends.length) return this.counted(attempt, () => this.verifyNew(attempt, candidate, cache, key), candidate);
      return this.counted(attempt, () => this.verifyExternal(attempt, candidate, backends, cache, key), candidate);
    });
  }

  /** A password not seen before: counted by the throttle before it is verified (SPEC §12). */
  private async verifyNew(attempt: CredentialCheck, candidate: User | null, cache?: RepeatCache, key?: string): Promise<User> {
    const check = this.pairOf(attempt, candidate);
    const refused = await this.throttle.attempt(
      check,
      async () => passwordRefusal(this.policy, { user: candidate, verified: !!(await this.users.verifyPasswordOf(candidate, attempt.password)) }),
      verdictOf,
    );
    if (refused || !candidate) {
      this.fail(attempt, refused ?? 'invalid_credentials', undefined, candidate);
      check.reportLock();
      throw new AuthError(refused ?? 'invalid_credentials');
    }
    if (cache && key) cache.remember(key, candidate.password);
    return this.admitted(attempt, candidate);
  }

  /**
   * A name that is no local account's, or an account of a password method (a directory's user): asked of
   * the methods, counted by the throttle like any password. A name that belongs to a local, SSO or service
   * account in any case is never sent to a method (SPEC §14: no takeover): it is refused as a wrong
   * password, after the same hashing time. A method that cannot be asked ends the attempt uncounted: 503.
   */
  private async verifyExternal(attempt: CredentialCheck, candidate: User | null, backends: PasswordBackend[], cache?: RepeatCache, key?: string): Promise<User> {
    let outcome: BackendOutcome;
    let refused: PasswordRefusal | null;
    const check = this.pairOf(attempt, candidate);
    try {
      ({ outcome, refused } = await this.throttle.attempt(
        check,
        async () => {
          const asked = await this.askBackends(attempt, candidate, backends);
          return { outcome: asked, refused: 'user' in asked ? passwordRefusal(this.policy, { user: asked.user, verified: true }) : ('invalid_credentials' as const) };
        },
        (result) => verdictOf(result.refused),
      ));
    } catch (err) {
      throw err instanceof PasswordBackendUnavailable ? this.unavailable(attempt, err) : err;
    }
    if (refused || !('user' in outcome)) {
      const reason = 'refused' in outcome ? outcome.refused : refused;
      this.fail(attempt, refused ?? 'invalid_credentials', { source: outcome.source, reason }, 'user' in outcome ? outcome.user : candidate);
      check.reportLock();
      throw new AuthError(refused ?? 'invalid_credentials');
    }
    const ttl = this.backends.forAccount(outcome.user.externalAccount)?.repeatTtlMs() ?? 0;
    if (cache && key && ttl > 0) cache.remember(key, outcome.user.password, ttl);
    if (outcome.sourceName) attempt.provenBy?.(outcome.sourceName);
    return this.admitted(attempt, outcome.user, outcome.source);
  }

  /**
   * A proven user (SPEC §22): one idle for ACCOUNT_INACTIVE_DAYS is deactivated now and refused as disabled, the
   * attempt already judged right by the throttle; a date comparison on the row read, unless it is idle.
   */
  private admitted(attempt: CredentialCheck, user: User, source?: string): Awaitable<User> {
    if (!this.inactivity.isIdle(user)) return this.succeeded(attempt, user, source);
    return this.inactivity.enforce(user, attempt.trace).then((deactivated) => {
      if (!deactivated) return this.succeeded(attempt, user, source);
      this.fail(attempt, 'user_disabled', undefined, user);
      throw new AuthError('user_disabled');
    });
  }

  /** The throttle's counter of an attempt: the typed name from the client's address (SPEC §12). */
  /** `reportLock`: the lock this attempt's failure took, recorded after its `login_failed` (SPEC §23). */
  private pairOf(attempt: Attempt, user: User | null): ThrottledCheck & { reportLock(): void } {
    let taken: Parameters<NonNullable<ThrottledCheck['onLocked']>>[0] | undefined;
    return {
      pairs: [[attempt.username, attempt.clientIp]], rightForgives: true, locks: true, onLocked: (lock) => (taken = lock),
      reportLock: () => taken && this.events.locked(attempt, user, taken),
    };
  }

  private async askBackends(attempt: CredentialCheck, candidate: User | null, backends: PasswordBackend[]): Promise<BackendOutcome> {
    let existing = candidate;
    if (!existing) {
      // lookup() matched exactly; a name taken in another case belongs to whoever holds it.
      const holder = await this.users.findByUsernameIgnoringCase(attempt.username);
      if (holder && !this.backends.forAccount(holder.externalAccount)) {
        await this.users.verifyPasswordOf(null, attempt.password);
        return { refused: 'local_account_name', source: null };
      }
      existing = holder;
    }
    let outcome: BackendOutcome = { refused: 'unknown_user', source: null };
    for (const backend of existing ? backends.filter((b) => b.account === existing!.externalAccount) : backends) {
      outcome = await askPasswordMethod(backend, attempt, existing);
      if ('user' in outcome || outcome.source !== null) return outcome;
    }
    return outcome;
  }

  private unavailable(attempt: Attempt, err: PasswordBackendUnavailable): ServiceUnavailable {
    this.metrics.logins.inc({ method: attempt.path, outcome: 'directory_unavailable' });
    const { path: method, username, clientIp, trace } = attempt;
    this.logger.warn({ event: 'login_failed', method, username, client_ip: clientIp, outcome: 'directory_unavailable', directory: err.source, reason: err.reason, ...trace });
    this.events.failed(attempt, 'unavailable', { source: err.source });
    return new ServiceUnavailable(err.detail);
  }

  /** Runs a throttled step; a refusal by the throttle is logged and counted in the metrics, now or when it rejects. */
  private counted<T>(attempt: Attempt, step: () => Awaitable<T>, user?: User | null): Awaitable<T> {
    const onThrottled = (err: unknown): never => {
      if (err instanceof Throttled) {
        this.events.failed(attempt, 'throttled', { user, retryAfter: err.retryAfter });
        this.metrics.throttled.inc({ method: attempt.path });
        const { path: method, username, clientIp, trace } = attempt;
        this.logger.warn({ event: 'login_throttled', method, username, client_ip: clientIp, retry_after: err.retryAfter, outcome: 'throttled', ...trace });
      }
      throw err;
    };
    try {
      const result = step();
      return isPromiseLike(result) ? Promise.resolve(result).catch(onThrottled) : result;
    } catch (err) {
      return onThrottled(err);
    }
  }

  /**
   * A user proving their current password to change it (SPEC §8): counted by the login throttle like
   * every password attempt (a 429 when the pair is throttled); false when it is wrong.
   */
  async confirmCurrent(user: User, password: string, clientIp: string, trace: RequestTrace): Promise<boolean> {
    const attempt: Attempt = { username: user.username, clientIp, path: 'password_change', trace };
    const check = this.pairOf(attempt, user);
    const ok = await this.counted(attempt, () =>
      this.throttle.attempt(
        check,
        async () => !passwordRefusal(this.policy, { user, verified: !!(await this.users.verifyPasswordOf(user, password)) }),
        (right) => (right ? 'right' : 'wrong'),
      ),
    );
    if (!ok) this.fail(attempt, 'invalid_credentials');
    if (!ok) check.reportLock();
    return ok;
  }

  /** The user a name belongs to and the name's throttle counter from this address, in one statement. */
  private lookup(username: string, clientIp: string): Awaitable<{ user: User | null; throttle: ThrottleRow | null }> {
    if (!username || username.length > 150) return { user: null, throttle: null };
    return andThen(this.repository.findWithThrottle(username, pairKey(username, clientIp)), (found) =>
      // Usernames are matched exactly as typed, on MySQL's case-insensitive collation too.
      found && found.user.username === username ? found : { user: null, throttle: null },
    );
  }

  private succeeded(attempt: CredentialCheck, user: User, source?: string): Awaitable<User> {
    const { path, clientIp, username } = attempt;
    const directory = source === undefined ? {} : { directory: source };
    // Browser logins are counted by SessionLogin, which every login path (form, SSO) goes through.
    if (path !== 'session') this.metrics.logins.inc({ method: path, outcome: 'success' });
    if (path === 'basic') {
      this.basicUse.log(`${user.id}|${clientIp}`, () => ({ event: 'api_auth', method: 'basic', outcome: 'success', user_id: user.id, username, client_ip: clientIp, ...directory, ...attempt.trace }));
    } else if (path === 'password_grant') {
      this.logger.log({ event: 'login', method: path, outcome: 'success', user_id: user.id, username, client_ip: clientIp, ...directory, ...attempt.trace });
      // A login (SPEC §22): the inactivity period restarts; a browser's is recorded with its session (SessionLogin).
      return this.inactivity.recordLogin(user).then(() => user);
    }
    return user;
  }

  /** `backend`: which directory decided (null: none knew the name) and why; `user`: whose the name is. */
  private fail(attempt: Attempt, outcome: string, backend?: { source: string | null; reason: string | null }, user?: User | null): void {
    this.metrics.logins.inc({ method: attempt.path, outcome });
    const refusedAs = user && !user.isActive ? 'user_disabled' : backend ? backendRefusalReason(backend.reason) : user ? 'wrong_password' : 'unknown_user';
    const source = backend?.source ?? (user ? (user.externalAccount ?? 'local') : null);
    this.events.failed(attempt, outcome === 'invalid_credentials' ? refusedAs : outcome, { user, source });
    const detail = backend ? { directory: backend.source, reason: backend.reason } : {};
    this.logger.warn({ event: 'login_failed', method: attempt.path, username: attempt.username, client_ip: attempt.clientIp, outcome, ...detail, ...attempt.trace });
  }
}
