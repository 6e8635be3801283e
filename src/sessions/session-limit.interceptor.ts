import { CallHandler, ExecutionContext, Injectable, NestInterceptor, UseInterceptors } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { clientIp } from '../common/client-ip';
import { SettingsService } from '../settings/settings.service';

/** The limits a login is created under (SPEC §3): -1 is no limit. */
export interface SessionLimits {
  perUser: number;
  perIp: number;
  /** The address the new session is counted against (after TRUSTED_PROXIES). */
  ipAddress: string;
}

const SESSION_LIMITS = Symbol('sessionLimits');
type LimitedRequest = { [SESSION_LIMITS]?: SessionLimits };

/**
 * The session limits (SPEC §3: `SESSIONS_PER_USER`, `SESSIONS_PER_IP`), bound to every route that logs a
 * browser in (`@CreatesSession()`: the login form, the second step and its forced set-up, the SSO
 * callbacks). It decides the limits of the request, the settings in force and the address the session is
 * counted against, and hands them to the creation, which applies them in the transaction that inserts the
 * session, under the user's and the address's lock rows: that is what keeps them exact however many logins
 * race, on any node (a check after the insert could not: two logins would each see the other's session
 * missing). A route without it cannot create a session at all (`limitsOf` refuses), so no login path can
 * forget the limits.
 */
@Injectable()
export class SessionLimitInterceptor implements NestInterceptor {
  constructor(private readonly settings: SettingsService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<LimitedRequest & Parameters<typeof clientIp>[0]>();
    req[SESSION_LIMITS] = { perUser: this.settings.get('SESSIONS_PER_USER'), perIp: this.settings.get('SESSIONS_PER_IP'), ipAddress: clientIp(req) };
    return next.handle();
  }
}

/** Marks a route that may log a browser in: the session-limit interceptor runs around it. */
export const CreatesSession = () => UseInterceptors(SessionLimitInterceptor);

/** The limits the interceptor bound to this request; a route without `@CreatesSession()` is a programming error. */
export function limitsOf(req: object): SessionLimits {
  const limits = (req as LimitedRequest)[SESSION_LIMITS];
  if (!limits) throw new Error('a route that logs a browser in must be marked @CreatesSession() (SessionLimitInterceptor)');
  return limits;
}

/** For sessions made outside a request (tests, tools): no limit. */
export function unlimited(ipAddress: string): SessionLimits {
  return { perUser: -1, perIp: -1, ipAddress };
}
