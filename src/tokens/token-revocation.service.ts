import { AuthenticationRecord } from '../common/authentication-record';
import { TokenActivity } from './token-activity';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AuthMetrics } from '../common/auth-metrics';
import { Clock } from '../common/clock';
import { inBatches } from '../database/batch-statements';
import { Transactions } from '../database/transactions';
import { SettingsService } from '../settings/settings.service';
import type { RevocationJob } from '../users/revocation-job.entity';
import { latest, RevocationJobs } from '../users/revocation-jobs';
import { UserEvents } from '../users/user-events';
import { AccessToken } from './access-token.entity';
import { AuthorizationCodesRepository } from './authorization-codes.repository';
import { LastUsedBuffer } from './last-used.buffer';
import { CLEARTOKENS_BATCH, TokenCleanUpRepository } from './token-clean-up.repository';
import { DeletedToken, TokensRepository } from './tokens.repository';
import { RequestTrace } from '../common/request-context';

export interface RevokedCounts {
  accessTokens: number;
  refreshTokens: number;
}

/** One batch of a clean-up: how many rows it deleted, and whether there may be more. */
type Batch = () => Promise<{ count: number; more: boolean }>;

/**
 * Every way a token stops working. Access tokens are deleted (AWX); refresh tokens are stamped
 * `revoked_at` so a later reuse is still recognised. Nothing is cached, so each revocation counts
 * on every node at the next request.
 */
/** Why an account change revoked a user's tokens, as their log lines say. */
const TOKEN_REVOCATION_REASON = { deactivated: 'user_disabled', deleted: 'user_deleted', access_revoked: 'access_revoked' } as const;

/** How a revocation was asked for (SPEC §23's `method`): through the API, by a command, or by neither (null). */
function methodOf(reason: string): string | null {
  if (reason.startsWith('api:')) return 'api';
  return reason === 'revoke_oauth2_tokens' ? 'command' : null;
}

/**
 * A revocation's reason as SPEC §23's `token_revoked` says it; null for what is no revocation (a refresh's old
 * access token, which `token_rotated` reports). A replayed authorization code revokes its grant as a reused
 * refresh token does, and reads the same.
 */
export function revokedReason(reason: string): string | null {
  if (reason.startsWith('api:') || reason === 'user_deleted') return 'deleted';
  const words: Record<string, string | null> = {
    revoke_token: 'revoke_endpoint', refresh_token_reused: 'refresh_reuse', authorization_code_replayed: 'refresh_reuse',
    revoke_oauth2_tokens: 'command', user_disabled: 'user_disabled', access_revoked: 'access_revoked', refresh_token_rotated: null,
  };
  return Object.hasOwn(words, reason) ? words[reason] : reason;
}

@Injectable()
export class TokenRevocationService implements OnModuleInit {
  private readonly logger = new Logger('tokens');

  constructor(
    private readonly repository: TokensRepository,
    private readonly cleanUp: TokenCleanUpRepository,
    private readonly codes: AuthorizationCodesRepository,
    private readonly transactions: Transactions,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly events: UserEvents,
    private readonly lastUsed: LastUsedBuffer,
    private readonly metrics: AuthMetrics,
    private readonly jobs: RevocationJobs,
    private readonly activity: TokenActivity,
    private readonly record: AuthenticationRecord,
  ) {}

  /**
   * Deactivation and deletion end every token of the user (SPEC §8). A password change leaves
   * tokens alone, as AWX does: they were issued deliberately and are revoked deliberately.
   */
  onModuleInit(): void {
    this.events.subscribe(async (event) => {
      if (event.type === 'deactivated' || event.type === 'deleted' || event.type === 'access_revoked') {
        await this.revokeForUser(event.userId, TOKEN_REVOCATION_REASON[event.type], event.trace);
      }
    });
  }

  /** One access token; deleting it also ends the grant it belongs to (its refresh token), unlike AWX. */
  async revokeAccessToken(token: AccessToken, reason: string, trace: RequestTrace): Promise<void> {
    if (token.family) await this.revokeFamily(token.family, reason, trace, token.userId);
    else await this.deleteAccessToken(token.id, reason, trace, token.userId);
  }

  /** Only the access token (RFC 7009 revocation of an access token; the refresh token lives on). */
  async deleteAccessToken(id: number, reason: string, trace: RequestTrace, userId?: number): Promise<number> {
    const deleted = await this.repository.deleteAccessTokens({ id });
    this.accessTokensDeleted(deleted, reason, trace, userId);
    return deleted.length;
  }

  /** Every token of one grant: refresh tokens stamped revoked, access tokens deleted. */
  async revokeFamily(family: string, reason: string, trace: RequestTrace, userId?: number): Promise<RevokedCounts> {
    // Under the family's lock first: no token can be issued into it any more, however the requests raced.
    const revoked = await this.repository.revokeFamily(family, this.clock.now());
    const refreshTokens = revoked.refreshTokens;
    this.metrics.tokensRevoked.inc(refreshTokens);
    this.accessTokensDeleted(revoked.accessTokens, reason, trace, userId);
    const accessTokens = revoked.accessTokens.length;
    this.logger.log({ event: 'token_family_revoked', family, reason, access_tokens: accessTokens, refresh_tokens: refreshTokens, ...trace });
    return { accessTokens, refreshTokens };
  }

  /** `userId`: whose tokens they are (one grant's, or one token: always one user's), for SPEC §23's events. */
  private accessTokensDeleted(deleted: DeletedToken[], reason: string, trace: RequestTrace, userId?: number): void {
    if (!deleted.length) return;
    const ids = deleted.map((t) => t.id);
    // The stream's `delete` of each (SPEC §5: one token, a family's live ones, a refresh's old one).
    for (const token of deleted) void this.activity.token('delete', token, trace);
    const said = revokedReason(reason);
    for (const tokenId of said === null ? [] : ids) {
      this.record.record({ event: 'token_revoked', user: userId === undefined ? null : { id: userId }, reason: said, tokenId, method: methodOf(reason), trace });
    }
    this.lastUsed.forget(ids);
    this.metrics.tokensRevoked.inc(ids.length);
    this.logger.log({ event: 'tokens_revoked', kind: 'access', token_ids: ids.length <= 20 ? ids : undefined, count: ids.length, reason, ...trace });
  }

  /**
   * All of one user's access and refresh tokens (SPEC §5: the user or a superuser), at once and whatever
   * their number (issue 21): one write of the user's cut-off, which every bearer request and refresh grant
   * compares with the token's creation, plus a clean-up job that deletes the rows afterwards in batches.
   */
  async revokeForUser(userId: number, reason: string, trace: RequestTrace): Promise<void> {
    const bulk = await this.repository.firstTokens({ userId });
    await this.cutOff(userId, reason);
    this.activity.bulkDeleted(bulk.count, bulk.first, trace);
    // One event for the bulk revocation (SPEC §5, §23), whatever the number of tokens.
    this.record.record({ event: 'token_revoked', user: { id: userId }, reason: revokedReason(reason), method: methodOf(reason), trace, details: { count: bulk.count } });
    this.logger.log({ event: 'user_tokens_revoked', user_id: userId, reason, ...trace });
  }

  /** Every token in the system (superuser API, `revoke_oauth2_tokens --all`): the system cut-off, then clean-up. */
  async revokeAll(reason: string, trace: RequestTrace): Promise<void> {
    const bulk = await this.repository.firstTokens({});
    await this.cutOff(null, reason);
    this.activity.bulkDeleted(bulk.count, bulk.first, trace);
    this.logger.log({ event: 'all_tokens_revoked', reason, ...trace });
    this.record.record({ event: 'token_revoked', user: bulk.oneUser === null ? null : { id: bulk.oneUser }, reason: revokedReason(reason), method: methodOf(reason), trace, details: { count: bulk.count } });
  }

  /**
   * The cut-off (its authorization codes go at once) and its clean-up job, in one transaction. The cut-off
   * is now, or the newest token it covers if a node whose clock runs ahead stamped one later.
   */
  private async cutOff(userId: number | null, reason: string): Promise<void> {
    const now = this.clock.now();
    await this.transactions.run(async (manager) => {
      const [access, refresh] = await this.repository.newestCreated(userId, manager);
      const cutoff = latest(latest(now, access), refresh);
      await this.repository.writeCutoff(manager, userId, cutoff);
      await this.codes.deleteOf(manager, userId);
      await this.jobs.add(manager, { kind: 'tokens', userId, cutoff, reason: reason.slice(0, 32), keptId: null, created: now });
    });
  }

  /**
   * Only access tokens, refresh tokens left alive (`revoke_oauth2_tokens` without `--all`, as AWX): no
   * cut-off can say that, so the rows that exist now are deleted here, batch by batch.
   */
  async deleteAccessTokensOf(userId: number | null, reason: string): Promise<number> {
    const [newest] = await this.repository.newestCreated(userId);
    const scope = { userId, cutoff: latest(this.clock.now(), newest) };
    return this.batches('access tokens', () => undefined, async () => {
      const ids = await this.cleanUp.accessTokensCutOff(scope, CLEARTOKENS_BATCH);
      await this.cleanUp.deleteAccessTokensByIds(ids);
      if (ids.length) {
        this.lastUsed.forget(ids);
        this.metrics.tokensRevoked.inc(ids.length);
        this.logger.log({ event: 'tokens_revoked', kind: 'access', count: ids.length, user_id: userId ?? undefined, reason });
      }
      return { count: ids.length, more: ids.length >= CLEARTOKENS_BATCH };
    });
  }

  /** How many access and live refresh tokens a revocation of one user (or everyone) covers (the CLI's report). */
  countFor(userId: number | null): Promise<RevokedCounts> {
    return this.repository.countTokens(userId);
  }

  /** The rows that token cut-offs revoked, deleted (access) or stamped (refresh) in batches. */
  cleanupRevoked(budgetMs?: number): Promise<number> {
    return this.jobs.work('tokens', (job) => this.cleanupBatch(job), budgetMs);
  }

  private async cleanupBatch(job: RevocationJob): Promise<number> {
    const { accessTokenIds, refreshTokens } = await this.cleanUp.cleanUpCutOff(job, this.clock.now());
    this.lastUsed.forget(accessTokenIds);
    this.metrics.tokensRevoked.inc(accessTokenIds.length + refreshTokens);
    return Math.max(accessTokenIds.length, refreshTokens);
  }

  /**
   * `cleartokens`: expired access tokens and codes, refresh tokens past their absolute expiry, and
   * revoked refresh tokens whose whole family is dead. A revoked token of a live family is kept:
   * it is what recognises the reuse of a rotated refresh token.
   */
  async clearExpiredAndRevoked(progress: (line: string) => void = () => undefined): Promise<RevokedCounts & { codes: number }> {
    const now = this.clock.now();
    const refreshLife = this.settings.get('OAUTH2_PROVIDER').REFRESH_TOKEN_EXPIRE_SECONDS;
    const familyCutoff = new Date(now.getTime() - refreshLife * 1000);
    const limited = (work: (limit: number) => Promise<number>): Batch => async () => {
      const count = await work(CLEARTOKENS_BATCH);
      return { count, more: count >= CLEARTOKENS_BATCH };
    };
    const accessTokens = await this.batches('access tokens', progress, limited((n) => this.cleanUp.deleteExpiredAccessTokens(now, n)));
    let refreshTokens = await this.batches('refresh tokens', progress, limited((n) => this.cleanUp.deleteRefreshTokensStartedBefore(familyCutoff, n)));
    let after: string | null = '';
    refreshTokens += await this.batches('revoked refresh tokens of dead families', progress, async () => {
      const step = await this.cleanUp.deleteDeadFamilies(after ?? '', CLEARTOKENS_BATCH);
      after = step.next;
      return { count: step.deleted, more: after !== null };
    });
    const codes = await this.batches('authorization codes', progress, limited((n) => this.codes.deleteExpired(now, n)));
    this.logger.log({ event: 'tokens_cleared', access_tokens: accessTokens, refresh_tokens: refreshTokens, authorization_codes: codes });
    return { accessTokens, refreshTokens, codes };
  }

  /** Runs `batch` until it says there is no more, yielding between batches; the rows it deleted. */
  private async batches(label: string, progress: (line: string) => void, batch: Batch): Promise<number> {
    let total = 0;
    await inBatches(async () => {
      const { count, more } = await batch();
      total += count;
      if (more) progress(`${total} ${label} deleted so far...`);
      return more;
    });
    return total;
  }
}
