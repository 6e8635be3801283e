import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Brackets, DataSource, EntityManager, In, IsNull, SelectQueryBuilder } from 'typeorm';
import { AuthMetrics } from '../common/auth-metrics';
import { Clock } from '../common/clock';
import { andThen, Awaitable } from '../common/awaitable';
import { sha256Hex } from '../common/secret-box';
import { inBatches, limitedStatement } from '../database/batch-statements';
import { PreparedStatements } from '../database/prepared-statements';
import { Transactions } from '../database/transactions';
import { SettingsService } from '../settings/settings.service';
import { AccountPolicy } from '../users/account-policy';
import type { RevocationJob } from '../users/revocation-job.entity';
import { CLEANUP_BATCH, latest, RevocationJobs } from '../users/revocation-jobs';
import { User } from '../users/user.entity';
import { isSessionEndReason, SessionEndReason } from './session-end-reason';
import { Session } from './session.entity';
import { RequestTrace } from '../common/request-context';

export interface NewSession {
  token: string;
  session: Session;
  /** Seconds the cookie lives: min(SESSION_COOKIE_AGE, what is left of the absolute lifetime). */
  timeoutSeconds: number;
}

/** What the session rule reads of its user: the account policy's fields and the sessions cut-off. */
export type SessionOwner = Pick<User, 'isActive' | 'externalAccount' | 'sessionsEndedBefore' | 'sessionsEndReason' | 'sessionsKeptId'>;

/** A session created at or before its user's cut-off is over with the cut-off's reason, but for the one kept. */
function cutOffReason(session: Pick<Session, 'id' | 'created'>, user: Pick<SessionOwner, 'sessionsEndedBefore' | 'sessionsEndReason' | 'sessionsKeptId'>): SessionEndReason | null {
  const cutoff = user.sessionsEndedBefore;
  if (!cutoff || session.created.getTime() > cutoff.getTime() || session.id === user.sessionsKeptId) return null;
  return isSessionEndReason(user.sessionsEndReason) ? user.sessionsEndReason : 'revoked_by_admin';
}

export interface ResolvedSession {
  session: Session;
  user: User;
}

/**
 * Session storage and the session limits (SPEC §2–§3). A session is created and the limits are
 * enforced in one transaction that first locks the user's and the address's lock rows, so racing
 * logins (on any node) are serialised and exactly the newest N survive.
 */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger('sessions');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: Transactions,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly metrics: AuthMetrics,
    private readonly prepared: PreparedStatements,
    private readonly policy: AccountPolicy,
    private readonly jobs: RevocationJobs,
  ) {}

  private resolveSql?: string;
  private touchSql?: string;

  private get repo() {
    return this.dataSource.getRepository(Session);
  }

  async create(user: User, ipAddress: string, userAgent: string, trace: RequestTrace): Promise<NewSession> {
    const perUser = this.settings.get('SESSIONS_PER_USER');
    const perIp = this.settings.get('SESSIONS_PER_IP');
    const locks = [perUser > 0 ? `user:${user.id}` : null, perIp > 0 ? `ip:${ipAddress}` : null].filter((l): l is string => !!l).sort();
    await this.ensureLockRows(locks);
    const token = randomBytes(32).toString('base64url');
    const ended: Session[] = [];
    const session = await this.transactions.run(async (manager) => {
      if (locks.length) {
        // A write, not only SELECT … FOR UPDATE: it locks the rows (in key order) and so serialises logins on
        // one server, and on a Galera cluster, where row locks are local to a member, two writes of one row
        // conflict at commit and the loser is retried (Transactions), so racing logins on any node still
        // leave exactly the newest N.
        await manager.query(`UPDATE session_lock SET version = version + 1 WHERE name IN (${locks.map(() => '?').join(', ')})`, locks);
      }
      // Creation time is taken under the lock, so "newest" follows the order logins were serialised in.
      const now = this.clock.now();
      const age = this.settings.get('SESSION_COOKIE_AGE');
      const absolute = this.settings.get('SESSION_ABSOLUTE_TIMEOUT');
      const absoluteExpires = absolute > 0 ? new Date(now.getTime() + absolute * 1000) : null;
      const expires = new Date(Math.min(now.getTime() + age * 1000, absoluteExpires?.getTime() ?? Infinity));
      const values = {
        keyHash: sha256Hex(token), userId: user.id, ipAddress, userAgent: userAgent.slice(0, 512),
        created: now, lastSeen: now, expires, absoluteExpires, endedAt: null, endedReason: null,
      };
      const result = await manager.getRepository(Session).insert(values);
      const created = { ...values, id: result.identifiers[0].id as number } as Session;
      if (perUser > 0) ended.push(...(await this.endOverLimit(manager, 'userId', user.id, perUser, now, user)));
      if (perIp > 0) ended.push(...(await this.endOverLimit(manager, 'ipAddress', ipAddress, perIp, now)));
      return created;
    });
    if (ended.length) this.metrics.sessionsEnded.inc({ reason: 'session_limit' }, ended.length);
    for (const s of ended) {
      this.logger.log({ event: 'session_ended', reason: 'session_limit', session_id: s.id, user_id: s.userId, client_ip: s.ipAddress, ...trace });
    }
    return { token, session, timeoutSeconds: Math.max(0, Math.floor((session.expires.getTime() - session.created.getTime()) / 1000)) };
  }

  /**
   * The lock rows exist before the transaction: inserting them inside it would take shared locks and deadlock.
   * Through PreparedStatements, which runs a statement again on a lock conflict: on a Galera cluster the
   * first logins of a user on several members insert the same row at once and all but one lose certification.
   */
  private async ensureLockRows(names: string[]): Promise<void> {
    if (!names.length) return;
    const ignore = this.transactions.isMysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
    for (const name of names) await this.prepared.run(`${ignore} INTO session_lock (name) VALUES (?)`, [name]);
  }

  /**
   * Ends every live session of the group beyond the newest `limit` (by creation, ties by id). Only ids
   * past the limit are read, at most one clean-up batch of them: a user with many revoked-but-not-yet-
   * cleaned rows costs one index range, never the whole list.
   */
  private async endOverLimit(
    manager: EntityManager,
    column: 'userId' | 'ipAddress',
    value: number | string,
    limit: number,
    now: Date,
    owner?: Pick<User, 'sessionsEndedBefore' | 'sessionsKeptId'>,
  ): Promise<Session[]> {
    const qb = this.liveSessions(manager, now).select(['s.id', 's.userId', 's.ipAddress']).andWhere(`s.${column} = :value`, { value });
    // Sessions the owner's cut-off already ended are not counted against the limit (the user was just read by the login).
    if (owner) this.notCutOff(qb, owner);
    const surplus = await qb.orderBy('s.created', 'DESC').addOrderBy('s.id', 'DESC').offset(limit).limit(CLEANUP_BATCH).getMany();
    if (surplus.length) {
      await manager.getRepository(Session).update({ id: In(surplus.map((s) => s.id)), endedAt: IsNull() }, { endedAt: now, endedReason: 'session_limit' });
    }
    return surplus;
  }

  private liveSessions(manager: EntityManager, now: Date) {
    return manager
      .getRepository(Session)
      .createQueryBuilder('s')
      .where('s.endedAt IS NULL')
      .andWhere('s.expires > :now', { now })
      .andWhere(new Brackets((b) => b.where('s.absoluteExpires IS NULL').orWhere('s.absoluteExpires > :now', { now })));
  }

  /** The session a cookie names, live or ended, with its user; null when unknown (at once for a malformed cookie). */
  resolve(token: string): Awaitable<ResolvedSession | null> {
    if (!token || token.length > 128) return null;
    const p = this.prepared;
    this.resolveSql ??=
      `SELECT ${p.columnList(Session, 's')}, ${p.columnList(User, 'u')} FROM ${p.table(Session)} s ` +
      `JOIN ${p.table(User)} u ON u.id = s.user_id WHERE s.key_hash = ?`;
    return andThen(p.first(this.resolveSql, [sha256Hex(token)]), (row) =>
      row ? { session: p.hydrateAt(Session, row), user: p.hydrateAt(User, row, p.width(Session)) } : null,
    );
  }

  /**
   * The one validity rule for a session (SPEC §2, §3): why it can no longer authenticate, or null.
   * Over when it was ended, timed out (idle or absolute), or its user fails the account policy.
   */
  validate(session: Session, user: SessionOwner, now = this.clock.now()): SessionEndReason | null {
    return this.endedReason(session, now) ?? cutOffReason(session, user) ?? this.policy.refusal(user, 'session');
  }

  async findById(id: number): Promise<Session | null> {
    return this.repo.findOneBy({ id });
  }

  /** Why a session is over, if it is: ended earlier, or expired just now. */
  endedReason(session: Session, now: Date): SessionEndReason | null {
    if (session.endedAt) return (session.endedReason as SessionEndReason) ?? 'logged_out';
    if (session.absoluteExpires && session.absoluteExpires.getTime() <= now.getTime()) return 'absolute_timeout';
    if (session.expires.getTime() <= now.getTime()) return 'idle_timeout';
    return null;
  }

  /**
   * Slides the idle expiry; returns the seconds the session now has left. A burst of requests slides
   * the expiry by less than a second each: one write a second is enough, and the others answer at once.
   */
  touch(session: Session, now: Date): Awaitable<number> {
    const age = this.settings.get('SESSION_COOKIE_AGE');
    const cap = session.absoluteExpires?.getTime() ?? Infinity;
    const expires = new Date(Math.min(now.getTime() + age * 1000, cap));
    const due = expires.getTime() - session.expires.getTime() >= 1000 || now.getTime() - session.lastSeen.getTime() >= 1000;
    session.expires = expires;
    session.lastSeen = now;
    const left = Math.max(0, Math.round((expires.getTime() - now.getTime()) / 1000));
    if (!due) return left;
    const p = this.prepared;
    this.touchSql ??= `UPDATE ${p.table(Session)} SET last_seen = ?, expires = ? WHERE id = ? AND ended_at IS NULL`;
    return p.run(this.touchSql, [p.date(now), p.date(expires), session.id]).then(() => left);
  }

  secondsLeft(session: Session, now: Date): number {
    return Math.max(0, Math.round((session.expires.getTime() - now.getTime()) / 1000));
  }

  /** Ends the given live sessions (by id, and owner when given) with a reason; returns how many it ended. */
  async end(where: { ids: number[]; userId?: number }, reason: SessionEndReason, trace: RequestTrace): Promise<number> {
    if (!where.ids.length) return 0;
    const now = this.clock.now();
    const qb = this.repo.createQueryBuilder().update(Session).set({ endedAt: now, endedReason: reason }).where('ended_at IS NULL');
    qb.andWhere('id IN (:...ids)', { ids: where.ids });
    if (where.userId !== undefined) qb.andWhere('user_id = :userId', { userId: where.userId });
    const count = (await qb.execute()).affected ?? 0;
    if (count) this.metrics.sessionsEnded.inc({ reason }, count);
    if (count) this.logger.log({ event: 'session_ended', reason, count, user_id: where.userId, session_ids: where.ids, ...trace });
    return count;
  }

  /**
   * Ends every session of a user (but `keptId`) at once, whatever their number (issue 21): one write of
   * the user's cut-off, which the validity rule reads on every node at the next request, and a clean-up
   * job that stamps the rows afterwards in batches. The answer never waits for the rows.
   */
  async endAllOf(userId: number, reason: SessionEndReason, trace: RequestTrace, keptId: number | null = null): Promise<void> {
    const now = this.clock.now();
    await this.transactions.run(async (manager) => {
      // Never before the newest existing session: one stamped by a node whose clock runs ahead is covered too.
      const [{ newest }] = await manager.query('SELECT MAX(created) AS newest FROM user_session WHERE user_id = ? AND ended_at IS NULL', [userId]);
      const cutoff = latest(now, newest);
      await manager.getRepository(User).update({ id: userId }, { sessionsEndedBefore: cutoff, sessionsEndReason: reason, sessionsKeptId: keptId });
      await this.jobs.add(manager, { kind: 'sessions', userId, cutoff, reason, keptId, created: now });
    });
    this.logger.log({ event: 'sessions_cut_off', reason, user_id: userId, kept_session_id: keptId ?? undefined, ...trace });
  }

  /** Every live session of every user (`expire_sessions` without `--user`), in batches; returns how many. */
  async endEveryone(reason: SessionEndReason): Promise<number> {
    const p = this.prepared;
    const sql = limitedStatement(p.dialect, 'UPDATE user_session SET ended_at = ?, ended_reason = ?', 'user_session', 'ended_at IS NULL', CLEANUP_BATCH);
    let total = 0;
    await inBatches(async () => {
      const count = await p.run(sql, [p.date(this.clock.now()), reason]);
      total += count;
      return count >= CLEANUP_BATCH;
    });
    if (total) this.metrics.sessionsEnded.inc({ reason }, total);
    this.logger.log({ event: 'session_ended', reason, count: total });
    return total;
  }

  /** One clean-up batch of a sessions job: stamps up to CLEANUP_BATCH cut-off rows with the job's reason. */
  async cleanupBatch(job: RevocationJob): Promise<number> {
    const p = this.prepared;
    const where = `user_id = ? AND ended_at IS NULL AND created <= ?${job.keptId !== null ? ' AND id <> ?' : ''}`;
    const sql = limitedStatement(p.dialect, 'UPDATE user_session SET ended_at = ?, ended_reason = ?', 'user_session', where, CLEANUP_BATCH);
    const params: unknown[] = [p.date(job.cutoff), job.reason, job.userId, p.date(job.cutoff)];
    if (job.keptId !== null) params.push(job.keptId);
    const count = await p.run(sql, params);
    if (count) this.metrics.sessionsEnded.inc({ reason: job.reason }, count);
    return count;
  }

  /** A user's live sessions, for a list (its filters and page come after); none of those the user's cut-off ended. */
  liveQuery(user: Pick<User, 'id' | 'sessionsEndedBefore' | 'sessionsKeptId'>) {
    const qb = this.liveSessions(this.dataSource.manager, this.clock.now()).andWhere('s.userId = :userId', { userId: user.id });
    return this.notCutOff(qb, user);
  }

  /** Leaves out sessions at or before the user's cut-off (a range on the list index), keeping the kept one. */
  private notCutOff(qb: SelectQueryBuilder<Session>, user: Pick<User, 'sessionsEndedBefore' | 'sessionsKeptId'>) {
    if (!user.sessionsEndedBefore) return qb;
    const cutoff = user.sessionsEndedBefore;
    if (user.sessionsKeptId === null) return qb.andWhere('s.created > :cutoff', { cutoff });
    return qb.andWhere(new Brackets((b) => b.where('s.created > :cutoff', { cutoff }).orWhere('s.id = :kept', { kept: user.sessionsKeptId })));
  }

  /** Live sessions of every user (a metric): those of users whose cut-off ended them are left out. */
  async countLive(): Promise<number> {
    return this.liveSessions(this.dataSource.manager, this.clock.now())
      .innerJoin(User, 'cu', 'cu.id = s.userId')
      .andWhere('(cu.sessionsEndedBefore IS NULL OR s.created > cu.sessionsEndedBefore OR s.id = cu.sessionsKeptId)')
      .getCount();
  }
}
