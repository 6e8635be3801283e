import { Injectable, Logger } from '@nestjs/common';
import { AuthError } from '../common/errors';
import { SettingsService } from '../settings/settings.service';
import { User } from './user.entity';
import { UsersService } from './users.service';

export type PasswordPath = 'session' | 'basic' | 'password_grant';

export interface CredentialCheck {
  username: string;
  password: string;
  clientIp: string;
  path: PasswordPath;
}

/** Optional fast path for repeated credentials (basic auth); see BasicCredentialCache. */
export interface RepeatCache {
  key(username: string, password: string): string;
  matches(key: string, currentHash: string): boolean;
  remember(key: string, hash: string): void;
}

/**
 * The one place a local username/password is checked, shared by the login form, basic auth and the
 * OAuth password grant, so every path gets the same rules: local-auth switch, identical failure for
 * unknown user and wrong password, and one structured event per outcome.
 */
@Injectable()
export class LocalCredentialsService {
  private readonly logger = new Logger('auth');

  constructor(
    private readonly users: UsersService,
    private readonly settings: SettingsService,
  ) {}

  async check(attempt: CredentialCheck, cache?: RepeatCache): Promise<User> {
    const { username, path, clientIp } = attempt;
    if (this.settings.get('DISABLE_LOCAL_AUTH')) {
      this.logger.warn({ event: 'login_failed', method: path, username, client_ip: clientIp, outcome: 'local_auth_disabled' });
      throw new AuthError('local_auth_disabled');
    }
    let user: User | null = null;
    if (cache) {
      const key = cache.key(username, attempt.password);
      const candidate = await this.users.findByUsername(username);
      if (candidate && candidate.isActive && cache.matches(key, candidate.password)) user = candidate;
      else {
        user = await this.users.verifyPassword(username, attempt.password);
        if (user) cache.remember(key, user.password);
      }
    } else {
      user = await this.users.verifyPassword(username, attempt.password);
    }
    if (!user) {
      this.logger.warn({ event: 'login_failed', method: path, username, client_ip: clientIp, outcome: 'invalid_credentials' });
      throw new AuthError('invalid_credentials');
    }
    return user;
  }
}
