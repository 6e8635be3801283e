import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsWhere, In, IsNull, SelectQueryBuilder } from 'typeorm';
import { andThen, Awaitable } from '../common/awaitable';
import { excludeRows } from '../common/list-query/list-page';
import { PlannedStatement } from '../database/batch-statements';
import { dateFromDatabase, PreparedStatements } from '../database/prepared-statements';
import { Transactions } from '../database/transactions';
import { User } from '../users/user.entity';
import { FRONT_DOOR_FACT_COLUMNS, keepFrontDoorFacts } from '../users/front-door-facts';
import { AccessToken } from './access-token.entity';
import { AuthorizationCodesRepository } from './authorization-codes.repository';
import { ExpiringTokensRepository } from './expiring-tokens.repository';
import { RefreshToken } from './refresh-token.entity';
import { RevocationCutoff } from './revocation-cutoff.entity';
import { CLEARTOKENS_BATCH, TokenCleanUpRepository } from './token-clean-up.repository';

/** What a deleted access token was, as the stream records it. */
export type DeletedToken = Pick<AccessToken, 'id' | 'userId' | 'applicationId' | 'description' | 'scope'>;

export interface BearerLookup {
  token: AccessToken & { user: User };
  systemCutoff: Date | null;
}

/** One use of a token waiting in LastUsedBuffer: when, and from which client address (SPEC §15's `last_used_ip`). */
export interface LastUse {
  at: Date;
  ip: string;
}

export type NewAccessToken = Omit<AccessToken, 'id' | 'user' | 'application'>;
export type NewRefreshToken = Omit<RefreshToken, 'id'>;

/**
 * Every statement about access tokens, refresh tokens, their families and cut-offs (issue 29): the bearer
 * lookup through PreparedStatements and the TypeORM calls; the clean-up batches, in each database's own
 * form, are TokenCleanUpRepository's. The services (tokens, refresh tokens, revocation, the last-used
 * buffer) hold the rules and call these; `periodicStatements` lists what the module runs on a timer or
 * over many rows, as the code builds it, for the plan test. Authorization codes have their own repository
 * beside it (docs/architecture.md says why).
 */
@Injectable()
export class TokensRepository {
  private bearerSql?: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedStatements,
    private readonly transactions: Transactions,
    private readonly codes: AuthorizationCodesRepository,
    private readonly expiring: ExpiringTokensRepository,
    private readonly cleanUp: TokenCleanUpRepository,
  ) {}

  async insertAccessToken(values: NewAccessToken, manager: EntityManager = this.dataSource.manager): Promise<number> {
    return (await manager.insert(AccessToken, values)).identifiers[0].id as number;
  }

  async insertRefreshToken(values: NewRefreshToken, manager: EntityManager = this.dataSource.manager): Promise<number> {
    return (await manager.insert(RefreshToken, values)).identifiers[0].id as number;
  }

  /** The token with its user and the system cut-off, in one statement (the hot lookup of every bearer request). */
  findForBearer(tokenHash: string): Awaitable<BearerLookup | null> {
    const p = this.prepared;
    this.bearerSql ??=
      `SELECT ${p.columnList(AccessToken, 't')}, ${p.columnList(User, 'u')}, c.tokens_revoked_before, ${FRONT_DOOR_FACT_COLUMNS('u')} FROM ${p.table(AccessToken)} t ` +
      `JOIN ${p.table(User)} u ON u.id = t.user_id LEFT JOIN ${p.table(RevocationCutoff)} c ON c.id = 1 WHERE t.token_hash = ?`;
    return andThen(p.firstByKey(this.bearerSql, tokenHash), (row) => {
      if (!row) return null;
      const tokenWidth = p.width(AccessToken);
      const user = keepFrontDoorFacts(p.hydrateAt(User, row, tokenWidth), row, tokenWidth + p.width(User) + 1);
      const token = Object.assign(p.hydrateAt(AccessToken, row), { user });
      return { token, systemCutoff: dateFromDatabase(row[tokenWidth + p.width(User)]) };
    });
  }

  async systemCutoff(): Promise<Date | null> {
    return (await this.dataSource.getRepository(RevocationCutoff).findOneBy({ id: 1 }))?.tokensRevokedBefore ?? null;
  }

  findWithOwner(id: number): Promise<AccessToken | null> {
    return this.dataSource.getRepository(AccessToken).findOne({ where: { id }, relations: { user: true, application: true } });
  }

  /**
   * The tokens a list shows, with user and application, but what a cut-off revoked. A list of one user's
   * tokens reads the user's cut-off once, so its count is a range of the user's index; a list across users
   * tests each token against its user's cut-off, and counts as all tokens less those a cut-off dropped
   * (`excludeRows`).
   */
  async listQuery(where: FindOptionsWhere<AccessToken>, systemCutoff: Date | null): Promise<SelectQueryBuilder<AccessToken>> {
    const qb = this.dataSource
      .getRepository(AccessToken)
      .createQueryBuilder('t')
      .leftJoinAndSelect('t.user', 'q_t_user')
      .leftJoinAndSelect('t.application', 'q_t_application')
      .where(where);
    if (typeof where.userId === 'number') {
      const owner = await this.dataSource.getRepository(User).findOne({ select: { id: true, tokensRevokedBefore: true }, where: { id: where.userId } });
      if (owner?.tokensRevokedBefore) qb.andWhere('t.created > :userCutoff', { userCutoff: owner.tokensRevokedBefore });
    } else {
      excludeRows(
        qb,
        '(q_t_user.tokensRevokedBefore IS NULL OR t.created > q_t_user.tokensRevokedBefore)',
        '(q_t_user.tokensRevokedBefore IS NOT NULL AND t.created <= q_t_user.tokensRevokedBefore)',
      );
    }
    // A user's personal or authorized tokens in id order come from (user_id, application_id, id), all of a
    // user's tokens from (user_id), whose entries end in the id; MySQL's planner otherwise intersects two
    // indexes, or walks (user_id, application_id), and sorts every one of the user's tokens (issue 21).
    if (where.userId !== undefined && where.applicationId !== undefined) qb.useIndex('IDX_oauth2_access_token_user_application');
    else if (typeof where.userId === 'number') qb.useIndex('IDX_oauth2_access_token_user_id');
    return systemCutoff ? qb.andWhere('t.created > :systemCutoff', { systemCutoff }) : qb;
  }

  /** Ids among `tokenIds` whose refresh token is not revoked. */
  async withLiveRefresh(tokenIds: number[]): Promise<Set<number>> {
    if (!tokenIds.length) return new Set();
    const rows = await this.dataSource.getRepository(RefreshToken).find({
      select: { accessTokenId: true },
      where: { accessTokenId: In(tokenIds), revokedAt: IsNull() },
    });
    return new Set(rows.map((r) => r.accessTokenId!));
  }

  async updateAccessToken(id: number, changes: Partial<Pick<AccessToken, 'description' | 'scope' | 'modified'>>): Promise<void> {
    await this.dataSource.getRepository(AccessToken).update({ id }, changes);
  }

  /** Deletes the access tokens of one id or one family; the ids it deleted. */
  /** Deletes one token or a family's; what each deleted token was (the stream's `delete` entries, SPEC §5). */
  async deleteAccessTokens(where: { id: number } | { family: string }, manager: EntityManager = this.dataSource.manager): Promise<DeletedToken[]> {
    const repo = manager.getRepository(AccessToken);
    const rows = await repo.find({ select: { id: true, userId: true, applicationId: true, description: true, scope: true }, where });
    if (rows.length) await repo.delete({ id: In(rows.map((t) => t.id)) });
    return rows;
  }

  /**
   * How many access tokens one user holds (`userId`), one application has (`applicationId`) or there are (`{}`),
   * the first 100 by id (a bulk revocation's entry), and whether they are one user's.
   */
  async firstTokens(where: { userId: number } | { applicationId: number } | Record<string, never>): Promise<{ count: number; first: DeletedToken[]; oneUser: number | null }> {
    const repo = this.dataSource.getRepository(AccessToken);
    const users = await repo.createQueryBuilder('t').select('DISTINCT t.user_id', 'user').where(where).limit(2).getRawMany<{ user: number }>();
    const [count, first] = await Promise.all([
      repo.count({ where }),
      repo.find({ select: { id: true, userId: true, applicationId: true, description: true, scope: true }, where, order: { id: 'ASC' }, take: 100 }),
    ]);
    return { count, first, oneUser: users.length === 1 ? Number(users[0].user) : null };
  }

  /**
   * Locks one access token's row in the caller's transaction (`FOR UPDATE` on MySQL; SQLite's transaction
   * holds the write lock): false when it is gone. A second rotation of the same token waits here, then finds
   * it gone.
   */
  async lockAccessToken(id: number, manager: EntityManager): Promise<boolean> {
    const rows = (await manager.query(`SELECT id FROM oauth2_access_token WHERE id = ?${this.transactions.forUpdate}`, [id])) as unknown[];
    return rows.length === 1;
  }

  /** The live refresh token issued with access token `fromId` belongs to `toId` now (rotation of an application token); how many moved. */
  async repointRefreshTokens(fromId: number, toId: number, now: Date, manager: EntityManager): Promise<number> {
    const result = await manager.getRepository(RefreshToken).update({ accessTokenId: fromId, revokedAt: IsNull() }, { accessTokenId: toId, modified: now });
    return result.affected ?? 0;
  }

  findRefreshToken(tokenHash: string): Promise<RefreshToken | null> {
    return this.dataSource.getRepository(RefreshToken).findOneBy({ tokenHash });
  }

  /** `UPDATE … SET revoked_at = now WHERE id = ? AND revoked_at IS NULL`: true for the one caller that retired it. */
  async retireRefreshToken(id: number, now: Date): Promise<boolean> {
    const result = await this.dataSource.getRepository(RefreshToken).update({ id, revokedAt: IsNull() }, { revokedAt: now, modified: now });
    return result.affected === 1;
  }

  /**
   * The lock that makes "a reused refresh token kills its whole family" hold under races (SPEC §5): issuing
   * into a family and revoking a family both start by writing the family's row, so they serialise (a row
   * lock on MySQL, the write lock on SQLite), and an issue that comes after a revocation sees it.
   */
  async lockFamily(manager: EntityManager, family: string): Promise<{ revoked: boolean }> {
    const ignore = this.transactions.isMysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
    await manager.query(`${ignore} INTO oauth2_token_family (family, revoked_at) VALUES (?, NULL)`, [family]);
    await manager.query('UPDATE oauth2_token_family SET revoked_at = revoked_at WHERE family = ?', [family]);
    const [row] = await manager.query('SELECT revoked_at FROM oauth2_token_family WHERE family = ?', [family]);
    return { revoked: row?.revoked_at != null };
  }

  /** In one transaction, under the family's lock: the family marked revoked, its refresh tokens stamped, its access tokens deleted. */
  revokeFamily(family: string, now: Date): Promise<{ accessTokens: DeletedToken[]; refreshTokens: number }> {
    return this.transactions.run(async (manager) => {
      await this.lockFamily(manager, family);
      await manager.query('UPDATE oauth2_token_family SET revoked_at = ? WHERE family = ?', [this.prepared.date(now), family]);
      const stamped = await manager.getRepository(RefreshToken).update({ family, revokedAt: IsNull() }, { revokedAt: now, modified: now });
      const accessTokens = await this.deleteAccessTokens({ family }, manager);
      return { accessTokens, refreshTokens: stamped.affected ?? 0 };
    });
  }

  /** MAX(created) of the access tokens and of the live refresh tokens a cut-off would cover, as the database returns them (index reads). */
  async newestCreated(userId: number | null, manager: EntityManager = this.dataSource.manager): Promise<[unknown, unknown]> {
    const where = userId === null ? '' : 'WHERE user_id = ?';
    const params = userId === null ? [] : [userId];
    const [a] = await manager.query(`SELECT MAX(created) AS newest FROM oauth2_access_token ${where}`, params);
    const [r] = await manager.query(`SELECT MAX(created) AS newest FROM oauth2_refresh_token ${where ? `${where} AND` : 'WHERE'} revoked_at IS NULL`, params);
    return [a?.newest, r?.newest];
  }

  /** Writes a user's (or, userId null, the system's) token cut-off. */
  async writeCutoff(manager: EntityManager, userId: number | null, cutoff: Date): Promise<void> {
    if (userId === null) await manager.getRepository(RevocationCutoff).update({ id: 1 }, { tokensRevokedBefore: cutoff });
    else await manager.getRepository(User).update({ id: userId }, { tokensRevokedBefore: cutoff });
  }

  /** Access tokens, and refresh tokens not revoked, of one user or everyone. */
  async countTokens(userId: number | null): Promise<{ accessTokens: number; refreshTokens: number }> {
    const by = userId === null ? {} : { userId };
    const [accessTokens, refreshTokens] = await Promise.all([
      this.dataSource.getRepository(AccessToken).countBy(by),
      this.dataSource.getRepository(RefreshToken).countBy({ ...by, revokedAt: IsNull() }),
    ]);
    return { accessTokens, refreshTokens };
  }

  /** False before the database is connected and after it is closed (the last flush at shutdown asks). */
  get connected(): boolean {
    return this.dataSource.isInitialized;
  }

  /**
   * Writes buffered uses as one `UPDATE … SET last_used = CASE id WHEN ? THEN ? … END, last_used_ip = CASE id
   * WHEN ? THEN ? … END WHERE id IN (…)`; rows written.
   */
  async writeLastUsed(stamps: [number, LastUse][]): Promise<number> {
    return (await this.lastUsedUpdate(stamps).execute()).affected ?? 0;
  }

  /**
   * Every statement of the module that runs on a timer or over many rows, with representative parameters,
   * built by the functions the code runs them with: the plan test (test/statement-plans.e2e-spec.ts) reads
   * each one's plan on a seeded table and fails on a scan of a whole table or a dependent subquery.
   */
  periodicStatements(sample: { userId: number; now: Date }): PlannedStatement[] {
    const { now } = sample;
    const [lastUsedSql, lastUsedParams] = this.lastUsedUpdate([[1, { at: now, ip: '192.0.2.1' }], [2, { at: now, ip: '2001:db8::1' }]]).getQueryAndParameters();
    return [
      ...this.cleanUp.periodicStatements(sample),
      this.codes.expiredStatement(now, CLEARTOKENS_BATCH),
      { name: 'last-used flush', sql: lastUsedSql, params: lastUsedParams },
      ...this.expiring.periodicStatements(now),
    ];
  }

  private lastUsedUpdate(stamps: [number, LastUse][]) {
    const params: Record<string, unknown> = {};
    const times: string[] = [];
    const addresses: string[] = [];
    stamps.forEach(([id, use], n) => {
      params[`id${n}`] = id;
      params[`at${n}`] = use.at;
      // The column's width: a valid address is at most 45 characters, but an IPv6 zone could run longer.
      params[`ip${n}`] = use.ip.slice(0, 45);
      times.push(`WHEN :id${n} THEN :at${n}`);
      addresses.push(`WHEN :id${n} THEN :ip${n}`);
    });
    return this.dataSource
      .createQueryBuilder()
      .update(AccessToken)
      .set({ lastUsed: () => `CASE id ${times.join(' ')} END`, lastUsedIp: () => `CASE id ${addresses.join(' ')} END` })
      .where('id IN (:...ids)', { ids: stamps.map(([id]) => id) })
      .setParameters(params);
  }
}
