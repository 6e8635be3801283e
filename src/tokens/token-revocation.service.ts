import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsWhere, In, IsNull, LessThanOrEqual, SelectQueryBuilder } from 'typeorm';
import { AuthMetrics } from '../common/auth-metrics';
import { Clock } from '../common/clock';
import { inBatches, limitedStatement } from '../database/batch-statements';
import { PreparedStatements } from '../database/prepared-statements';
import { Transactions } from '../database/transactions';
import { SettingsService } from '../settings/settings.service';
import type { RevocationJob } from '../users/revocation-job.entity';
import { CLEANUP_BATCH, latest, RevocationJobs } from '../users/revocation-jobs';
import { User } from '../users/user.entity';
import { UserEvents } from '../users/user-events';
import { AccessToken } from './access-token.entity';
import { AuthorizationCode } from './authorization-code.entity';
import { LastUsedBuffer } from './last-used.buffer';
import { RefreshToken } from './refresh-token.entity';
import { RevocationCutoff } from './revocation-cutoff.entity';
import { markFamilyRevoked } from './token-families';
import { RequestTrace } from '../common/request-context';

export interface RevokedCounts {
  accessTokens: number;
  refreshTokens: number;
}

/** `cleartokens` and `revoke_oauth2_tokens` delete in batches of this many (commands, not requests). */
const BATCH = 1000;

/**
 * Every way a token stops working. Access tokens are deleted (AWX); refresh tokens are stamped
 * `revoked_at` so a later reuse is still recognised. Nothing is cached, so each revocation counts
 * on every node at the next request.
 */
@Injectable()
export class TokenRevocationService implements OnModuleInit {
  private readonly logger = new Logger('tokens');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: Transactions,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly events: UserEvents,
    private readonly lastUsed: LastUsedBuffer,
    private readonly metrics: AuthMetrics,
    private readonly jobs: RevocationJobs,
    private readonly prepared: PreparedStatements,
  ) {}

  /**
   * Deactivation and deletion end every token of the user (SPEC §8). A password change leaves
   * tokens alone, as AWX does: they were issued deliberately and are revoked deliberately.
   */
  onModuleInit(): void {
    this.events.subscribe(async (event) => {
      if (event.type === 'deactivated' || event.type === 'deleted') {
        await this.revokeForUser(event.userId, event.type === 'deleted' ? 'user_deleted' : 'user_disabled', event.trace);
      }
    });
  }

  /** One access token; deleting it also ends the grant it belongs to (its refresh token), unlike AWX. */
  async revokeAccessToken(token: AccessToken, reason: string, trace: RequestTrace): Promise<void> {
    if (token.family) await this.revokeFamily(token.family, reason, trace);
    else await this.deleteAccessTokens({ id: token.id }, reason, trace);
  }

  /** Only the access token (RFC 7009 revocation of an access token; the refresh token lives on). */
  async deleteAccessTokens(where: FindOptionsWhere<AccessToken>, reason: string, trace: RequestTrace, manager?: EntityManager): Promise<number> {
    const repo = (manager ?? this.dataSource.manager).getRepository(AccessToken);
    const ids = (await repo.find({ select: { id: true }, where })).map((t) => t.id);
    if (!ids.length) return 0;
    const result = await repo.delete({ id: In(ids) });
    this.lastUsed.forget(ids);
    this.metrics.tokensRevoked.inc(ids.length);
    this.logger.log({ event: 'tokens_revoked', kind: 'access', token_ids: ids.length <= 20 ? ids : undefined, count: ids.length, reason, ...trace });
    return result.affected ?? ids.length;
  }

  /** Every token of one grant: refresh tokens stamped revoked, access tokens deleted. */
  async revokeFamily(family: string, reason: string, trace: RequestTrace): Promise<RevokedCounts> {
    return this.transactions.run(async (manager) => {
      // First, under the family's lock: no token can be issued into it any more, however the requests raced.
      await markFamilyRevoked(manager, family, this.transactions.isMysql, this.clock.now());
      const refreshTokens = await this.stampRefreshTokens({ family, revokedAt: IsNull() }, manager);
      const accessTokens = await this.deleteAccessTokens({ family }, reason, trace, manager);
      this.logger.log({ event: 'token_family_revoked', family, reason, access_tokens: accessTokens, refresh_tokens: refreshTokens, ...trace });
      return { accessTokens, refreshTokens };
    });
  }

  /**
   * All of one user's access and refresh tokens (SPEC §5: the user or a superuser), at once and whatever
   * their number (issue 21): one write of the user's cut-off, which every bearer request and refresh grant
   * compares with the token's creation, plus a clean-up job that deletes the rows afterwards in batches.
   */
  async revokeForUser(userId: number, reason: string, trace: RequestTrace): Promise<void> {
    const now = this.clock.now();
    await this.transactions.run(async (manager) => {
      const cutoff = await this.newestOr(manager, now, 'WHERE user_id = ?', [userId]);
      await manager.getRepository(User).update({ id: userId }, { tokensRevokedBefore: cutoff });
      await this.jobs.add(manager, { kind: 'tokens', userId, cutoff, reason: reason.slice(0, 32), keptId: null, created: now });
      await manager.getRepository(AuthorizationCode).delete({ userId });
    });
    this.logger.log({ event: 'user_tokens_revoked', user_id: userId, reason, ...trace });
  }

  /** Every token in the system (superuser API, `revoke_oauth2_tokens --all`): the system cut-off, then clean-up. */
  async revokeAll(reason: string, trace: RequestTrace): Promise<void> {
    const now = this.clock.now();
    await this.transactions.run(async (manager) => {
      const cutoff = await this.newestOr(manager, now, '', []);
      await manager.getRepository(RevocationCutoff).update({ id: 1 }, { tokensRevokedBefore: cutoff });
      await this.jobs.add(manager, { kind: 'tokens', userId: null, cutoff, reason: reason.slice(0, 32), keptId: null, created: now });
      await manager.getRepository(AuthorizationCode).createQueryBuilder().delete().execute();
    });
    this.logger.log({ event: 'all_tokens_revoked', reason, ...trace });
  }

  /** The cut-off: now, or the newest token it covers if a node whose clock runs ahead stamped one later (index reads). */
  private async newestOr(manager: EntityManager, now: Date, where: string, params: unknown[]): Promise<Date> {
    const [a] = await manager.query(`SELECT MAX(created) AS newest FROM oauth2_access_token ${where}`, params);
    const live = `${where ? `${where} AND` : 'WHERE'} revoked_at IS NULL`;
    const [r] = await manager.query(`SELECT MAX(created) AS newest FROM oauth2_refresh_token ${live}`, params);
    return latest(latest(now, a?.newest), r?.newest);
  }

  /**
   * Only access tokens, refresh tokens left alive (`revoke_oauth2_tokens` without `--all`, as AWX): no
   * cut-off can say that, so the rows are deleted here, batch by batch.
   */
  async deleteAccessTokensOf(userId: number | null, reason: string): Promise<number> {
    return this.deleteInBatches(AccessToken, 'access tokens', () => undefined, (qb) => (userId === null ? qb : qb.where('t.user_id = :userId', { userId })), (ids) => {
      this.lastUsed.forget(ids);
      this.metrics.tokensRevoked.inc(ids.length);
      this.logger.log({ event: 'tokens_revoked', kind: 'access', count: ids.length, user_id: userId ?? undefined, reason });
    });
  }

  /** How many access and live refresh tokens a revocation of one user (or everyone) covers (the CLI's report). */
  async countFor(userId: number | null): Promise<RevokedCounts> {
    const by = userId === null ? {} : { userId };
    const [accessTokens, refreshTokens] = await Promise.all([
      this.dataSource.getRepository(AccessToken).countBy(by),
      this.dataSource.getRepository(RefreshToken).countBy({ ...by, revokedAt: IsNull() }),
    ]);
    return { accessTokens, refreshTokens };
  }

  /** The rows that token cut-offs revoked, deleted (access) or stamped (refresh) in batches. */
  cleanupRevoked(budgetMs?: number): Promise<number> {
    return this.jobs.work('tokens', (job) => this.cleanupBatch(job), budgetMs);
  }

  private async cleanupBatch(job: RevocationJob): Promise<number> {
    const p = this.prepared;
    const byUser = job.userId === null ? '' : 'user_id = ? AND ';
    const params = (...rest: unknown[]) => (job.userId === null ? rest : [job.userId, ...rest]);
    const cutoff = p.date(job.cutoff);
    const ids = (await p.rows(`SELECT id FROM oauth2_access_token WHERE ${byUser}created <= ? LIMIT ${CLEANUP_BATCH}`, params(cutoff))).map((r) => Number(r.id));
    if (ids.length) {
      await p.run(`DELETE FROM oauth2_access_token WHERE id IN (${ids.map(() => '?').join(', ')})`, ids);
      this.lastUsed.forget(ids);
    }
    const now = p.date(this.clock.now());
    const stamped = await p.run(
      limitedStatement(p.dialect, 'UPDATE oauth2_refresh_token SET revoked_at = ?, modified = ?', 'oauth2_refresh_token', `${byUser}revoked_at IS NULL AND created <= ?`, CLEANUP_BATCH),
      [now, now, ...params(cutoff)],
    );
    this.metrics.tokensRevoked.inc(ids.length + stamped);
    return Math.max(ids.length, stamped);
  }

  private async stampRefreshTokens(where: FindOptionsWhere<RefreshToken>, manager: EntityManager): Promise<number> {
    const now = this.clock.now();
    const result = await manager.getRepository(RefreshToken).update(where, { revokedAt: now, modified: now });
    this.metrics.tokensRevoked.inc(result.affected ?? 0);
    return result.affected ?? 0;
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
    const accessTokens = await this.deleteInBatches(AccessToken, 'access tokens', progress, (qb) =>
      qb.where('t.expires <= :now', { now }),
    );
    const refreshTokens = await this.deleteInBatches(RefreshToken, 'refresh tokens', progress, (qb) =>
      qb.where('t.family_started <= :cutoff', { cutoff: familyCutoff }).orWhere(
        '(t.revoked_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM oauth2_refresh_token live WHERE live.family = t.family AND live.revoked_at IS NULL))',
      ),
    );
    const codes = (await this.dataSource.getRepository(AuthorizationCode).delete({ expires: LessThanOrEqual(now) })).affected ?? 0;
    this.logger.log({ event: 'tokens_cleared', access_tokens: accessTokens, refresh_tokens: refreshTokens, authorization_codes: codes });
    return { accessTokens, refreshTokens, codes };
  }

  /** Selects ids, then deletes them, batch by batch: one statement form that SQLite and MySQL both accept. */
  private async deleteInBatches<T extends { id: number }>(
    entity: new () => T,
    label: string,
    progress: (line: string) => void,
    filter: (qb: SelectQueryBuilder<T>) => SelectQueryBuilder<T>,
    onBatch: (ids: number[]) => void = () => undefined,
  ): Promise<number> {
    const repo = this.dataSource.getRepository(entity);
    let total = 0;
    await inBatches(async () => {
      const rows: { id: number }[] = await filter(repo.createQueryBuilder('t').select('t.id', 'id')).limit(BATCH).getRawMany();
      if (!rows.length) return false;
      const ids = rows.map((r) => Number(r.id));
      await repo.delete({ id: In(ids) } as FindOptionsWhere<T>);
      onBatch(ids);
      total += ids.length;
      if (rows.length < BATCH) return false;
      progress(`${total} ${label} deleted so far...`);
      return true;
    });
    return total;
  }
}
