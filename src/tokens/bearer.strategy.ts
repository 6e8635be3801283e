import { Inject, Injectable, Logger } from '@nestjs/common';
import { clientIp } from '../common/client-ip';
import { Strategy } from 'passport-strategy';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Authenticator, CredentialStrategy, report } from '../common/authenticator';
import { andThen } from '../common/awaitable';
import { AuthError } from '../common/errors';
import { CredentialRequest, Principal } from '../common/principal';
import { SampledLog } from '../common/sampled-log';
import { LastUsedBuffer } from './last-used.buffer';
import { effectiveScope } from './scopes';
import type { BearerLookup } from './tokens.repository';
import { TokensService } from './tokens.service';
import { RequestTrace, traceOf } from '../common/request-context';

/** RFC 6750 b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Bearer tokens (seed §5.3, RFC 6750 §2.1). Only the Authorization header is read: passport-http-bearer
 * also takes `access_token` from the query string and the body, and tokens in URLs end up in logs and
 * Referer headers (ASVS 14.2.1). A header with the Bearer scheme decides: a malformed one is an invalid
 * token, not "no credential". The token is looked up on every request, so one revoked on any node is
 * refused at the next request. Not registered in the release without OAuth 2.
 */
@Injectable()
export class BearerStrategy extends Strategy implements CredentialStrategy {
  readonly name = 'bearer';
  private readonly logger = new Logger('auth');
  /** One `api_auth` line per (token, address) a minute, as basic auth does: every use counted, not every use logged. */
  private readonly uses = new SampledLog(this.logger);

  constructor(
    private readonly tokens: TokensService,
    private readonly lastUsed: LastUsedBuffer,
    @Inject(APP_CONFIG) config: AppConfig,
    authenticator: Authenticator,
  ) {
    super();
    if (config.oauth2ProviderEnabled) authenticator.register(this, 10);
  }

  authenticate(req: CredentialRequest): void {
    const header = req.headers.authorization;
    const match = header ? /^bearer(?:[ ]+(.*))?$/i.exec(header) : null;
    if (!match) return this.pass();
    const secret = (match[1] ?? '').trim();
    if (!B64TOKEN.test(secret)) return this.error(new AuthError('invalid_token'));
    report(this, () => andThen(this.tokens.findForBearer(secret), (found) => this.verify(found, clientIp(req), traceOf(req))));
  }

  private verify(found: BearerLookup | null, clientIp: string, trace: RequestTrace): Principal {
    const token = found?.token;
    const refusal = this.tokens.validate(token ?? null, token?.user ?? null, undefined, found?.systemCutoff ?? null);
    if (refusal || !token?.user) {
      this.logger.warn({ event: 'api_auth', method: 'token', outcome: refusal, token_id: token?.id, user_id: token?.userId, client_ip: clientIp, ...trace });
      throw new AuthError(refusal ?? 'invalid_token');
    }
    this.lastUsed.touch(token.id, clientIp);
    this.uses.log(`${token.id}|${clientIp}`, () => ({ event: 'api_auth', method: 'token', outcome: 'success', token_id: token.id, user_id: token.userId, client_ip: clientIp, ...trace }));
    return { user: token.user, method: 'token', scope: effectiveScope(token.scope), credentialId: token.id };
  }
}
