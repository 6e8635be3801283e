import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-strategy';
import { AuthStrategies } from '../common/auth-strategies';
import { Clock } from '../common/clock';
import { AuthError } from '../common/errors';
import { Principal } from '../common/principal';
import { SettingsService } from '../settings/settings.service';
import { SESSION_END_MESSAGES, SessionEndReason } from './session-end-reason';
import { SessionCookies } from './session-cookies';
import { SessionsService } from './sessions.service';
import { isQuietRequest } from './quiet-session';

/** passport-strategy base that hands the request to the Nest `validate` callback. */
class CookieStrategy extends Strategy {
  constructor(private readonly verify: (req: Request, done: (err: unknown, user?: unknown) => void) => void) {
    super();
  }
  authenticate(req: Request): void {
    const self = this as unknown as { success(u: unknown): void; fail(): void; error(e: unknown): void };
    this.verify(req, (err, user) => (err ? self.error(err) : user ? self.success(user) : self.fail()));
  }
}

/**
 * Session authentication: a cookie naming a live session decides; one naming an ended session gets
 * a 401 with the reason (unless an Authorization header is there to decide instead); an unknown
 * cookie passes to the next strategy. Each request slides the idle expiry unless it is quiet
 * (`X-WS-Session-Quiet`, or the session event stream).
 */
@Injectable()
export class SessionStrategy extends PassportStrategy(CookieStrategy, 'session') {
  constructor(
    private readonly sessions: SessionsService,
    private readonly cookies: SessionCookies,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    strategies: AuthStrategies,
  ) {
    super();
    strategies.register('session', 20);
  }

  async validate(req: Request): Promise<Principal | false> {
    const token = req.cookies?.[this.cookies.name];
    if (typeof token !== 'string' || !token) return false;
    const found = await this.sessions.resolve(token);
    if (!found) return false;
    const { session, user } = found;
    const now = this.clock.now();
    let reason = this.sessions.endedReason(session, now);
    if (!reason && !user.isActive) reason = 'user_disabled';
    if (!reason && this.settings.get('DISABLE_LOCAL_AUTH') && !user.externalAccount) reason = 'local_auth_disabled';
    if (reason) {
      if (!session.endedAt) await this.sessions.end({ ids: [session.id] }, reason);
      if (req.headers.authorization) return false;
      throw sessionEnded(reason);
    }
    const res = req.res!;
    if (!isQuietRequest(req)) {
      this.cookies.writeSession(res, token, await this.sessions.touch(session, now));
    }
    return { user, method: 'session', scope: 'write', credentialId: session.id };
  }
}

export function sessionEnded(reason: SessionEndReason): AuthError {
  return new AuthError('session_ended', SESSION_END_MESSAGES[reason], { reason });
}
