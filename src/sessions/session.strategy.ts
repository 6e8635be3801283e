import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { CredentialOptions } from '../common/authenticator';
import { andThen, Awaitable } from '../common/awaitable';
import { Clock } from '../common/clock';
import { AuthError } from '../common/errors';
import { CredentialRequest, Principal } from '../common/principal';
import { endsSession, SESSION_END_MESSAGES, SessionEndReason } from './session-end-reason';
import { SessionCookies } from './session-cookies';
import { CookieStrategyBase } from './cookie-strategy';
import { ResolvedSession, SessionsService } from './sessions.service';
import type { Session } from './session.entity';
import { isQuietRequest } from './quiet-session';
import { traceOf } from '../common/request-context';

/**
 * Session authentication, Passport strategy `session-cookie`: a cookie naming a live session decides; one
 * naming an ended session gets a 401 with the reason (unless an Authorization header is there to decide
 * instead); an unknown cookie is no credential, so basic decides. Each request slides the idle expiry unless
 * it is quiet (`X-WS-Session-Quiet`, or the session event stream).
 */
@Injectable()
export class SessionStrategy extends PassportStrategy(CookieStrategyBase, 'session-cookie') {
  constructor(
    private readonly sessions: SessionsService,
    private readonly cookies: SessionCookies,
    private readonly clock: Clock,
  ) {
    super(cookies.name);
  }

  validate(req: CredentialRequest, token: string, options: CredentialOptions): Awaitable<Principal | undefined> {
    return andThen(this.sessions.resolve(token), (found) => this.admit(req, token, options.response, found));
  }

  private admit(req: CredentialRequest, token: string, response: unknown, found: ResolvedSession | null): Awaitable<Principal | undefined> {
    if (!found) return undefined;
    const { session, user } = found;
    const now = this.clock.now();
    const reason = this.sessions.validate(session, user, now);
    if (reason) return this.refuse(req, session, reason);
    const principal: Principal = { user, method: 'session', scope: 'write', credentialId: session.id, secondStepAt: session.secondStepAt };
    if (isQuietRequest(req)) return principal;
    return andThen(this.sessions.touch(session, now), (seconds) => {
      this.cookies.writeSession(response as never, token, seconds);
      return principal;
    });
  }

  /** An ended (or an expired account's) session: 401 with its reason, unless an Authorization header is there to decide instead. */
  private async refuse(req: CredentialRequest, session: Session, reason: SessionEndReason): Promise<undefined> {
    if (!session.endedAt && endsSession(reason)) await this.sessions.end({ ids: [session.id] }, reason, traceOf(req));
    if (req.headers.authorization) return undefined;
    throw sessionEnded(reason);
  }
}

export function sessionEnded(reason: SessionEndReason): AuthError {
  return new AuthError('session_ended', SESSION_END_MESSAGES[reason], { reason });
}
