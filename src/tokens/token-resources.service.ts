import type { RequestClient } from '../common/client-ip';
import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { FindOptionsWhere } from 'typeorm';
import { FieldErrors } from '../common/errors';
import { integer, pkOrNull, REQUIRED, refuse, text, validateBody } from '../common/validation';
import { SettingsService } from '../settings/settings.service';
import { MIN_REQUESTED_LIFETIME, requestedLifetimeRefusal } from './token-lifetime';
import { queryPage } from '../common/list-query/list-page';
import { TOKEN_LIST } from './token-lists';
import type { Principal } from '../common/principal';
import type { User } from '../users/user.entity';
import { AccessToken } from './access-token.entity';
import type { Application } from './application.entity';
import { canSeeApplication } from './application.serializer';
import { ApplicationsService, grantsOf } from './applications.service';
import { LastUsedBuffer } from './last-used.buffer';
import { DEFAULT_SCOPE, parseScope, SCOPE_MESSAGE } from './scopes';
import { serializeToken } from './token.serializer';
import { TokensService } from './tokens.service';
import { RequestTrace } from '../common/request-context';

/** `read`, `write` or both, normalised; any other value gets AWX's one message. */
const scope = z.unknown().transform((value, ctx) => {
  const parsed = parseScope(value);
  if (!parsed) {
    refuse(ctx, SCOPE_MESSAGE, value);
    return z.NEVER;
  }
  return parsed;
});

/**
 * The body of every token-creating route (an empty body is an empty object). `expires_in` (SPEC §15) is
 * whole seconds from 60; its upper bound is the lifetime policy's cap, a runtime setting, checked after
 * the parse (`requestedLifetime`).
 */
const CREATE_TOKEN_BODY = z.object({
  description: text(1024, { blank: true }).optional(),
  scope: scope.optional(),
  application: pkOrNull.optional(),
  expires_in: integer(MIN_REQUESTED_LIFETIME).optional(),
});
/** After creation only `description` and `scope` change (AWX's detail serializer); always partial. */
export const CHANGE_TOKEN_BODY = CREATE_TOKEN_BODY.omit({ application: true, expires_in: true });
/** Rotation may ask for the new token's lifetime; nothing else of the token changes. */
export const ROTATE_TOKEN_BODY = CREATE_TOKEN_BODY.pick({ expires_in: true });

/** Whether the `application` body field is taken, required or ignored (personal tokens). */
export type ApplicationRule = 'optional' | 'required' | 'none';

export function seesEveryToken(user: User): boolean {
  return user.isSuperuser || user.isSystemAuditor;
}

/** The token resource as the API lists and creates it, shared by the token and application routes. */
@Injectable()
export class TokenResources {
  constructor(
    private readonly tokens: TokensService,
    private readonly applications: ApplicationsService,
    private readonly lastUsed: LastUsedBuffer,
    private readonly settings: SettingsService,
  ) {}

  /** A requested `expires_in` held to the cap of the moment: 400 `{"expires_in": [...]}` above it. */
  requestedLifetime(expiresIn: number | undefined): number | undefined {
    if (expiresIn === undefined) return undefined;
    const refusal = requestedLifetimeRefusal(expiresIn, this.settings.get('TOKEN_MAX_LIFETIME_SECONDS'));
    if (refusal) throw FieldErrors.of('expires_in', refusal);
    return expiresIn;
  }

  /** Creates a token for the caller (`client`: who asked, SPEC §23); `fixedApplication` is the application of `/applications/N/tokens/`. */
  async create(principal: Principal, trace: RequestTrace, body: unknown, applicationRule: ApplicationRule, client: RequestClient, fixedApplication?: Application) {
    const input = validateBody(CREATE_TOKEN_BODY, body ?? {});
    let application: Application | null = fixedApplication ?? null;
    if (!fixedApplication && applicationRule !== 'none' && input.application != null) {
      const found = await this.applications.findById(input.application);
      if (!found || !canSeeApplication(principal.user, found)) {
        throw FieldErrors.of('application', `Invalid pk "${input.application}" - object does not exist.`);
      }
      application = found;
    }
    if (applicationRule === 'required' && !application) throw FieldErrors.of('application', REQUIRED);
    const expiresIn = this.requestedLifetime(input.expires_in);
    const issued = await this.tokens.issue({
      expiresIn,
      user: principal.user,
      application,
      scope: input.scope ?? DEFAULT_SCOPE,
      description: input.description ?? '',
      withRefresh: !!application && grantsOf(application).includes('refresh_token'),
      trace,
      record: { method: 'api', client },
    });
    return this.presentIssued(principal, issued.accessToken, issued.token, issued.refresh, !!issued.refresh);
  }

  /** A token just issued (created or rotated): its secret in full, this once. */
  presentIssued(principal: Principal, token: AccessToken, secret: string, refreshSecret: string | null, hasRefresh: boolean) {
    return serializeToken(token, { secret, refreshSecret, hasRefresh, lastUsed: null, lastUsedIp: null, viewer: principal.user });
  }

  /** A page of tokens; viewers who do not see everyone's tokens see only their own in any list. */
  async page(path: string, principal: Principal, where: FindOptionsWhere<AccessToken>, query: Record<string, unknown>) {
    const scoped = seesEveryToken(principal.user) ? where : { ...where, userId: principal.user.id };
    return queryPage(await this.tokens.listQuery(scoped), TOKEN_LIST, query, path, principal.user, (rows) => this.present(principal, rows));
  }

  async present(principal: Principal, rows: AccessToken[]) {
    const refreshed = await this.tokens.withLiveRefresh(rows.map((t) => t.id));
    return rows.map((t) => {
      const use = this.lastUsed.lastUse(t.id, t);
      return serializeToken(t, { hasRefresh: refreshed.has(t.id), lastUsed: use.at, lastUsedIp: use.ip, viewer: principal.user });
    });
  }
}
