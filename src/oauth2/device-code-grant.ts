import { AbstractGrantType, AccessDeniedError, Client, InvalidGrantError, InvalidRequestError, OAuthError, Request, Token, TokenOptions } from '@node-oauth/oauth2-server';
import { DEVICE_CODE_GRANT } from '../tokens/applications.service';
import type { GrantUser } from './grant-user';

export { DEVICE_CODE_GRANT };

/** RFC 8628 §3.5's answers while the user has not decided, in RFC 6749 §5.2's shape (400). */
export class AuthorizationPendingError extends OAuthError {
  constructor() {
    super('The user has not yet completed authorization', { code: 400, name: 'authorization_pending' });
  }
}

export class SlowDownError extends OAuthError {
  constructor() {
    super('Polling too fast: wait 5 seconds longer between requests from now on', { code: 400, name: 'slow_down' });
  }
}

export class ExpiredTokenError extends OAuthError {
  constructor() {
    super('The device code has expired: start a new device authorization request', { code: 400, name: 'expired_token' });
  }
}

/** What a poll found: the RFC 8628 answer of a code not (or no longer) redeemable, or the grant to issue. */
export type DeviceGrant =
  | { answer: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant' }
  | { answer: 'approved'; user: GrantUser; scope: string[] };

/** The part of the token endpoint's model this grant calls. */
export interface DeviceGrantModel {
  /** Polls the code for `client`: counts the poll and answers, or hands back the approved grant. */
  pollDeviceCode(deviceCode: string, client: Client): Promise<DeviceGrant>;
  generateAccessToken(client: Client, user: GrantUser, scope: string[]): Promise<string>;
  generateRefreshToken(client: Client, user: GrantUser, scope: string[]): Promise<string>;
  /** Issues the tokens, and redeems the code by compare-and-swap in the same transaction (once). */
  saveToken(token: Token, client: Client, user: GrantUser): Promise<Token>;
}

function pollError(answer: Exclude<DeviceGrant['answer'], 'approved'>): OAuthError {
  switch (answer) {
    case 'authorization_pending':
      return new AuthorizationPendingError();
    case 'slow_down':
      return new SlowDownError();
    case 'access_denied':
      return new AccessDeniedError('The user denied the authorization request');
    case 'expired_token':
      return new ExpiredTokenError();
    default:
      return new InvalidGrantError('Invalid grant: device code is invalid');
  }
}

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4), an `extendedGrantTypes`
 * entry on the library's public `AbstractGrantType`. The library has already authenticated the client
 * (a confidential one with its secret) and checked that its application may use this grant; the model
 * decides what the poll hears, and issues the tokens for the approving user with the scope the device
 * asked for, exactly once.
 */
export class DeviceCodeGrant extends AbstractGrantType {
  private readonly grants: DeviceGrantModel;

  constructor(options: TokenOptions & { model: DeviceGrantModel }) {
    super(options);
    this.grants = options.model;
  }

  async handle(request: Request, client: Client): Promise<Token> {
    const deviceCode: unknown = request.body.device_code;
    if (deviceCode === undefined || deviceCode === '') throw new InvalidRequestError('Missing parameter: `device_code`');
    if (typeof deviceCode !== 'string' || deviceCode.length > 100) throw new InvalidRequestError('Invalid parameter: `device_code`');
    const grant = await this.grants.pollDeviceCode(deviceCode, client);
    if (grant.answer !== 'approved') throw pollError(grant.answer);
    const { user, scope } = grant;
    const token: Token = {
      accessToken: await this.grants.generateAccessToken(client, user, scope),
      accessTokenExpiresAt: this.getAccessTokenExpiresAt(),
      refreshToken: await this.grants.generateRefreshToken(client, user, scope),
      refreshTokenExpiresAt: this.getRefreshTokenExpiresAt(),
      scope,
      client,
      user,
    };
    return this.grants.saveToken(token, client, user);
  }
}
