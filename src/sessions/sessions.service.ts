import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Brackets, DataSource, EntityManager, In, IsNull } from 'typeorm';
import { AuthMetrics } from '../common/auth-metrics';
import { Clock } from '../common/clock';
import { sha256Hex } from '../common/secret-box';
import { PreparedStatements } from '../database/prepared-statements';
import { Transactions } from '../database/transactions';
import { SettingsService } from '../settings/settings.service';
import { AccountPolicy } from '../users/account-policy';
import { User } from '../users/user.entity';
import { SessionEndReason } from './session-end-reason';
import { Session } from './session.entity';

export interface NewSession {
  token: string;
  session: Session;
  /** Seconds the cookie lives: min(SESSION_COOKIE_AGE, what is left of the absolute lifetime). */
  timeoutSeconds: number;
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
  ) {}

  private resolveSql?: string;

  private get repo() {
    return this.dataSource.getRepository(Session);
  }

  async create(user: User, ipAddress: string, userAgent: string): Promise<NewSession> {
    const perUser = this.settings.get('SESSIONS_PER_USER');
    const perIp = this.settings.get('SESSIONS_PER_IP');
    const locks = [perUser > 0 ? `user:${user.id}` : null, perIp > 0 ? `ip:${ipAddress}` : null].filter((l): l is string => !!l).sort();
    await this.ensureLockRows(locks);
    const token = randomBytes(32).toString('base64url');
    const ended: Session[] = [];
    const session = await this.transactions.run(async (manager) => {
      if (locks.length) {
        await manager.query(`SELECT name FROM session_lock WHERE name IN (${locks.map(() => '?').join(', ')}) ORDER BY name${this.transactions.forUpdate}`, locks);
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
      if (perUser > 0) ended.push(...(await this.endOverLimit(manager, 'userId', user.id, perUser, now)));
      if (perIp > 0) ended.push(...(await this.endOverLimit(manager, 'ipAddress', ipAddress, perIp, now)));
      return created;
    });
    if (ended.length) this.metrics.sessionsEnded.inc({ reason: 'session_limit' }, ended.length);
    for (const s of ended) {
      this.logger.log({ event: 'session_ended', reason: 'session_limit', session_id: s.id, user_id: s.userId, client_ip: s.ipAddress });
    }
    return { token, session, timeoutSeconds: Math.max(0, Math.floor((session.expires.getTime() - session.created.getTime()) / 1000)) };
  }

  /** The lock rows exist before the transaction: inserting them inside it would take shared locks and deadlock. */
  private async ensureLockRows(names: string[]): Promise<void> {
    if (!names.length) return;
    const ignore = this.transactions.isMysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
    for (const name of names) await this.dataSource.query(`${ignore} INTO session_lock (name) VALUES (?)`, [name]);
  }

  /** Ends every live session of the group beyond the newest `limit` (by creation, ties by id). */
  private async endOverLimit(manager: EntityManager, column: 'userId' | 'ipAddress', value: number | string, limit: number, now: Date): Promise<Session[]> {
    const live = await this.liveSessions(manager, now)
      .andWhere(`s.${column} = :value`, { value })
      .orderBy('s.created', 'DESC')
      .addOrderBy('s.id', 'DESC')
      .getMany();
    const surplus = live.slice(limit);
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

  /** The session a cookie names, live or ended, with its user; null when unknown. */
  async resolve(token: string): Promise<ResolvedSession | null> {
    if (!token || token.length > 128) return null;
    const p = this.prepared;
    this.resolveSql ??=
      `SELECT ${p.columns(Session, 's')}, ${p.columns(User, 'u')} FROM ${p.table(Session)} s ` +
      `JOIN ${p.table(User)} u ON u.id = s.user_id WHERE s.key_hash = ?`;
    const [row] = await p.rows(this.resolveSql, [sha256Hex(token)]);
    return row ? { session: p.hydrate(Session, row, 's'), user: p.hydrate(User, row, 'u') } : null;
  }

  /**
   * The one validity rule for a session (SPEC §2, §3): why it can no longer authenticate, or null.
   * Over when it was ended, timed out (idle or absolute), or its user fails the account policy.
   */
  validate(session: Session, user: Pick<User, 'isActive' | 'externalAccount'>, now = this.clock.now()): SessionEndReason | null {
    return this.endedReason(session, now) ?? this.policy.refusal(user);
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

  /** Slides the idle expiry; returns the seconds the session now has left. */
  async touch(session: Session, now: Date): Promise<number> {
    const age = this.settings.get('SESSION_COOKIE_AGE');
    const cap = session.absoluteExpires?.getTime() ?? Infinity;
    const expires = new Date(Math.min(now.getTime() + age * 1000, cap));
    // A burst of requests slides the expiry by less than a second each: one write a second is enough.
    if (expires.getTime() - session.expires.getTime() >= 1000 || now.getTime() - session.lastSeen.getTime() >= 1000) {
      await this.repo.update({ id: session.id, endedAt: IsNull() }, { lastSeen: now, expires });
    }
    session.expires = expires;
    session.lastSeen = now;
    return Math.max(0, Math.round((expires.getTime() - now.getTime()) / 1000));
  }

  secondsLeft(session: Session, now: Date): number {
    return Math.max(0, Math.round((session.expires.getTime() - now.getTime()) / 1000));
  }

  /** Ends the given live sessions with a reason; returns how many it ended. */
  async end(where: { ids?: number[]; userId?: number; exceptId?: number }, reason: SessionEndReason): Promise<number> {
    const now = this.clock.now();
    const qb = this.repo.createQueryBuilder().update(Session).set({ endedAt: now, endedReason: reason }).where('ended_at IS NULL');
    if (where.ids) {
      if (!where.ids.length) return 0;
      qb.andWhere('id IN (:...ids)', { ids: where.ids });
    }
    if (where.userId !== undefined) qb.andWhere('user_id = :userId', { userId: where.userId });
    if (where.exceptId !== undefined) qb.andWhere('id <> :exceptId', { exceptId: where.exceptId });
    const result = await qb.execute();
    const count = result.affected ?? 0;
    if (count) this.metrics.sessionsEnded.inc({ reason }, count);
    if (count) this.logger.log({ event: 'session_ended', reason, count, user_id: where.userId, session_ids: where.ids });
    return count;
  }

  /** A user's live sessions, for a list (its filters and page come after). */
  liveQuery(userId: number) {
    return this.liveSessions(this.dataSource.manager, this.clock.now()).andWhere('s.userId = :userId', { userId });
  }

  async countLive(): Promise<number> {
    return this.liveSessions(this.dataSource.manager, this.clock.now()).getCount();
  }
}
