import { Injectable, Logger } from '@nestjs/common';
import { AccessDeniedError, InvalidClientError, InvalidRequestError } from '@node-oauth/oauth2-server';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { Authenticator } from '../common/authenticator';
import { clientIp } from '../common/client-ip';
import { Clock } from '../common/clock';
import { AuthError } from '../common/errors';
import { traceOf } from '../common/request-context';
import { ApplicationsService } from '../tokens/applications.service';
import { RefreshTokensService } from '../tokens/refresh-tokens.service';
import { TokensService } from '../tokens/tokens.service';
import { UsersService } from '../users/users.service';
import { basicClientId, clientCredentials, formParameters } from './client-credentials';

/** RFC 7662 §2.2: what a live token is; anything else is only `{"active": false}`. */
export type Introspection =
  | { active: false }
  | { active: true; scope: string; client_id: string | null; username: string; sub: string; token_type: 'Bearer'; exp: number; iat: number };

const INACTIVE: Introspection = { active: false };

/** Who asks: a confidential client (its own tokens only) or a superuser acting with write rights (any token). */
type Caller = { kind: 'client'; applicationId: number } | { kind: 'superuser' };

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * `/api/o/introspect/` (RFC 7662, SPEC §15). A Basic header whose name is a client id, or a `client_id` in
 * the form, is client authentication: a confidential client sees the tokens issued to it. Otherwise the
 * caller authenticates as a user (basic, session or token) and must be a superuser with write rights.
 * A token is active exactly when its own validity rule (TokensService.validate,
 * RefreshTokensService.validate) accepts it, so a revoked, expired, cut-off or disabled user's token
 * reads as inactive here at the next request on any node.
 */
@Injectable()
export class IntrospectionEndpoint {
  private readonly logger = new Logger('oauth2');

  constructor(
    private readonly applications: ApplicationsService,
    private readonly tokens: TokensService,
    private readonly refreshTokens: RefreshTokensService,
    private readonly users: UsersService,
    private readonly authenticator: Authenticator,
    private readonly clock: Clock,
  ) {}

  async handle(req: Request, res: Response): Promise<Introspection> {
    const body = formParameters(req.body);
    const caller = await this.caller(req, res, body);
    if (!body.token) throw new InvalidRequestError('Missing parameter: `token`');
    // The hint only orders the lookups (RFC 7662 §2.1); a miss falls back to the other kind.
    const lookups = [() => this.access(body.token, caller), () => this.refresh(body.token, caller)];
    if (body.token_type_hint === 'refresh_token') lookups.reverse();
    for (const lookup of lookups) {
      const answer = await lookup();
      if (answer) return answer;
    }
    return INACTIVE;
  }

  private async caller(req: Request, res: Response, body: Record<string, string>): Promise<Caller> {
    const named = body.client_id ?? basicClientId(req.headers.authorization);
    const app = named ? await this.applications.findByClientId(named) : null;
    if (body.client_id !== undefined || app) {
      const credentials = clientCredentials(req, body);
      if (!app || app.clientType !== 'confidential' || !this.applications.authenticates(app, credentials.clientSecret)) {
        this.logger.warn({ event: 'client_auth_failed', client_id: credentials.clientId, client_ip: clientIp(req), endpoint: 'introspect', ...traceOf(req) });
        throw new InvalidClientError('Invalid client: client is invalid');
      }
      return { kind: 'client', applicationId: app.id };
    }
    let principal;
    try {
      principal = await this.authenticator.authenticate(req, res);
    } catch (err) {
      if (err instanceof AuthError) throw new InvalidClientError('Invalid client: client is invalid');
      throw err;
    }
    if (!principal) throw new InvalidClientError('Invalid client: cannot retrieve client credentials');
    if (!principal.user.isSuperuser || principal.scope !== 'write') {
      throw new AccessDeniedError('Only the client a token was issued to, or a superuser, may introspect it', { code: 403 });
    }
    return { kind: 'superuser' };
  }

  /** The answer for an access token, or undefined when the secret is no access token. */
  private async access(secret: string, caller: Caller): Promise<Introspection | undefined> {
    const found = await this.tokens.findForBearer(secret);
    if (!found) return undefined;
    const { token, systemCutoff } = found;
    if (this.tokens.validate(token, token.user, this.clock.now(), systemCutoff)) return INACTIVE;
    if (caller.kind === 'client' && token.applicationId !== caller.applicationId) return INACTIVE;
    const app = token.applicationId === null ? null : await this.applications.findById(token.applicationId);
    return this.active(token.scope, app?.clientId ?? null, token.user, token.expires, token.created);
  }

  /** The answer for a refresh token, or undefined when the secret is no refresh token. */
  private async refresh(secret: string, caller: Caller): Promise<Introspection | undefined> {
    const token = await this.refreshTokens.findBySecret(secret);
    if (!token) return undefined;
    if (caller.kind === 'client' && token.applicationId !== caller.applicationId) return INACTIVE;
    const [app, user, systemCutoff] = await Promise.all([
      this.applications.findById(token.applicationId),
      this.users.findById(token.userId),
      this.tokens.systemCutoff(),
    ]);
    if (!user || this.refreshTokens.validate(token, app, user, this.clock.now(), systemCutoff)) return INACTIVE;
    return this.active(token.scope, app?.clientId ?? null, user, this.refreshTokens.expires(token), token.created);
  }

  private active(scope: string, clientId: string | null, user: { id: number; username: string }, expires: Date, created: Date): Introspection {
    return { active: true, scope, client_id: clientId, username: user.username, sub: String(user.id), token_type: 'Bearer', exp: seconds(expires), iat: seconds(created) };
  }
}
