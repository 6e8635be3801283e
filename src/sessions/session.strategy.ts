import { Injectable } from '@nestjs/common';
import { Strategy } from 'passport-strategy';
import { Authenticator, CredentialOptions, CredentialStrategy, report } from '../common/authenticator';
import { andThen, Awaitable } from '../common/awaitable';
import { Clock } from '../common/clock';
import { AuthError } from '../common/errors';
import { CredentialRequest, Principal } from '../common/principal';
import { SESSION_END_MESSAGES, SessionEndReason } from './session-end-reason';
import { SessionCookies } from './session-cookies';
import { ResolvedSession, SessionsService } from './sessions.service';
import type { Session } from './session.entity';
import { isQuietRequest } from './quiet-session';
import { traceOf } from '../common/request-context';

/**
 * Session authentication: a cookie naming a live session decides; one naming an ended session gets
 * a 401 with the reason (unless an Authorization header is there to decide instead); an unknown
 * cookie passes to the next strategy. Each request slides the idle expiry unless it is quiet
 * (`X-WS-Session-Quiet`, or the session event stream).
 */
@Injectable()
export class SessionStrategy extends Strategy implements CredentialStrategy {
  readonly name = 'session';

  constructor(
    private readonly sessions: SessionsService,
    private readonly cookies: SessionCookies,
    private readonly clock: Clock,
    authenticator: Authenticator,
  ) {
    super();
    authenticator.register(this, 20);
  }

  authenticate(req: CredentialRequest, options: CredentialOptions): void {
    const token = req.cookies?.[this.cookies.name];
    if (typeof token !== 'string' || !token) return this.pass();
    report(this, () => andThen(this.sessions.resolve(token), (found) => this.verify(req, token, options.response, found)));
  }

  private verify(req: CredentialRequest, token: string, response: unknown, found: ResolvedSession | null): Awaitable<Principal | undefined> {
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

  /** An ended session: 401 with its reason, unless an Authorization header is there to decide instead. */
  private async refuse(req: CredentialRequest, session: Session, reason: SessionEndReason): Promise<undefined> {
    if (!session.endedAt) await this.sessions.end({ ids: [session.id] }, reason, traceOf(req));
    if (req.headers.authorization) return undefined;
    throw sessionEnded(reason);
  }
}

export function sessionEnded(reason: SessionEndReason): AuthError {
  return new AuthError('session_ended', SESSION_END_MESSAGES[reason], { reason });
}
