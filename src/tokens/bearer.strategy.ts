import { Inject, Injectable, Logger } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy as HttpBearerStrategy } from 'passport-http-bearer';
import { clientIp } from '../common/client-ip';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { actionsOf } from '../common/authenticator';
import { andThen, Awaitable } from '../common/awaitable';
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
const BEARER_HEADER = /^bearer(?:[ ]+(.*))?$/i;

/** What passport-http-bearer is handed: the header alone, and the request for validate(). */
interface HeaderOnly {
  headers: { authorization: string };
  request: CredentialRequest;
}

/**
 * Bearer tokens (seed §5.3, RFC 6750 §2.1) on passport-http-bearer. Only the Authorization header is read:
 * the library also takes `access_token` from the query string and the body (`lib/strategy.js`), and tokens
 * in URLs end up in logs and Referer headers (ASVS 14.2.1), so it is handed a view of the request holding
 * the header alone. A header with the Bearer scheme decides: a malformed one is an invalid token, answered
 * here before the library (which would `fail(400)` a doubled space and let the next strategy decide). The
 * token is looked up on every request, so one revoked on any node is refused at the next request. In the
 * release without OAuth 2 (SPEC §6) it never finds a credential, so bearer headers authenticate nothing.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(HttpBearerStrategy, 'bearer') {
  private readonly logger = new Logger('auth');
  /** One `api_auth` line per (token, address) a minute, as basic auth does: every use counted, not every use logged. */
  private readonly uses = new SampledLog(this.logger);
  private readonly enabled: boolean;

  constructor(
    private readonly tokens: TokensService,
    private readonly lastUsed: LastUsedBuffer,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({ passReqToCallback: true, realm: 'api' });
    this.enabled = config.oauth2ProviderEnabled;
  }

  authenticate(req: CredentialRequest, options?: object): void {
    const match = this.enabled && req.headers.authorization ? BEARER_HEADER.exec(req.headers.authorization) : null;
    if (!match) return actionsOf(this).fail(401);
    const secret = (match[1] ?? '').trim();
    if (!B64TOKEN.test(secret)) return actionsOf(this).error(new AuthError('invalid_token'));
    // The library's own parser, on the header alone: no body, no query string. The request itself rides
    // beside it for validate() (a plain object: a view made with Object.create cost a quarter of the row).
    const headerOnly: HeaderOnly = { headers: { authorization: `Bearer ${secret}` }, request: req };
    super.authenticate(headerOnly as never, options);
  }

  /** The token's principal; a refusal is thrown, so it is the answer (never a pass to the next strategy). */
  validate(view: HeaderOnly, secret: string): Awaitable<Principal> {
    const req = view.request;
    return andThen(this.tokens.findForBearer(secret), (found) => this.verify(found, clientIp(req), traceOf(req)));
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
