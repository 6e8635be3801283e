import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AuthMetrics } from '../common/auth-metrics';
import { Clock } from '../common/clock';
import { andThen, Awaitable } from '../common/awaitable';
import { NO_REQUEST, RequestTrace } from '../common/request-context';
import { sha256Hex } from '../common/secret-box';
import { inBatches } from '../database/batch-statements';
import { Transactions } from '../database/transactions';
import { AuthenticationRecord } from '../common/authentication-record';
import { SettingsService } from '../settings/settings.service';
import { AccountPolicy } from '../users/account-policy';
import type { RevocationJob } from '../users/revocation-job.entity';
import { CLEANUP_BATCH, latest, RevocationJobs } from '../users/revocation-jobs';
import { User } from '../users/user.entity';
import { UsersRepository } from '../users/users.repository';
import { isSessionEndReason, SessionEndReason } from './session-end-reason';
import { Session } from './session.entity';
import type { SessionLimits } from './session-limit.interceptor';
import { SessionsRepository, SessionWithUser } from './sessions.repository';

export interface NewSession {
  token: string;
  session: Session;
  /** Seconds the cookie lives: min(SESSION_COOKIE_AGE, what is left of the absolute lifetime). */
  timeoutSeconds: number;
}

/** What the session rule reads of its user: the account policy's fields and the sessions cut-off. */
export type SessionOwner = Pick<User, 'isActive' | 'externalAccount' | 'sessionsEndedBefore' | 'sessionsEndReason' | 'sessionsKeptId'> & Partial<Pick<User, 'accountExpires'>>;

/** A session created at or before its user's cut-off is over with the cut-off's reason, but for the one kept. */
function cutOffReason(session: Pick<Session, 'id' | 'created'>, user: Pick<SessionOwner, 'sessionsEndedBefore' | 'sessionsEndReason' | 'sessionsKeptId'>): SessionEndReason | null {
  const cutoff = user.sessionsEndedBefore;
  if (!cutoff || session.created.getTime() > cutoff.getTime() || session.id === user.sessionsKeptId) return null;
  return isSessionEndReason(user.sessionsEndReason) ? user.sessionsEndReason : 'revoked_by_admin';
}

export type ResolvedSession = SessionWithUser;

/**
 * The session rules (SPEC §2–§3): creation under the session limits (which SessionLimitInterceptor decides
 * for the login's request), the validity rule, sliding expiry, ending. A session is created and the limits
 * are enforced in one transaction that first locks the user's and the address's lock rows, so racing logins (on any node) are serialised and exactly the
 * newest N survive. Every statement is SessionsRepository's.
 */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger('sessions');

  constructor(
    private readonly repository: SessionsRepository,
    private readonly users: UsersRepository,
    private readonly transactions: Transactions,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly metrics: AuthMetrics,
    private readonly policy: AccountPolicy,
    private readonly jobs: RevocationJobs,
    private readonly record: AuthenticationRecord,
  ) {}

  /**
   * A new session under the limits SessionLimitInterceptor decided for the login's request, applied in the
   * transaction that inserts it. `secondStep`: the login completed its second step now (SPEC §16), which the
   * session remembers.
   */
  async create(user: User, limits: SessionLimits, userAgent: string, trace: RequestTrace, opts: { secondStep?: boolean; source?: string; method?: string; login?: boolean } = {}): Promise<NewSession> {
    const { perUser, perIp, ipAddress } = limits;
    const locks = [perUser > 0 ? `user:${user.id}` : null, perIp > 0 ? `ip:${ipAddress}` : null].filter((l): l is string => !!l).sort();
    // The lock rows exist before the transaction: inserting them inside it would take shared locks and deadlock.
    if (locks.length) await this.repository.ensureLockRows(locks);
    const token = randomBytes(32).toString('base64url');
    const ended: Session[] = [];
    // The login's event is written in the transaction: what was reported before it is written first (order by id).
    if (opts.login) await this.record.flush();
    const session = await this.transactions.run(async (manager) => {
      // Racing logins on any node are serialised here, so exactly the newest N are left.
      if (locks.length) await this.repository.lockRows(manager, locks);
      // Creation time is taken under the lock, so "newest" follows the order logins were serialised in.
      const now = this.clock.now();
      const age = this.settings.get('SESSION_COOKIE_AGE');
      const absolute = this.settings.get('SESSION_ABSOLUTE_TIMEOUT');
      const absoluteExpires = absolute > 0 ? new Date(now.getTime() + absolute * 1000) : null;
      // Never past the absolute expiry: the lists test `expires` alone for both limits (SessionsRepository.live).
      const expires = new Date(Math.min(now.getTime() + age * 1000, absoluteExpires?.getTime() ?? Infinity));
      const values = {
        keyHash: sha256Hex(token), userId: user.id, ipAddress, userAgent: userAgent.slice(0, 512),
        created: now, lastSeen: now, expires, absoluteExpires, endedAt: null, endedReason: null, secondStepAt: opts.secondStep ? now : null,
        source: opts.source ?? '', method: opts.method ?? '', loginEventId: null, endBatch: null,
      };
      const created = await this.repository.insert(manager, values);
      // SPEC §23: a login's `login_succeeded` is written with its session, which keeps the event's id (§22's notice).
      if (opts.login) {
        const event = { event: 'login_succeeded' as const, user, source: values.source, method: values.method, sessionId: created.id, ipAddress, userAgent: values.userAgent, trace, at: now };
        created.loginEventId = await this.record.within(manager, event);
        if (created.loginEventId !== null) await this.repository.setLoginEvent(manager, created.id, created.loginEventId);
      }
      if (perUser > 0) ended.push(...(await this.endOverLimit(manager, 'userId', user.id, perUser, now, user)));
      if (perIp > 0) ended.push(...(await this.endOverLimit(manager, 'ipAddress', ipAddress, perIp, now)));
      return created;
    });
    if (ended.length) this.metrics.sessionsEnded.inc({ reason: 'session_limit' }, ended.length);
    for (const s of ended) {
      this.logger.log({ event: 'session_ended', reason: 'session_limit', session_id: s.id, user_id: s.userId, client_ip: s.ipAddress, ...trace });
      this.record.record({ event: 'session_ended', user: { id: s.userId }, reason: 'session_limit', sessionId: s.id, ipAddress: s.ipAddress, trace });
    }
    return { token, session, timeoutSeconds: Math.max(0, Math.floor((session.expires.getTime() - session.created.getTime()) / 1000)) };
  }

  /**
   * Ends every live session of the group beyond the newest `limit` (by creation, ties by id). Only ids
   * past the limit are read, at most one clean-up batch of them: a user with many revoked-but-not-yet-
   * cleaned rows costs one index range, never the whole list.
   */
  private async endOverLimit(
    manager: Parameters<SessionsRepository['overLimit']>[0],
    column: 'userId' | 'ipAddress',
    value: number | string,
    limit: number,
    now: Date,
    owner?: Pick<User, 'sessionsEndedBefore' | 'sessionsKeptId'>,
  ): Promise<Session[]> {
    // Sessions the owner's cut-off already ended are not counted against the limit (the user was just read by the login).
    const surplus = await this.repository.overLimit(manager, column, value, limit, now, owner);
    if (surplus.length) await this.repository.endByIds(manager, surplus.map((s) => s.id), now, 'session_limit');
    return surplus;
  }

  /** The session a cookie names, live or ended, with its user; null when unknown (at once for a malformed cookie). */
  resolve(token: string): Awaitable<ResolvedSession | null> {
    if (!token || token.length > 128) return null;
    return this.repository.findByKeyHash(sha256Hex(token));
  }

  /**
   * The one validity rule for a session (SPEC §2, §3): why it can no longer authenticate, or null.
   * Over when it was ended, timed out (idle or absolute), or its user fails the account policy.
   */
  validate(session: Session, user: SessionOwner, now = this.clock.now()): SessionEndReason | null {
    return this.endedReason(session, now) ?? cutOffReason(session, user) ?? this.policy.refusal(user, 'session', now);
  }

  async findById(id: number): Promise<Session | null> {
    return this.repository.findById(id);
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
    return andThen(this.repository.slide(session.id, now, expires), () => left);
  }

  secondsLeft(session: Session, now: Date): number {
    return Math.max(0, Math.round((session.expires.getTime() - now.getTime()) / 1000));
  }

  /**
   * Ends the given live sessions (by id, and owner when given) with a reason; returns how many it ended. Each
   * session this call ended (and no other) is one SPEC §23 event: `logout` for the user's own, else `session_ended`.
   */
  async end(where: { ids: number[]; userId?: number }, reason: SessionEndReason, trace: RequestTrace, opts: { logout?: boolean } = {}): Promise<number> {
    if (!where.ids.length) return 0;
    const now = this.clock.now();
    const ended = await this.repository.endLiveReturning(where.ids, where.userId, now, reason);
    const count = ended.length;
    for (const s of ended) {
      // A timeout ends the session when it expired, whenever the service noticed (SPEC §23).
      const at = reason === 'idle_timeout' ? s.expires : reason === 'absolute_timeout' ? (s.absoluteExpires ?? now) : now;
      const event = opts.logout ? ('logout' as const) : ('session_ended' as const);
      this.record.record({ event, user: { id: s.userId }, reason: opts.logout ? null : reason, sessionId: s.id, ipAddress: s.ipAddress, trace, at: at.getTime() <= now.getTime() ? at : now });
    }
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
      const cutoff = latest(now, await this.repository.newestLiveCreated(manager, userId));
      await this.users.cutOffSessions(manager, userId, cutoff, reason, keptId);
      await this.jobs.add(manager, { kind: 'sessions', userId, cutoff, reason, keptId, created: now });
    });
    this.logger.log({ event: 'sessions_cut_off', reason, user_id: userId, kept_session_id: keptId ?? undefined, ...trace });
  }

  /**
   * Runs one batch statement that ends sessions, marked with a new batch id, and reports each session it ended
   * as SPEC §23's `session_ended` (dated when it ended: a timeout's expiry, a cut-off's moment). Returns how many.
   */
  async reportingEnds(end: (batch: string) => Promise<number>, trace: RequestTrace): Promise<number> {
    const batch = randomBytes(8).toString('hex');
    const count = await end(batch);
    if (!count) return 0;
    for (const s of await this.repository.endedIn(batch)) {
      this.record.record({ event: 'session_ended', user: { id: s.userId }, reason: s.endedReason, sessionId: s.id, ipAddress: s.ipAddress, trace, at: s.endedAt ?? undefined });
    }
    return count;
  }

  /** Every live session of every user (`expire_sessions` without `--user`), in batches; returns how many. */
  async endEveryone(reason: SessionEndReason): Promise<number> {
    let total = 0;
    await inBatches(async () => {
      const count = await this.reportingEnds((batch) => this.repository.endEveryoneBatch(this.clock.now(), reason, batch), NO_REQUEST);
      total += count;
      return count >= CLEANUP_BATCH;
    });
    if (total) this.metrics.sessionsEnded.inc({ reason }, total);
    this.logger.log({ event: 'session_ended', reason, count: total });
    return total;
  }

  /** One clean-up batch of a sessions job: stamps up to CLEANUP_BATCH cut-off rows with the job's reason. */
  async cleanupBatch(job: RevocationJob): Promise<number> {
    const count = await this.reportingEnds((batch) => this.repository.endCutOffBatch(job, batch), NO_REQUEST);
    if (count) this.metrics.sessionsEnded.inc({ reason: job.reason }, count);
    return count;
  }

  /** A user's live sessions, for a list (its filters and page come after); none of those the user's cut-off ended. */
  liveQuery(user: Pick<User, 'id' | 'sessionsEndedBefore' | 'sessionsKeptId'>) {
    return this.repository.liveListQuery(user, this.clock.now());
  }

  /** Every user's live sessions (SPEC §22), for a list. */
  allLiveQuery() {
    return this.repository.allLiveQuery(this.clock.now());
  }

  /** The id and name of each of these users. */
  namesOf(ids: number[]) {
    return this.repository.namesOf(ids);
  }

  /** Live sessions of every user (a metric). */
  countLive(): Promise<number> {
    return this.repository.countLive(this.clock.now());
  }
}
