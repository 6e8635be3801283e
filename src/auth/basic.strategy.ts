import { Injectable } from '@nestjs/common';
import { clientIp } from '../common/client-ip';
import { Strategy } from 'passport-strategy';
import { Authenticator, CredentialStrategy, report } from '../common/authenticator';
import { andThen, Awaitable } from '../common/awaitable';
import { AuthError } from '../common/errors';
import { CredentialRequest, Principal } from '../common/principal';
import { SettingsService } from '../settings/settings.service';
import { LocalCredentialsService } from '../users/local-credentials.service';
import { MfaService } from '../mfa/mfa.service';
import { BasicCredentialCache } from './basic-credential-cache';
import { RequestTrace, traceOf } from '../common/request-context';

/**
 * HTTP basic (seed §5.2, RFC 7617): stateless, never a session, never counted by session limits.
 * Parsed here rather than by passport-http, whose parser splits the credentials at every ":" (so
 * "a:b:c" loses ":c"); RFC 7617 splits at the first colon and the scheme is case-insensitive.
 */
@Injectable()
export class BasicStrategy extends Strategy implements CredentialStrategy {
  readonly name = 'basic';

  constructor(
    private readonly credentials: LocalCredentialsService,
    private readonly settings: SettingsService,
    private readonly cache: BasicCredentialCache,
    private readonly mfa: MfaService,
    authenticator: Authenticator,
  ) {
    super();
    authenticator.register(this, 30);
  }

  authenticate(req: CredentialRequest): void {
    const header = req.headers.authorization;
    const match = header ? /^basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
    if (!match) return this.pass();
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return this.pass();
    report(this, () => this.verify(decoded.slice(0, colon), decoded.slice(colon + 1), clientIp(req), traceOf(req)));
  }

  private verify(username: string, password: string, clientIp: string, trace: RequestTrace): Awaitable<Principal> {
    if (!this.settings.get('AUTH_BASIC_ENABLED')) throw new AuthError('basic_disabled');
    return andThen(this.credentials.check({ username, password, clientIp, path: 'basic', trace }, this.cache), (user): Principal => {
      // A password alone is not enough for a user with a second factor (SPEC §16); `mfa_enabled` came with the row.
      if (this.mfa.demandOf(user)) throw new AuthError('mfa_required');
      return { user, method: 'basic', scope: 'write' };
    });
  }
}
