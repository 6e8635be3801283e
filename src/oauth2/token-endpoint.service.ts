import { Injectable } from '@nestjs/common';
import { clientIp, userAgentOf } from '../common/client-ip';
import { AuthenticationRecord } from '../common/authentication-record';
import { LoginEvents } from '../users/login-events';
import type { FastifyRequest as ExpressRequest } from 'fastify';
import OAuth2Server, { InvalidRequestError, Request, Response, UnsupportedGrantTypeError } from '@node-oauth/oauth2-server';
import { Transactions } from '../database/transactions';
import { SettingsService } from '../settings/settings.service';
import { ApplicationsService } from '../tokens/applications.service';
import { RefreshTokensService } from '../tokens/refresh-tokens.service';
import { TokensService } from '../tokens/tokens.service';
import { PasswordCheck } from '../users/password-check.service';
import { UsersService } from '../users/users.service';
import { AccountPolicy } from '../users/account-policy';
import { AuthorizationCodes } from './authorization-codes.service';
import { clientCredentials, formParameters } from './client-credentials';
import { DEVICE_CODE_GRANT, DeviceCodeGrant } from './device-code-grant';
import { DeviceCodes } from './device-codes.service';
import { TokenEndpointModel } from './token-endpoint.model';
import { traceOf } from '../common/request-context';

const SUPPORTED_GRANTS = new Set(['password', 'authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT]);

export interface TokenResponse {
  body: Record<string, unknown>;
}

/**
 * `/api/o/token/` through @node-oauth/oauth2-server: it authenticates the client through the model,
 * dispatches the grant, verifies PKCE (S256 only), checks code and refresh-token binding to the
 * client, and shapes success and error bodies. We parse client credentials ourselves (one parser
 * for token and revocation) and hand the library the normalised form.
 */
@Injectable()
export class TokenEndpoint {
  private readonly server: OAuth2Server;

  constructor(
    private readonly applications: ApplicationsService,
    private readonly passwords: PasswordCheck,
    private readonly users: UsersService,
    private readonly tokens: TokensService,
    private readonly refreshTokens: RefreshTokensService,
    private readonly codes: AuthorizationCodes,
    private readonly deviceCodes: DeviceCodes,
    private readonly transactions: Transactions,
    private readonly settings: SettingsService,
    private readonly policy: AccountPolicy,
    private readonly record: AuthenticationRecord,
    private readonly loginEvents: LoginEvents,
  ) {
    this.server = new OAuth2Server({
      model: {} as never, // a model per request: see handle()
      // Public clients authenticate with their id alone; confidential ones are held to their secret in the model.
      // Client credentials are nothing but client authentication (RFC 6749 §4.4), so the secret is required.
      requireClientAuthentication: { password: false, authorization_code: false, refresh_token: false, client_credentials: true, [DEVICE_CODE_GRANT]: false },
      alwaysIssueNewRefreshToken: true,
      extendedGrantTypes: { [DEVICE_CODE_GRANT]: DeviceCodeGrant as never },
    });
  }

  async handle(req: ExpressRequest): Promise<TokenResponse> {
    const body = formParameters(req.body);
    if (!body.grant_type) throw new InvalidRequestError('Missing parameter: `grant_type`');
    if (!SUPPORTED_GRANTS.has(body.grant_type)) throw new UnsupportedGrantTypeError('Unsupported grant type: `grant_type` is invalid');
    const client = clientCredentials(req, body);
    const normalised = { ...body, client_id: client.clientId } as Record<string, string>;
    if (client.clientSecret !== undefined) normalised.client_secret = client.clientSecret;
    else delete normalised.client_secret;
    const headers = { ...req.headers } as Record<string, string>;
    delete headers.authorization;
    const model = new TokenEndpointModel(
      {
        applications: this.applications,
        passwords: this.passwords,
        users: this.users,
        tokens: this.tokens,
        refreshTokens: this.refreshTokens,
        codes: this.codes,
        deviceCodes: this.deviceCodes,
        transactions: this.transactions,
        policy: this.policy,
        record: this.record,
        loginEvents: this.loginEvents,
      },
      body,
      clientIp(req),
      traceOf(req),
      userAgentOf(req),
    );
    const lifetimes = this.settings.get('OAUTH2_PROVIDER');
    const response = new Response();
    const token = await this.server.token(new Request({ method: 'POST', headers, query: {}, body: normalised }), response, {
      model: model as never,
      // Under the lifetime policy (SPEC §15); TokensService.issue applies the same cap to the stored token.
      accessTokenLifetime: this.tokens.lifetime(),
      refreshTokenLifetime: lifetimes.REFRESH_TOKEN_EXPIRE_SECONDS,
    } as never);
    // The library derives expires_in from the clock at response time; report the lifetime the token was issued with.
    return { body: { ...(response.body as Record<string, unknown>), expires_in: token.expiresIn } };
  }
}
