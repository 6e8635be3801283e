import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource, EntityManager, In, IsNull, SelectQueryBuilder } from 'typeorm';
import { Awaitable, andThen } from '../common/awaitable';
import { limitedStatement, PlannedStatement } from '../database/batch-statements';
import { PreparedStatements } from '../database/prepared-statements';
import type { RevocationJob } from '../users/revocation-job.entity';
import { CLEANUP_BATCH } from '../users/revocation-jobs';
import { User } from '../users/user.entity';
import { FRONT_DOOR_FACT_COLUMNS, keepFrontDoorFacts } from '../users/front-door-facts';
import type { SessionEndReason } from './session-end-reason';
import { Session } from './session.entity';

/** The user fields a session list and the limits read to leave out what the user's cut-off ended. */
export type CutOffOwner = Pick<User, 'sessionsEndedBefore' | 'sessionsKeptId'>;

/** A session with its user, as one statement reads them. */
export interface SessionWithUser {
  session: Session;
  user: User;
}

/** The columns the sweeper stamps: sessions past their absolute lifetime, or idle too long. */
export type ExpiryColumn = 'absolute_expires' | 'expires';

/**
 * Every statement of the sessions module (issue 29): the hot lookups through PreparedStatements, the
 * batch statements in each database's own form, and the lists' query builders. SessionsService,
 * SessionSweeper and SessionWatcher hold the rules and call these.
 */
@Injectable()
export class SessionsRepository {
  private resolveSql?: string;
  private touchSql?: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedStatements,
  ) {}

  /** The lock rows of the session limits exist before the transaction (inserting them inside it would deadlock). */
  async ensureLockRows(names: string[]): Promise<void> {
    const ignore = this.prepared.isMysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
    for (const name of names) await this.prepared.run(`${ignore} INTO session_lock (name) VALUES (?)`, [name]);
  }

  /**
   * A write, not only SELECT … FOR UPDATE: it locks the rows (in key order) and so serialises logins on one
   * server, and on a Galera cluster, where row locks are local to a member, two writes of one row conflict
   * at commit and the loser is retried (Transactions).
   */
  async lockRows(manager: EntityManager, names: string[]): Promise<void> {
    await manager.query(`UPDATE session_lock SET version = version + 1 WHERE name IN (${names.map(() => '?').join(', ')})`, names);
  }

  async insert(manager: EntityManager, values: Omit<Session, 'id' | 'user'>): Promise<Session> {
    const result = await manager.getRepository(Session).insert(values);
    return { ...values, id: result.identifiers[0].id as number } as Session;
  }

  /**
   * The live sessions of a group beyond the newest `keep` (by creation, ties by id), at most one clean-up
   * batch of them: a user with many revoked-but-not-yet-cleaned rows costs one index range.
   */
  async overLimit(manager: EntityManager, column: 'userId' | 'ipAddress', value: number | string, keep: number, now: Date, owner?: CutOffOwner): Promise<Session[]> {
    const qb = this.live(manager, now).select(['s.id', 's.userId', 's.ipAddress']).andWhere(`s.${column} = :value`, { value });
    if (owner) this.notCutOff(qb, owner);
    return qb.orderBy('s.created', 'DESC').addOrderBy('s.id', 'DESC').offset(keep).limit(CLEANUP_BATCH).getMany();
  }

  async endByIds(manager: EntityManager, ids: number[], now: Date, reason: SessionEndReason): Promise<void> {
    await manager.getRepository(Session).update({ id: In(ids), endedAt: IsNull() }, { endedAt: now, endedReason: reason });
  }

  /** The session a cookie's hash names, live or ended, with its user, in one statement. */
  findByKeyHash(keyHash: string): Awaitable<SessionWithUser | null> {
    const p = this.prepared;
    this.resolveSql ??=
      `SELECT ${p.columnList(Session, 's')}, ${p.columnList(User, 'u')}, ${FRONT_DOOR_FACT_COLUMNS('u')} FROM ${p.table(Session)} s ` +
      `JOIN ${p.table(User)} u ON u.id = s.user_id WHERE s.key_hash = ?`;
    return andThen(p.firstByKey(this.resolveSql, keyHash), (row) => {
      if (!row) return null;
      const user = keepFrontDoorFacts(p.hydrateAt(User, row, p.width(Session)), row, p.width(Session) + p.width(User));
      return { session: p.hydrateAt(Session, row), user };
    });
  }

  findById(id: number): Promise<Session | null> {
    return this.dataSource.getRepository(Session).findOneBy({ id });
  }

  /** Sessions by id with the user fields their validity rule reads (the session event streams). */
  findWithOwners(ids: number[]): Promise<Session[]> {
    return this.dataSource.getRepository(Session).find({
      select: {
        id: true, created: true, expires: true, absoluteExpires: true, endedAt: true, endedReason: true,
        user: { id: true, isActive: true, externalAccount: true, sessionsEndedBefore: true, sessionsEndReason: true, sessionsKeptId: true },
      },
      relations: { user: true },
      where: { id: In(ids) },
    });
  }

  /** Slides a live session's idle expiry. */
  slide(id: number, lastSeen: Date, expires: Date): Promise<number> {
    const p = this.prepared;
    this.touchSql ??= `UPDATE ${p.table(Session)} SET last_seen = ?, expires = ? WHERE id = ? AND ended_at IS NULL`;
    return p.run(this.touchSql, [p.date(lastSeen), p.date(expires), id]);
  }

  /** Ends the live sessions among `ids` (of `userId` when given); how many it ended. */
  async endLive(ids: number[], userId: number | undefined, now: Date, reason: SessionEndReason): Promise<number> {
    const qb = this.dataSource.createQueryBuilder().update(Session).set({ endedAt: now, endedReason: reason }).where('ended_at IS NULL');
    qb.andWhere('id IN (:...ids)', { ids });
    if (userId !== undefined) qb.andWhere('user_id = :userId', { userId });
    return (await qb.execute()).affected ?? 0;
  }

  /**
   * Ends each of these live sessions on its own statement and returns those this call ended, so that two
   * racing ends of one session report it once (SPEC §23: exactly one end per session).
   */
  async endLiveReturning(ids: number[], userId: number | undefined, now: Date, reason: SessionEndReason): Promise<Pick<Session, 'id' | 'userId' | 'ipAddress' | 'expires' | 'absoluteExpires'>[]> {
    const live = await this.dataSource.getRepository(Session).find({
      select: { id: true, userId: true, ipAddress: true, expires: true, absoluteExpires: true },
      where: { id: In(ids), endedAt: IsNull(), ...(userId !== undefined ? { userId } : {}) },
    });
    const ended = [];
    for (const session of live) if (await this.endLive([session.id], userId, now, reason)) ended.push(session);
    return ended;
  }

  async setLoginEvent(manager: EntityManager, id: number, eventId: number): Promise<void> {
    await manager.getRepository(Session).update({ id }, { loginEventId: eventId });
  }

  /** The creation time of a user's newest live session, as the database returns it (a cut-off is never before it). */
  async newestLiveCreated(manager: EntityManager, userId: number): Promise<unknown> {
    const [{ newest }] = (await manager.query('SELECT MAX(created) AS newest FROM user_session WHERE user_id = ? AND ended_at IS NULL', [userId])) as { newest: unknown }[];
    return newest;
  }

  /** One batch of ending every live session of every user. */
  endEveryoneBatch(now: Date, reason: SessionEndReason, batch: string): Promise<number> {
    return this.prepared.run(this.endEveryoneSql(), [this.prepared.date(now), reason, batch]);
  }

  /** One batch of a user's sessions at or before a cut-off (but `keptId`), stamped with `reason`. */
  endCutOffBatch(job: Pick<RevocationJob, 'userId' | 'cutoff' | 'reason' | 'keptId'>, batch: string): Promise<number> {
    const p = this.prepared;
    const params: unknown[] = [p.date(job.cutoff), job.reason, batch, job.userId, p.date(job.cutoff)];
    if (job.keptId !== null) params.push(job.keptId);
    return p.run(this.endCutOffSql(job.keptId !== null), params);
  }

  /** One sweeper batch: live sessions whose `column` has passed get it as their end and `reason`. */
  stampExpiredBatch(column: ExpiryColumn, reason: SessionEndReason, now: Date, batch: string): Promise<number> {
    return this.prepared.run(this.stampExpiredSql(column, reason), [batch, this.prepared.date(now)]);
  }

  /** The sessions one batch statement ended (`end_batch`), for their events. */
  endedIn(batch: string): Promise<Pick<Session, 'id' | 'userId' | 'ipAddress' | 'endedAt' | 'endedReason'>[]> {
    return this.dataSource.getRepository(Session).find({ select: { id: true, userId: true, ipAddress: true, endedAt: true, endedReason: true }, where: { endBatch: batch } });
  }

  /** One sweeper batch: ended sessions that kept their reason long enough are deleted. */
  deleteEndedBatch(before: Date): Promise<number> {
    return this.prepared.run(this.deleteEndedSql(), [this.prepared.date(before)]);
  }

  /** Every periodic and clean-up statement, with representative parameters, for the plan test. */
  periodicStatements(sample: { userId: number; now: Date }): PlannedStatement[] {
    const now = this.prepared.date(sample.now);
    return [
      { name: 'sessions: sweep absolute', sql: this.stampExpiredSql('absolute_expires', 'absolute_timeout'), params: ['plan', now] },
      { name: 'sessions: sweep idle', sql: this.stampExpiredSql('expires', 'idle_timeout'), params: ['plan', now] },
      { name: 'sessions: delete ended', sql: this.deleteEndedSql(), params: [now] },
      { name: 'sessions: end everyone', sql: this.endEveryoneSql(), params: [now, 'revoked_by_admin', 'plan'] },
      { name: 'sessions: end all of a user', sql: this.endCutOffSql(false), params: [now, 'revoked_by_admin', 'plan', sample.userId, now] },
      { name: 'sessions: end all of a user but one', sql: this.endCutOffSql(true), params: [now, 'logged_out', 'plan', sample.userId, now, 1] },
    ];
  }

  private stampExpiredSql(column: ExpiryColumn, reason: SessionEndReason): string {
    const index = column === 'expires' ? 'IDX_user_session_due_idle' : 'IDX_user_session_due_absolute';
    return limitedStatement(this.prepared.dialect, `UPDATE user_session SET ended_at = ${column}, ended_reason = '${reason}', end_batch = ?`, 'user_session', `ended_at IS NULL AND ${column} <= ?`, CLEANUP_BATCH, index);
  }

  private deleteEndedSql(): string {
    return limitedStatement(this.prepared.dialect, 'DELETE FROM user_session', 'user_session', 'ended_at < ?', CLEANUP_BATCH);
  }

  private endEveryoneSql(): string {
    return limitedStatement(this.prepared.dialect, 'UPDATE user_session SET ended_at = ?, ended_reason = ?, end_batch = ?', 'user_session', 'ended_at IS NULL', CLEANUP_BATCH);
  }

  private endCutOffSql(keepsOne: boolean): string {
    const where = `user_id = ? AND ended_at IS NULL AND created <= ?${keepsOne ? ' AND id <> ?' : ''}`;
    return limitedStatement(this.prepared.dialect, 'UPDATE user_session SET ended_at = ?, ended_reason = ?, end_batch = ?', 'user_session', where, CLEANUP_BATCH, 'IDX_user_session_user_live');
  }

  /** A user's live sessions for a list (its filters and page come after); none of those the cut-off ended. */
  liveListQuery(user: Pick<User, 'id'> & CutOffOwner, now: Date): SelectQueryBuilder<Session> {
    return this.notCutOff(this.live(this.dataSource.manager, now).andWhere('s.userId = :userId', { userId: user.id }), user);
  }

  /** Live sessions of every user (a metric): those of users whose cut-off ended them are left out. */
  countLive(now: Date): Promise<number> {
    return this.allLiveQuery(now).getCount();
  }

  /** Every user's live sessions (`/api/v2/sessions/`, SPEC §22), as countLive counts them. */
  allLiveQuery(now: Date): SelectQueryBuilder<Session> {
    return this.live(this.dataSource.manager, now)
      .innerJoin(User, 'cu', 'cu.id = s.userId')
      .andWhere('(cu.sessionsEndedBefore IS NULL OR s.created > cu.sessionsEndedBefore OR s.id = cu.sessionsKeptId)');
  }

  /** The id and name of each user of a page of sessions (its summary_fields). */
  namesOf(ids: number[]): Promise<Pick<User, 'id' | 'username'>[]> {
    return ids.length ? this.dataSource.getRepository(User).find({ select: { id: true, username: true }, where: { id: In(ids) } }) : Promise.resolve([]);
  }

  /**
   * Live sessions: not ended and not idle too long. A session's idle expiry never passes its absolute one
   * (SessionsService.create and touch cap it there), so `expires > now` also means the absolute lifetime
   * has not passed: the lists and their counts test one index column, where the test of both with an OR
   * cost a count over 500,000 sessions 90 ms instead of 24 on SQLite and 172 instead of 93 on MariaDB.
   */
  private live(manager: EntityManager, now: Date): SelectQueryBuilder<Session> {
    return manager.getRepository(Session).createQueryBuilder('s').where('s.endedAt IS NULL').andWhere('s.expires > :now', { now });
  }

  /** Leaves out sessions at or before the user's cut-off (a range on the list index), keeping the kept one. */
  private notCutOff(qb: SelectQueryBuilder<Session>, user: CutOffOwner): SelectQueryBuilder<Session> {
    if (!user.sessionsEndedBefore) return qb;
    const cutoff = user.sessionsEndedBefore;
    if (user.sessionsKeptId === null) return qb.andWhere('s.created > :cutoff', { cutoff });
    return qb.andWhere(new Brackets((b) => b.where('s.created > :cutoff', { cutoff }).orWhere('s.id = :kept', { kept: user.sessionsKeptId })));
  }
}
