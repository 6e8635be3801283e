import { Inject, Injectable } from '@nestjs/common';
import { CommandRunner } from './command-layer';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { OAUTH2_LIFETIME_MAX } from '../settings/authentication-settings';
import { SettingsService } from '../settings/settings.service';
import { parseScope } from '../tokens/scopes';
import { TokenExpiryNotices } from '../tokens/token-expiry-notices.service';
import { requestedLifetimeRefusal } from '../tokens/token-lifetime';
import { TokenRevocationService } from '../tokens/token-revocation.service';
import { TokensService } from '../tokens/tokens.service';
import { UsersService } from '../users/users.service';
import { CommandError, userDoesNotExist } from './command-error';
import { NO_REQUEST } from '../common/request-context';

/** The release without OAuth 2 (SPEC §6) has no tokens to create, revoke or clear. */
function requireOAuth2(config: AppConfig): void {
  if (!config.oauth2ProviderEnabled) {
    throw new CommandError('The OAuth 2 provider is disabled (OAUTH2_PROVIDER_ENABLED=false): there are no tokens to manage.');
  }
}

@Injectable()
export class CreateOAuth2TokenCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    private readonly tokens: TokensService,
    private readonly settings: SettingsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], options: { user?: string; scope?: string; expiresIn?: string }): Promise<void> {
    requireOAuth2(this.config);
    if (!options.user) throw new CommandError('Username not supplied. Usage: create_oauth2_token --user=username.');
    const scope = parseScope(options.scope ?? 'write');
    if (!scope) throw new CommandError("--scope must be 'read' or 'write'.");
    const expiresIn = options.expiresIn === undefined ? undefined : this.requestedLifetime(options.expiresIn);
    const user = await this.users.findByUsername(options.user);
    if (!user) throw userDoesNotExist(options.user);
    const issued = await this.tokens.issue({ user, application: null, scope, expiresIn, description: 'created by create_oauth2_token', trace: NO_REQUEST, record: { method: 'command' } });
    // The token on stdout, alone, so scripts can capture it; it is shown only this once.
    console.log(issued.token);
  }

  /** `--expires-in` held to what `expires_in` of the API takes: whole seconds from 60 to the cap. */
  private requestedLifetime(value: string): number {
    const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    const refusal = requestedLifetimeRefusal(Number.isFinite(seconds) ? seconds : value, this.settings.get('TOKEN_MAX_LIFETIME_SECONDS'));
    if (refusal) throw new CommandError(`--expires-in: ${refusal}`);
    return seconds;
  }
}

/**
 * `list_expiring_tokens [--within SECONDS]`: every live access token expiring within the window
 * (TOKEN_EXPIRY_WARNING_SECONDS by default), soonest first, one tab-separated line each: id, user,
 * application (`-` for a personal token) and expiry. Never a secret: only hashes are stored anyway.
 */
@Injectable()
export class ListExpiringTokensCommand extends CommandRunner {
  constructor(
    private readonly expiry: TokenExpiryNotices,
    private readonly settings: SettingsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], options: { within?: string }): Promise<void> {
    requireOAuth2(this.config);
    const within = options.within === undefined ? this.settings.get('TOKEN_EXPIRY_WARNING_SECONDS') : withinSeconds(options.within);
    console.log(['id', 'user', 'application', 'expires'].join('\t'));
    const total = await this.expiry.eachExpiringWithin(within, (tokens) => {
      for (const t of tokens) console.log([t.id, t.username, t.applicationName ?? '-', t.expires.toISOString()].join('\t'));
    });
    process.stderr.write(`${total} token(s) expire within ${within} seconds.\n`);
  }
}

function withinSeconds(value: string): number {
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(seconds) || seconds > OAUTH2_LIFETIME_MAX) {
    throw new CommandError(`--within must be a whole number of seconds from 0 to ${OAUTH2_LIFETIME_MAX}.`);
  }
  return seconds;
}

@Injectable()
export class RevokeOAuth2TokensCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    private readonly revocation: TokenRevocationService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], options: { user?: string; all?: boolean }): Promise<void> {
    requireOAuth2(this.config);
    const refresh = !!options.all;
    let userId: number | null = null;
    if (options.user) {
      const user = await this.users.findByUsername(options.user);
      if (!user) throw userDoesNotExist(options.user);
      userId = user.id;
    }
    const counts = await this.revocation.countFor(userId);
    if (refresh) {
      // The cut-off refuses them at once; the command then waits for the rows to be cleaned up.
      if (userId === null) await this.revocation.revokeAll('revoke_oauth2_tokens', NO_REQUEST);
      else await this.revocation.revokeForUser(userId, 'revoke_oauth2_tokens', NO_REQUEST);
      await this.revocation.cleanupRevoked(Infinity);
    } else {
      counts.accessTokens = await this.revocation.deleteAccessTokensOf(userId, 'revoke_oauth2_tokens');
    }
    console.log(`Revoked ${counts.accessTokens} access token(s)` + (refresh ? ` and ${counts.refreshTokens} refresh token(s).` : '.'));
  }
}

@Injectable()
export class ClearTokensCommand extends CommandRunner {
  constructor(
    private readonly revocation: TokenRevocationService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(): Promise<void> {
    requireOAuth2(this.config);
    const counts = await this.revocation.clearExpiredAndRevoked((line) => process.stderr.write(line + '\n'));
    console.log(`Expired OAuth 2 Access Tokens deleted: ${counts.accessTokens}`);
    console.log(`Expired or revoked OAuth 2 Refresh Tokens deleted: ${counts.refreshTokens}`);
    console.log(`Expired authorization codes deleted: ${counts.codes}`);
  }
}
