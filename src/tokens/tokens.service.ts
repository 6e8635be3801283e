import { TokenActivity } from './token-activity';
import { AuthenticationRecord } from '../common/authentication-record';
import type { RequestClient } from '../common/client-ip';
import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager, FindOptionsWhere } from 'typeorm';
import { AuthMetrics } from '../common/auth-metrics';
import { Awaitable } from '../common/awaitable';
import { Clock } from '../common/clock';
import { SettingsService } from '../settings/settings.service';
import { AccountPolicy } from '../users/account-policy';
import type { User } from '../users/user.entity';
import { AccessToken } from './access-token.entity';
import type { Application } from './application.entity';
import { RefreshToken } from './refresh-token.entity';
import { revokedByCutoff } from './revocation-cutoff.entity';
import { cappedLifetime } from './token-lifetime';
import { newFamily, newSecret, secretHash } from './token-secrets';
import { BearerLookup, TokensRepository } from './tokens.repository';
import { RequestTrace } from '../common/request-context';
import { afterCommit } from '../database/transactions';

export interface IssueOptions {
  user: User;
  application: Application | null;
  scope: string;
  description?: string;
  /** Issue a refresh token too (application tokens of grants that may refresh). */
  withRefresh?: boolean;
  /** The grant the tokens belong to; a new family when omitted. */
  family?: string;
  /** First issue of the family: the refresh token's absolute expiry counts from here. */
  familyStarted?: Date;
  /**
   * The lifetime asked for, in seconds (`expires_in` of a personal token, validated by the caller, or a
   * rotated token's own); the configured ACCESS_TOKEN_EXPIRE_SECONDS when omitted. Either is capped here.
   */
  expiresIn?: number;
  /** Secrets generated beforehand (the OAuth library asks for them before saving). */
  secrets?: { token: string; refresh?: string };
  /** The request that asked for the tokens (the log line carries its id). */
  trace: RequestTrace;
  /**
   * SPEC §23's event: `token_created` by `method` (`api`, `command`, or the grant), or `token_rotated` from
   * `previousToken`; and the client that asked. Written in the caller's transaction when there is one.
   */
  record?: { method: string; previousToken?: number; client?: RequestClient | null };
}

export interface IssuedTokens {
  accessToken: AccessToken;
  token: string;
  refreshToken: RefreshToken | null;
  refresh: string | null;
  /** Seconds the access token lives (its `expires` minus its issue time): what every `expires_in` reports. */
  expiresIn: number;
}

export type { BearerLookup };

export type TokenRefusal = 'invalid_token' | 'token_expired' | 'local_auth_disabled' | 'account_expired';

/** Issues and looks up access tokens; every path that creates one (API, CLI, OAuth grants) comes here. */
@Injectable()
export class TokensService {
  private readonly logger = new Logger('tokens');

  constructor(
    private readonly repository: TokensRepository,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly metrics: AuthMetrics,
    private readonly policy: AccountPolicy,
    private readonly events: AuthenticationRecord,
    private readonly activity: TokenActivity,
  ) {}

  /** Issues an access token (and a refresh token when asked), in the caller's transaction when it has one. */
  async issue(opts: IssueOptions, manager?: EntityManager): Promise<IssuedTokens> {
    this.policy.assertMayHoldTokens(opts.user);
    const now = this.clock.now();
    const expiresIn = this.lifetime(opts.expiresIn);
    const token = opts.secrets?.token ?? newSecret(opts.application ? 'applicationToken' : 'personalToken');
    const family = opts.application ? (opts.family ?? newFamily()) : null;
    const values = {
      tokenHash: secretHash(token),
      userId: opts.user.id,
      applicationId: opts.application?.id ?? null,
      description: opts.description ?? '',
      scope: opts.scope,
      expires: new Date(now.getTime() + expiresIn * 1000),
      lastUsed: null,
      lastUsedIp: null,
      expiryNotice: null,
      family,
      created: now,
      modified: now,
    };
    const accessToken = Object.assign(new AccessToken(), values, {
      id: await this.repository.insertAccessToken(values, manager),
      user: opts.user,
      application: opts.application,
    });
    let refreshToken: RefreshToken | null = null;
    let refresh: string | null = null;
    if (opts.withRefresh && opts.application && family) {
      refresh = opts.secrets?.refresh ?? newSecret('refreshToken');
      const refreshValues = {
        tokenHash: secretHash(refresh),
        userId: opts.user.id,
        applicationId: opts.application.id,
        accessTokenId: accessToken.id,
        family,
        familyStarted: opts.familyStarted ?? now,
        scope: opts.scope,
        revokedAt: null,
        created: now,
        modified: now,
      };
      refreshToken = Object.assign(new RefreshToken(), refreshValues, { id: await this.repository.insertRefreshToken(refreshValues, manager) });
    }
    this.metrics.tokensIssued.inc({ kind: opts.application ? 'application' : 'personal' });
    this.logger.log({
      event: 'token_created',
      token_id: accessToken.id,
      user_id: opts.user.id,
      application_id: opts.application?.id ?? null,
      scope: opts.scope,
      refresh_token_id: refreshToken?.id ?? null,
      ...opts.trace,
    });
    const record = opts.record ?? { method: 'api' };
    const event = {
      event: record.previousToken === undefined ? ('token_created' as const) : ('token_rotated' as const), user: opts.user, method: record.method, tokenId: accessToken.id,
      ipAddress: record.client?.ipAddress ?? null, userAgent: record.client?.userAgent, trace: opts.trace,
      details: record.previousToken === undefined ? {} : { previous_token: record.previousToken },
    };
    // Written once the token's transaction commits (a rolled-back issue records nothing).
    const streamed = () => void this.activity.token('create', accessToken, opts.trace, { username: opts.user.username, application: opts.application ?? null });
    if (manager) afterCommit(manager, () => (this.events.record(event), streamed()));
    else (this.events.record(event), streamed());
    return { accessToken, token, refreshToken, refresh, expiresIn };
  }

  /**
   * The lifetime a new access token gets (SPEC §15): the one asked for, else ACCESS_TOKEN_EXPIRE_SECONDS,
   * capped by TOKEN_MAX_LIFETIME_SECONDS. The one place the policy is applied: every grant, personal
   * tokens, the commands and rotation issue through `issue`, which asks this.
   */
  lifetime(requested?: number): number {
    const seconds = requested ?? this.settings.get('OAUTH2_PROVIDER').ACCESS_TOKEN_EXPIRE_SECONDS;
    return cappedLifetime(seconds, this.settings.get('TOKEN_MAX_LIFETIME_SECONDS'));
  }

  /**
   * Looked up by hash on every request with its user and the system cut-off, in one statement: no cached
   * validity, so a revocation anywhere (a deleted row or a cut-off) counts at once.
   */
  findForBearer(secret: string): Awaitable<BearerLookup | null> {
    return this.repository.findForBearer(secretHash(secret));
  }

  /** The system-wide cut-off ("revoke every token"), read afresh. */
  systemCutoff(): Promise<Date | null> {
    return this.repository.systemCutoff();
  }

  /** One token by id with its user and application; null when missing or revoked by a cut-off. */
  async findById(id: number): Promise<AccessToken | null> {
    const token = await this.repository.findWithOwner(id);
    if (!token || revokedByCutoff(token.created, token.user?.tokensRevokedBefore, await this.systemCutoff())) return null;
    return token;
  }

  /** The tokens a list shows, with their user and application, before its filters and page; never one a cut-off revoked. */
  async listQuery(where: FindOptionsWhere<AccessToken>) {
    return this.repository.listQuery(where, await this.systemCutoff());
  }

  /** Ids among `tokenIds` that still have a live refresh token (shown masked rather than null). */
  withLiveRefresh(tokenIds: number[]): Promise<Set<number>> {
    return this.repository.withLiveRefresh(tokenIds);
  }

  async update(token: AccessToken, changes: { description?: string; scope?: string }, trace: RequestTrace): Promise<AccessToken> {
    const now = this.clock.now();
    await this.repository.updateAccessToken(token.id, { ...changes, modified: now });
    this.logger.log({ event: 'token_updated', token_id: token.id, user_id: token.userId, fields: Object.keys(changes), ...trace });
    return Object.assign(token, changes, { modified: now });
  }

  /**
   * The one validity rule for an access token (bearer requests, introspection): it exists, no cut-off
   * revoked it, it has not expired, and its user passes the account policy. A disabled user's token reads as invalid, as
   * in AWX; a local user's while local authentication is off says so.
   */
  validate(
    token: Pick<AccessToken, 'expires' | 'created'> | null,
    user: (Pick<User, 'isActive' | 'externalAccount' | 'tokensRevokedBefore'> & Partial<Pick<User, 'accountExpires'>>) | null,
    now = this.clock.now(),
    systemCutoff: Date | null = null,
  ): TokenRefusal | null {
    if (!token || !user) return 'invalid_token';
    // Revoked by a cut-off (all of the user's, or every token): the same answer as a deleted row.
    if (revokedByCutoff(token.created, user.tokensRevokedBefore, systemCutoff)) return 'invalid_token';
    const account = this.policy.refusal(user, 'bearer', now);
    if (account === 'user_disabled') return 'invalid_token';
    if (token.expires.getTime() <= now.getTime()) return 'token_expired';
    return account;
  }
}
