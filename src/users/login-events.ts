import { Injectable } from '@nestjs/common';
import { AuthenticationRecord } from '../common/authentication-record';
import type { RequestTrace } from '../common/request-context';
import { SettingsService } from '../settings/settings.service';
import type { User } from './user.entity';
import { foldUsername } from './usernames';

/** The password paths that are logins (SPEC §23's `method`); a password change records no login event. */
const METHOD_OF_PATH: Record<string, string | undefined> = { session: 'form', basic: 'basic', password_grant: 'password_grant' };

/** SPEC §23's reasons that check no password: at most one event per (reason, name, address) per window. */
const UNCHECKED = new Set(['unknown_user', 'basic_disabled', 'mfa_required', 'local_auth_disabled']);

export interface LoginEventAttempt {
  path: string;
  username: string;
  clientIp: string;
  trace: RequestTrace;
  userAgent?: string;
}

/** A password method's refusal (BackendOutcome's `refused`) as SPEC §23's reason. */
export function backendRefusalReason(refused: string | null | undefined): string {
  if (refused === 'maps') return 'not_allowed';
  if (refused === 'unknown_user' || refused === 'invalid_username' || refused === 'not_configured') return 'unknown_user';
  return 'wrong_password';
}

/**
 * The password paths' authentication events (SPEC §23): `login_failed` with its reason, bounded as the section
 * says, and `login_locked`. Written after the answer, through common/'s AuthenticationRecord.
 */
@Injectable()
export class LoginEvents {
  constructor(
    private readonly record: AuthenticationRecord,
    private readonly settings: SettingsService,
  ) {}

  /** `user`: the user the name is (set even when refused); `source`: what refused it, when a method did. */
  failed(attempt: LoginEventAttempt, reason: string, opts: { user?: User | null; source?: string | null; details?: Record<string, unknown>; retryAfter?: number | null } = {}): void {
    const method = METHOD_OF_PATH[attempt.path] ?? (attempt.path === 'second_step' ? 'second_step' : undefined);
    if (!method) return;
    const event = {
      event: 'login_failed' as const, user: opts.user ?? null, username: attempt.username, source: opts.source ?? (opts.user ? 'local' : null),
      method, reason, ipAddress: attempt.clientIp, userAgent: attempt.userAgent, trace: attempt.trace, details: opts.details,
    };
    const windowMs = this.settings.get<number>('LOGIN_FAILURE_WINDOW') * 1000;
    const pair = `${foldUsername(attempt.username)}\u0000${attempt.clientIp}`;
    if (reason === 'throttled') {
      // One per lock of a pair (or per window of a user's second step), later refusals counted in it.
      const lockMs = opts.retryAfter ? opts.retryAfter * 1000 : windowMs;
      const key = method === 'second_step' ? `throttled\u0000step\u0000${foldUsername(attempt.username)}` : `throttled\u0000pair\u0000${pair}`;
      this.record.recordCoalesced([[key, 1]], lockMs, event);
    } else if (UNCHECKED.has(reason)) {
      const bounds: [string, number][] = [[`${reason}\u0000${pair}`, 1]];
      // Many names from one address are at most LOGIN_FAILURES_ALLOWED unknown_user events a window.
      if (reason === 'unknown_user') bounds.push([`unknown_user\u0000${attempt.clientIp}`, this.settings.get<number>('LOGIN_FAILURES_ALLOWED')]);
      this.record.recordCoalesced(bounds, windowMs, event);
    } else {
      this.record.record(event);
    }
  }

  /** A pair locked by a failure of `attempt` (SPEC §22). */
  locked(attempt: LoginEventAttempt, user: User | null, lock: { failures: number; lockedUntil: Date | null }): void {
    this.record.record({
      event: 'login_locked', user, username: attempt.username, method: METHOD_OF_PATH[attempt.path] ?? attempt.path, ipAddress: attempt.clientIp,
      userAgent: attempt.userAgent, trace: attempt.trace, details: { failures: lock.failures, locked_until: lock.lockedUntil?.toISOString() ?? null },
    });
  }
}
