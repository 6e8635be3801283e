import { Injectable } from '@nestjs/common';
import OAuth2Server, { AuthorizationCode as LibraryCode, OAuthError, Request, Response, ServerError } from '@node-oauth/oauth2-server';
import { SettingsService } from '../settings/settings.service';
import { ApplicationsService } from '../tokens/applications.service';
import { newSecret } from '../tokens/token-secrets';
import { TokensService } from '../tokens/tokens.service';
import { AccountPolicy, ExternalUserRefused } from '../users/account-policy';
import type { User } from '../users/user.entity';
import { AuthorizationCodes } from './authorization-codes.service';
import { AuthorizationRequest, checkAuthorizationRequest, redirectWith, single } from './authorization-request';
import { GrantUser } from './grant-user';
import { OAuthClient, toClient, validateScope } from './token-endpoint.model';
import { RequestTrace } from '../common/request-context';

/**
 * `/api/o/authorize/` behind the pages: validation, then the answer as a redirect URL. Codes are
 * issued through the library's authorize handler (state, scope, PKCE method, code generation and
 * the success redirect); the implicit response, which the library does not implement, is ours.
 */
@Injectable()
export class AuthorizeEndpoint {
  private readonly server = new OAuth2Server({ model: {} as never, allowEmptyState: true });

  constructor(
    private readonly applications: ApplicationsService,
    private readonly tokens: TokensService,
    private readonly codes: AuthorizationCodes,
    private readonly settings: SettingsService,
    private readonly policy: AccountPolicy,
  ) {}

  async check(params: Record<string, unknown>): Promise<AuthorizationRequest> {
    const clientId = single(params, 'client_id');
    const application = clientId && !Array.isArray(params.client_id) ? await this.applications.findByClientId(clientId) : null;
    return checkAuthorizationRequest(params, application);
  }

  deny(request: AuthorizationRequest): string {
    return this.errorRedirect(request, 'access_denied', 'The user denied the request.');
  }

  /** The user consented (or the application skips consent): where to send the browser. */
  async grant(request: AuthorizationRequest, user: User, trace: RequestTrace): Promise<string> {
    try {
      this.policy.assertMayHoldTokens(user);
    } catch (err) {
      if (err instanceof ExternalUserRefused) return this.errorRedirect(request, 'access_denied', err.detail);
      throw err;
    }
    return request.responseType === 'token' ? this.implicit(request, user, trace) : this.code(request, user, trace);
  }

  /** RFC 6749 §4.2.2: the token in the fragment, never a refresh token. */
  private async implicit(request: AuthorizationRequest, user: User, trace: RequestTrace): Promise<string> {
    const issued = await this.tokens.issue({ user, application: request.application, scope: request.scope, withRefresh: false, trace, record: { method: 'implicit' } });
    return redirectWith(
      request.redirectUri,
      { access_token: issued.token, token_type: 'Bearer', expires_in: String(issued.expiresIn), scope: request.scope, state: request.state },
      true,
    );
  }

  private async code(request: AuthorizationRequest, user: User, trace: RequestTrace): Promise<string> {
    const app = request.application;
    const grantUser: GrantUser = { entity: user, redirectUriGiven: request.redirectUriGiven };
    const query: Record<string, string> = { response_type: 'code', client_id: app.clientId, redirect_uri: request.redirectUri, scope: request.scope };
    if (request.state !== undefined) query.state = request.state;
    if (request.codeChallenge) Object.assign(query, { code_challenge: request.codeChallenge, code_challenge_method: 'S256' });
    const model = {
      getClient: async () => toClient(app),
      validateScope,
      generateAuthorizationCode: async () => newSecret('authorizationCode'),
      saveAuthorizationCode: async (code: LibraryCode, client: OAuthClient, owner: GrantUser) => {
        await this.codes.save({
          secret: code.authorizationCode,
          applicationId: client.application.id,
          userId: owner.entity.id,
          redirectUri: owner.redirectUriGiven ? code.redirectUri : null,
          scope: (code.scope ?? []).join(' '),
          codeChallenge: code.codeChallenge ?? null,
          codeChallengeMethod: code.codeChallenge ? (code.codeChallengeMethod ?? 'S256') : null,
        }, trace);
        return { ...code, client, user: owner };
      },
    };
    const response = new Response();
    try {
      await this.server.authorize(new Request({ method: 'GET', headers: {}, query }), response, {
        model,
        authenticateHandler: { handle: () => grantUser },
        authorizationCodeLifetime: this.settings.get('OAUTH2_PROVIDER').AUTHORIZATION_CODE_EXPIRE_SECONDS,
      } as never);
    } catch (err) {
      if (err instanceof OAuthError && !(err instanceof ServerError)) return this.errorRedirect(request, err.name, err.message);
      throw err;
    }
    return response.get('location') as string;
  }

  private errorRedirect(request: AuthorizationRequest, error: string, description: string): string {
    return redirectWith(request.redirectUri, { error, error_description: description, state: request.state }, request.responseType === 'token');
  }
}
