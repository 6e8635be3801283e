import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { BasicStrategy as HttpBasicStrategy } from 'passport-http';
import { clientIp, userAgentOf } from '../common/client-ip';
import { actionsOf } from '../common/authenticator';
import { andThen, Awaitable } from '../common/awaitable';
import { AuthError } from '../common/errors';
import { CredentialRequest, Principal } from '../common/principal';
import { SettingsService } from '../settings/settings.service';
import { PasswordCheck } from '../users/password-check.service';
import { LoginEvents } from '../users/login-events';
import { BasicCredentialCache } from './basic-credential-cache';
import { traceOf } from '../common/request-context';

/** RFC 7617 §2: the scheme token exactly (any case), one or more spaces, token68. */
const BASIC_HEADER = /^basic[ ]+([A-Za-z0-9+/=]+)\s*$/i;

/**
 * HTTP basic (seed §5.2, RFC 7617) on passport-http's BasicStrategy: stateless, never a session, never
 * counted by session limits. Only the header parsing is ours: the library splits the credentials at every
 * ":" and keeps two parts (`lib/passport-http/strategies/basic.js`: "a:b:c" arrives as password "a"),
 * and tests the scheme with `/Basic/i`, so "Basicx" passes; RFC 7617 takes the user-id up to the first
 * colon and the scheme as a whole token. Its verify callback and challenge are the library's.
 */
@Injectable()
export class BasicStrategy extends PassportStrategy(HttpBasicStrategy, 'basic') {
  constructor(
    private readonly passwords: PasswordCheck,
    private readonly settings: SettingsService,
    private readonly cache: BasicCredentialCache,
    private readonly events: LoginEvents,
  ) {
    super({ passReqToCallback: true, realm: 'api' });
  }

  authenticate(req: CredentialRequest): void {
    const header = req.headers.authorization;
    const match = header ? BASIC_HEADER.exec(header) : null;
    const actions = actionsOf(this);
    if (!match) return actions.fail(401);
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return actions.fail(401);
    // The library's verified(): an error is the answer, no user is a failure, a user is success.
    const verified = (err: unknown, user?: unknown) => (err ? actions.error(err) : user ? actions.success(user) : actions.fail(401));
    (this as unknown as { _verify: (...args: unknown[]) => void })._verify(req, decoded.slice(0, colon), decoded.slice(colon + 1), verified);
  }

  validate(req: CredentialRequest, username: string, password: string): Awaitable<Principal> {
    const attempt = { username, password, clientIp: clientIp(req), path: 'basic' as const, trace: traceOf(req), userAgent: userAgentOf(req) };
    if (!this.settings.get('AUTH_BASIC_ENABLED')) {
      this.events.failed(attempt, 'basic_disabled');
      throw new AuthError('basic_disabled');
    }
    // A password alone is not enough for a user who owes a second step (SPEC §16): basic cannot ask for it.
    return andThen(this.passwords.prove(attempt, this.cache), (proof): Principal => {
      if (proof.secondStep) {
        this.events.failed(attempt, 'mfa_required', { user: proof.user });
        throw new AuthError('mfa_required');
      }
      return { user: proof.user, method: 'basic', scope: 'write' };
    });
  }
}
