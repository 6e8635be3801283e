import {
  AccessDeniedError,
  AuthorizationCode as LibraryCode,
  Client,
  InvalidGrantError,
  InvalidScopeError,
  RefreshToken as LibraryRefreshToken,
  Token,
} from '@node-oauth/oauth2-server';
import { Logger } from '@nestjs/common';
import { ACCOUNT_EXPIRED, AuthError, MFA_REQUIRED, USER_DISABLED } from '../common/errors';
import { Transactions } from '../database/transactions';
import { Application } from '../tokens/application.entity';
import { ApplicationsService, grantsOf } from '../tokens/applications.service';
import { redirectUriList } from '../tokens/redirect-uris';
import { RefreshTokenRefusal, RefreshTokensService } from '../tokens/refresh-tokens.service';
import { DEFAULT_SCOPE, parseScope } from '../tokens/scopes';
import { newSecret } from '../tokens/token-secrets';
import { TokensService } from '../tokens/tokens.service';
import { AccountPolicy, ExternalUserRefused } from '../users/account-policy';
import { PasswordCheck } from '../users/password-check.service';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { AuthorizationCodeRefusal, AuthorizationCodes } from './authorization-codes.service';
import type { DeviceGrant } from './device-code-grant';
import { DeviceCodes } from './device-codes.service';
import { GrantUser } from './grant-user';
import { RequestTrace } from '../common/request-context';
import type { AuthenticationRecord } from '../common/authentication-record';
import type { LoginEvents } from '../users/login-events';

export interface TokenEndpointDeps {
  applications: ApplicationsService;
  passwords: PasswordCheck;
  users: UsersService;
  tokens: TokensService;
  refreshTokens: RefreshTokensService;
  codes: AuthorizationCodes;
  deviceCodes: DeviceCodes;
  transactions: Transactions;
  policy: AccountPolicy;
  record: AuthenticationRecord;
  loginEvents: LoginEvents;
}

export interface OAuthClient extends Client {
  application: Application;
}

/** The library's view of an application: client id, permitted grants, exact redirect URIs. */
export function toClient(app: Application): OAuthClient {
  return { id: app.clientId, grants: grantsOf(app), redirectUris: redirectUriList(app.redirectUris), application: app };
}

/** Scope rules of SPEC §5 for the library: `read`/`write`, no duplicates, `write` by default. */
export function validateScope(_user: unknown, _client: unknown, scope?: string[]): string[] | false {
  if (!scope || !scope.length) return [DEFAULT_SCOPE];
  const parsed = parseScope(scope.join(' '));
  return parsed && parsed.split(' ').length === scope.length ? parsed.split(' ') : false;
}

/** Every scope word a grant of `scope` covers: `write` implies `read`. */
function impliedScope(scope: string): string[] {
  const words = scope.split(' ');
  return words.includes('write') && !words.includes('read') ? ['read', ...words] : words;
}

/** SPEC §23's `method` of each grant's token event. */
const GRANT_METHODS: Record<string, string> = {
  password: 'password_grant', authorization_code: 'authorization_code', client_credentials: 'client_credentials',
  refresh_token: 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code': 'device_code',
};

/** The library's answer to each refusal of the refresh-token rule: the messages clients and tests know. */
function refreshTokenRefused(refusal: RefreshTokenRefusal): InvalidGrantError {
  return new InvalidGrantError(refusal === 'expired' ? 'Invalid grant: refresh token has expired' : 'Invalid grant: refresh token is invalid');
}

/** The same for the authorization-code rule. */
function authorizationCodeRefused(refusal: AuthorizationCodeRefusal): InvalidGrantError {
  if (refusal === 'used') return new InvalidGrantError('Invalid grant: authorization code has already been used');
  if (refusal === 'expired') return new InvalidGrantError('Invalid grant: authorization code has expired');
  return new InvalidGrantError('Invalid grant: authorization code is invalid');
}

/**
 * The @node-oauth/oauth2-server model behind `/api/o/token/`, made per request (it needs the
 * client address for the password check). The library runs the protocol; this maps it onto our
 * tables: hashed secrets, compare-and-swap redemption and rotation, family revocation on reuse.
 */
export class TokenEndpointModel {
  private readonly logger = new Logger('oauth2');

  constructor(
    private readonly deps: TokenEndpointDeps,
    /** The token request's form parameters (formParameters: empty values are absent). */
    private readonly body: Record<string, string>,
    private readonly clientIp: string,
    private readonly trace: RequestTrace,
    private readonly userAgent: string,
  ) {}

  validateScope = validateScope;

  async getClient(clientId: string, clientSecret?: string): Promise<OAuthClient | null> {
    const app = await this.deps.applications.findByClientId(clientId);
    if (!app || !this.deps.applications.authenticates(app, clientSecret)) {
      this.logger.warn({ event: 'client_auth_failed', client_id: clientId, client_ip: this.clientIp, known: !!app, ...this.trace });
      return null;
    }
    return toClient(app);
  }

  /** The password grant checks credentials where the login form and basic auth do (one throttle later). */
  async getUser(username: string, password: string): Promise<GrantUser | null> {
    try {
      let source = 'local';
      const attempt = { username, password, clientIp: this.clientIp, path: 'password_grant' as const, trace: this.trace, userAgent: this.userAgent, provenBy: (name: string) => (source = name) };
      const proof = await this.deps.passwords.prove(attempt);
      // A password alone is not enough for a user who owes a second step (SPEC §16): the SPEC's words, not the generic refusal.
      if (proof.secondStep) {
        this.deps.loginEvents.failed(attempt, 'mfa_required', { user: proof.user });
        throw new InvalidGrantError(MFA_REQUIRED);
      }
      return { entity: proof.user, passwordLogin: source };
    } catch (err) {
      // SPEC §22: an expired account is told so, once its password proved it.
      if (err instanceof AuthError && err.code === 'account_expired') throw new InvalidGrantError(ACCOUNT_EXPIRED);
      if (err instanceof AuthError && err.code === 'user_disabled') throw new InvalidGrantError(USER_DISABLED);
      if (err instanceof AuthError) return null;
      throw err;
    }
  }

  /**
   * Client credentials (SPEC §15): the application's own service account, while it is active. The
   * library has already held the client to its secret and to the grant type.
   */
  async getUserFromClient(client: OAuthClient): Promise<GrantUser | null> {
    const account = await this.deps.applications.serviceAccountOf(client.application);
    if (!account || this.deps.policy.refusal(account, 'client_credentials')) {
      this.logger.warn({ event: 'client_credentials_refused', application_id: client.application.id, client_ip: this.clientIp, ...this.trace });
      return null;
    }
    return { entity: account };
  }

  generateAccessToken = async () => newSecret('applicationToken');
  generateRefreshToken = async () => newSecret('refreshToken');

  async saveToken(token: Token, client: OAuthClient, user: GrantUser): Promise<Token> {
    // A refresh without `scope` keeps the token's own words, not the implied set getRefreshToken showed the library.
    const words = user.refreshToken && this.body.scope === undefined ? user.refreshToken.scope.split(' ') : token.scope;
    const scope = (words?.length ? words : [DEFAULT_SCOPE]).join(' ');
    const options = {
      user: user.entity,
      application: client.application,
      scope,
      withRefresh: client.grants.includes('refresh_token'),
      family: user.refreshToken?.family ?? user.family,
      familyStarted: user.refreshToken?.familyStarted,
      secrets: { token: token.accessToken, refresh: token.refreshToken },
      trace: this.trace,
      // SPEC §23: a refresh is a rotation of the token it refreshes; every other grant creates one.
      record: {
        method: GRANT_METHODS[this.body.grant_type] ?? this.body.grant_type,
        previousToken: user.refreshToken ? (user.refreshToken.accessTokenId ?? undefined) : undefined,
        client: { ipAddress: this.clientIp, userAgent: this.userAgent },
      },
    };
    try {
      // The login's event is written in the transaction: what was reported before it is written first (order by id).
      if (user.passwordLogin) await this.deps.record.flush();
      const issued = await this.deps.transactions.run(async (manager) => {
        if (user.code && !(await this.deps.codes.lockUnreplayed(user.code.id, manager))) {
          throw new InvalidGrantError('Invalid grant: authorization code has already been used');
        }
        // RFC 8628: an approved device code issues once; the loser of a race (any node) gets nothing.
        if (user.deviceCode && !(await this.deps.deviceCodes.redeem(user.deviceCode, manager))) {
          throw new InvalidGrantError('Invalid grant: device code is invalid');
        }
        // A request that raced a reuse of its refresh token gets nothing once the family is revoked (SPEC §5).
        if (options.family && (await this.deps.refreshTokens.familyRevoked(manager, options.family))) {
          throw new InvalidGrantError('Invalid grant: refresh token is invalid');
        }
        const made = await this.deps.tokens.issue(options, manager);
        // SPEC §23: a password grant is a login, recorded in the transaction that makes its token.
        if (user.passwordLogin) {
          await this.deps.record.within(manager, {
            event: 'login_succeeded', user: user.entity, source: user.passwordLogin, method: 'password_grant',
            tokenId: made.accessToken.id, ipAddress: this.clientIp, userAgent: this.userAgent, trace: this.trace,
            // The instant the login was recorded on the user (its `previous_login` reads the same time).
            at: user.entity.lastLoginEventAt ?? undefined,
          });
        }
        return made;
      });
      return {
        accessToken: issued.token,
        accessTokenExpiresAt: issued.accessToken.expires,
        refreshToken: issued.refresh ?? undefined,
        scope: scope.split(' '),
        client,
        user,
        expiresIn: issued.expiresIn,
      };
    } catch (err) {
      if (err instanceof ExternalUserRefused) throw new AccessDeniedError(err.detail, { code: 403 });
      throw err;
    }
  }

  /** The code, once its rule (AuthorizationCodes.validate) accepts it; a replay is marked and revokes what the code issued. */
  async getAuthorizationCode(secret: string): Promise<LibraryCode | null> {
    const code = await this.deps.codes.findBySecret(secret);
    if (!code) return null;
    const { app, user } = await this.grantParties(code);
    const refusal = this.deps.codes.validate(code, app, user);
    if (refusal === 'used') await this.deps.codes.replayed(code, this.trace);
    if (refusal || !app || !user) throw authorizationCodeRefused(refusal ?? 'client_gone');
    return {
      authorizationCode: secret,
      expiresAt: code.expires,
      redirectUri: code.redirectUri ?? '',
      scope: code.scope.split(' '),
      client: { id: app.clientId, grants: grantsOf(app) },
      user: { entity: user, code } satisfies GrantUser,
      codeChallenge: code.codeChallenge ?? undefined,
      codeChallengeMethod: code.codeChallengeMethod ?? undefined,
    };
  }

  /**
   * Single use: the compare-and-swap winner continues; a loser is a replay. A `redirect_uri` that differs
   * from the authorization request's is `invalid_grant` (RFC 6749 §5.2; the library says `invalid_request`),
   * checked once the code is spent, where the library checks it, so a wrong attempt still costs the code.
   */
  async revokeAuthorizationCode(code: LibraryCode): Promise<boolean> {
    const user = code.user as GrantUser;
    const family = await this.deps.codes.redeem(user.code!, this.trace);
    if (!family) {
      await this.deps.codes.replayed(user.code!, this.trace);
      return false;
    }
    user.family = family;
    if (code.redirectUri && this.body.redirect_uri !== code.redirectUri) {
      throw new InvalidGrantError('Invalid grant: `redirect_uri` does not match the authorization request');
    }
    return true;
  }

  /**
   * The token, once its rule (RefreshTokensService.validate) accepts it; a reuse revokes the token's whole
   * family. A requested `scope` is checked here, before the library rotates the token, so a malformed
   * request does not cost the client its grant; and the library is shown the implied scope (`write`
   * implies `read`), since it compares words literally and would refuse narrowing write to read.
   */
  async getRefreshToken(secret: string): Promise<LibraryRefreshToken | null> {
    const token = await this.deps.refreshTokens.findBySecret(secret);
    if (!token) return null;
    const [{ app, user }, systemCutoff] = await Promise.all([this.grantParties(token), this.deps.tokens.systemCutoff()]);
    const refusal = this.deps.refreshTokens.validate(token, app, user, undefined, systemCutoff);
    if (refusal === 'revoked') await this.deps.refreshTokens.reused(token, this.trace);
    if (refusal || !app || !user) throw refreshTokenRefused(refusal ?? 'client_gone');
    const granted = impliedScope(token.scope);
    if (this.body.scope !== undefined) {
      const requested = parseScope(this.body.scope)?.split(' ');
      if (!requested || !requested.every((s) => granted.includes(s))) throw new InvalidScopeError('Invalid scope: Unable to add extra scopes');
    }
    return { refreshToken: secret, scope: granted, client: { id: app.clientId, grants: grantsOf(app) }, user: { entity: user, refreshToken: token } satisfies GrantUser };
  }

  /**
   * A poll of the device grant (RFC 8628 §3.5): what DeviceCodes.poll answers, and for an approved code
   * the approving user once the code's rule (DeviceCodes.validate) accepts it; a refusal is `invalid_grant`.
   */
  async pollDeviceCode(secret: string, client: OAuthClient): Promise<DeviceGrant> {
    const poll = await this.deps.deviceCodes.poll(secret, client.application);
    if (poll.answer !== 'approved') return poll;
    const code = poll.code;
    const [user, systemCutoff] = await Promise.all([code.userId ? this.deps.users.findById(code.userId) : null, this.deps.tokens.systemCutoff()]);
    const refusal = this.deps.deviceCodes.validate(code, client.application, user, systemCutoff);
    if (refusal === 'expired') return { answer: 'expired_token' };
    if (refusal || !user) return { answer: 'invalid_grant' };
    return { answer: 'approved', user: { entity: user, deviceCode: code }, scope: code.scope.split(' ') };
  }

  /** The application and the user a stored grant names, either null when gone. */
  private async grantParties(grant: { applicationId: number; userId: number }): Promise<{ app: Application | null; user: User | null }> {
    const [app, user] = await Promise.all([this.deps.applications.findById(grant.applicationId), this.deps.users.findById(grant.userId)]);
    return { app, user };
  }

  async revokeToken(token: LibraryRefreshToken): Promise<boolean> {
    const row = (token.user as GrantUser).refreshToken;
    return !!row && this.deps.refreshTokens.rotate(row, this.trace);
  }
}
