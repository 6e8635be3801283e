import { Injectable, Logger } from '@nestjs/common';
import { clientIp } from '../common/client-ip';
import type { FastifyRequest as Request } from 'fastify';
import { InvalidClientError, InvalidRequestError } from '@node-oauth/oauth2-server';
import { ApplicationsService } from '../tokens/applications.service';
import { RefreshTokensService } from '../tokens/refresh-tokens.service';
import { TokenRevocationService } from '../tokens/token-revocation.service';
import { TokensService } from '../tokens/tokens.service';
import { clientCredentials, formParameters } from './client-credentials';
import { RequestTrace, traceOf } from '../common/request-context';

/**
 * `/api/o/revoke_token/` (RFC 7009; the library has no revocation endpoint). The client
 * authenticates first; a token is revoked only when it was issued to that client. Unknown tokens,
 * other clients' tokens and personal access tokens all get the same 200 and nothing happens, so the
 * answer reveals nothing (PATs are revoked with DELETE /api/v2/tokens/N/, as in AWX #1928).
 */
@Injectable()
export class RevocationEndpoint {
  private readonly logger = new Logger('oauth2');

  constructor(
    private readonly applications: ApplicationsService,
    private readonly tokens: TokensService,
    private readonly refreshTokens: RefreshTokensService,
    private readonly revocation: TokenRevocationService,
  ) {}

  async handle(req: Request): Promise<void> {
    const trace = traceOf(req);
    const body = formParameters(req.body);
    const credentials = clientCredentials(req, body);
    const app = await this.applications.findByClientId(credentials.clientId);
    if (!app || !this.applications.authenticates(app, credentials.clientSecret)) {
      this.logger.warn({ event: 'client_auth_failed', client_id: credentials.clientId, client_ip: clientIp(req), endpoint: 'revoke_token', ...trace });
      throw new InvalidClientError('Invalid client: client is invalid');
    }
    if (!body.token) throw new InvalidRequestError('Missing parameter: `token`');
    // The hint only orders the lookups; a miss falls back to the other kind (RFC 7009 §2.1).
    const refreshFirst = body.token_type_hint === 'refresh_token';
    const refresh = () => this.revokeRefresh(body.token, app.id, trace);
    const access = () => this.revokeAccess(body.token, app.id, trace);
    for (const lookup of refreshFirst ? [refresh, access] : [access, refresh]) {
      if (await lookup()) return;
    }
  }

  private async revokeAccess(secret: string, applicationId: number, trace: RequestTrace): Promise<boolean> {
    const token = (await this.tokens.findForBearer(secret))?.token;
    if (!token) return false;
    if (token.applicationId === applicationId) await this.revocation.deleteAccessToken(token.id, 'revoke_token', trace, token.userId);
    return true;
  }

  /** A refresh token takes its whole grant with it: RFC 7009 §2.1 says its access tokens should go too. */
  private async revokeRefresh(secret: string, applicationId: number, trace: RequestTrace): Promise<boolean> {
    const token = await this.refreshTokens.findBySecret(secret);
    if (!token) return false;
    if (token.applicationId === applicationId && !token.revokedAt) await this.revocation.revokeFamily(token.family, 'revoke_token', trace, token.userId);
    return true;
  }
}
