import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { BasicStrategy as PassportHttpBasic } from 'passport-http';
import { AuthStrategies } from '../common/auth-strategies';
import { AuthError } from '../common/errors';
import { Principal } from '../common/principal';
import { SettingsService } from '../settings/settings.service';
import { LocalCredentialsService } from '../users/local-credentials.service';
import { BasicCredentialCache } from './basic-credential-cache';

/**
 * passport-http's parser splits the credentials at every ":" (so "a:b:c" loses ":c") and does not
 * check the scheme exactly; RFC 7617 splits at the first colon and the scheme is case-insensitive.
 * This subclass keeps passport-http's strategy plumbing and replaces only the parsing.
 */
interface StrategyActions {
  fail(challenge: string, status: number): void;
  error(err: unknown): void;
  success(user: unknown): void;
  _verify(req: Request, username: string, password: string, done: (err: unknown, user?: unknown) => void): void;
}

class Rfc7617BasicStrategy extends PassportHttpBasic {
  authenticate(req: Request): void {
    const self = this as unknown as StrategyActions;
    const header = req.headers.authorization;
    const match = header ? /^basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
    if (!match) return self.fail('Basic realm="api"', 401);
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return self.fail('Basic realm="api"', 401);
    self._verify(req, decoded.slice(0, colon), decoded.slice(colon + 1), (err, user) => {
      if (err) return self.error(err);
      if (!user) return self.fail('Basic realm="api"', 401);
      self.success(user);
    });
  }
}

/** HTTP basic (seed §5.2): stateless, never a session, never counted by session limits. */
@Injectable()
export class BasicStrategy extends PassportStrategy(Rfc7617BasicStrategy, 'basic') {
  constructor(
    private readonly credentials: LocalCredentialsService,
    private readonly settings: SettingsService,
    private readonly cache: BasicCredentialCache,
    strategies: AuthStrategies,
  ) {
    super({ passReqToCallback: true });
    strategies.register('basic', 30);
  }

  async validate(req: Request, username: string, password: string): Promise<Principal> {
    if (!this.settings.get('AUTH_BASIC_ENABLED')) throw new AuthError('basic_disabled');
    const user = await this.credentials.check({ username, password, clientIp: req.ip ?? '', path: 'basic' }, this.cache);
    return { user, method: 'basic', scope: 'write' };
  }
}
