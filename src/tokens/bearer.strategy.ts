import { Inject, Injectable, Logger } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy as PassportHttpBearer, VerifyFunctionWithRequest } from 'passport-http-bearer';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AuthStrategies } from '../common/auth-strategies';
import { AuthError } from '../common/errors';
import { Principal } from '../common/principal';
import { SampledLog } from '../common/sampled-log';
import { LastUsedBuffer } from './last-used.buffer';
import { effectiveScope } from './scopes';
import { TokensService } from './tokens.service';

interface StrategyActions {
  fail(challenge: string, status: number): void;
  error(err: unknown): void;
  success(user: unknown): void;
  _verify(req: Request, token: string, done: (err: unknown, user?: unknown) => void): void;
}

/** RFC 6750 b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * passport-http-bearer also takes `access_token` from the query string and the body; tokens in URLs
 * end up in logs and Referer headers (ASVS 14.2.1), so only the Authorization header is read here.
 * A header with the Bearer scheme decides: a malformed one is an invalid token, not "no credential".
 */
class HeaderBearerStrategy extends PassportHttpBearer<VerifyFunctionWithRequest> {
  authenticate(req: Request): void {
    const self = this as unknown as StrategyActions;
    const header = req.headers.authorization;
    const match = header ? /^bearer(?:[ ]+(.*))?$/i.exec(header) : null;
    if (!match) return self.fail('Bearer realm="api"', 401);
    const token = (match[1] ?? '').trim();
    if (!B64TOKEN.test(token)) return self.error(new AuthError('invalid_token'));
    self._verify(req, token, (err, user) => {
      if (err) return self.error(err);
      if (!user) return self.error(new AuthError('invalid_token'));
      self.success(user);
    });
  }
}

/**
 * Bearer tokens (seed §5.3): looked up by hash on every request, so a token deleted on any node is
 * refused at the next request; expired tokens and tokens of inactive users are refused too.
 * Not registered at all in the release without OAuth 2, so a bearer header authenticates nothing.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(HeaderBearerStrategy, 'bearer') {
  private readonly logger = new Logger('auth');
  /** One `api_auth` line per (token, address) a minute, as basic auth does: every use counted, not every use logged. */
  private readonly uses = new SampledLog(this.logger);

  constructor(
    private readonly tokens: TokensService,
    private readonly lastUsed: LastUsedBuffer,
    @Inject(APP_CONFIG) config: AppConfig,
    strategies: AuthStrategies,
  ) {
    super({ passReqToCallback: true });
    if (config.oauth2ProviderEnabled) strategies.register('bearer', 10);
  }

  async validate(req: Request, secret: string): Promise<Principal> {
    const token = await this.tokens.findForBearer(secret);
    let refusal: 'invalid_token' | 'token_expired' | 'local_auth_disabled' | undefined;
    if (!token || !token.user || !token.user.isActive) refusal = 'invalid_token';
    else if (this.tokens.isExpired(token)) refusal = 'token_expired';
    else if (this.tokens.localAuthDisabledFor(token.user)) refusal = 'local_auth_disabled';
    if (refusal) {
      this.logger.warn({ event: 'api_auth', method: 'token', outcome: refusal, token_id: token?.id, user_id: token?.userId, client_ip: req.ip ?? '' });
      throw new AuthError(refusal);
    }
    this.lastUsed.touch(token!.id);
    this.uses.log(`${token!.id}|${req.ip}`, { event: 'api_auth', method: 'token', outcome: 'success', token_id: token!.id, user_id: token!.userId, client_ip: req.ip ?? '' });
    return { user: token!.user!, method: 'token', scope: effectiveScope(token!.scope), credentialId: token!.id };
  }
}
