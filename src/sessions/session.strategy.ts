import { Injectable } from '@nestjs/common';
import { Strategy } from 'passport-strategy';
import { Authenticator, CredentialOptions, CredentialStrategy } from '../common/authenticator';
import { Clock } from '../common/clock';
import { AuthError } from '../common/errors';
import { CredentialRequest, Principal } from '../common/principal';
import { SESSION_END_MESSAGES, SessionEndReason } from './session-end-reason';
import { SessionCookies } from './session-cookies';
import { SessionsService } from './sessions.service';
import { isQuietRequest } from './quiet-session';

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
    this.verify(req, token, options.response).then(
      (principal) => (principal ? this.success(principal) : this.pass()),
      (err) => this.error(err),
    );
  }

  private async verify(req: CredentialRequest, token: string, response: unknown): Promise<Principal | undefined> {
    const found = await this.sessions.resolve(token);
    if (!found) return undefined;
    const { session, user } = found;
    const now = this.clock.now();
    const reason = this.sessions.validate(session, user, now);
    if (reason) {
      if (!session.endedAt) await this.sessions.end({ ids: [session.id] }, reason);
      if (req.headers.authorization) return undefined;
      throw sessionEnded(reason);
    }
    if (!isQuietRequest(req)) {
      this.cookies.writeSession(response as never, token, await this.sessions.touch(session, now));
    }
    return { user, method: 'session', scope: 'write', credentialId: session.id };
  }
}

export function sessionEnded(reason: SessionEndReason): AuthError {
  return new AuthError('session_ended', SESSION_END_MESSAGES[reason], { reason });
}
