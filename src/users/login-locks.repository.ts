import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, SelectQueryBuilder } from 'typeorm';
import { LoginFailure } from './login-failure.entity';
import { User } from './user.entity';
import { foldUsername } from './usernames';
import { PreparedStatements } from '../database/prepared-statements';
import { BREAK_GLASS_ELIGIBLE } from './front-door-facts';
import type { LockTerms } from './users.repository';

/** The moment a list is read at, and the settings that decide what is locked then. */
export interface LockClock {
  now: Date;
  /** Now less LOGIN_FAILURE_WINDOW: a window that started at or before it has passed. */
  expired: Date;
  allowed: number;
}

/**
 * SQL over a counter (alias `f`, parameters `lockNow`, `lockExpired`, `lockAllowed`): locked now (SPEC §22).
 * A lock with an end holds until it; -1 until unlocked; a pair that filled its allowance before issue 57
 * stored no end and holds until its window ends (§12).
 */
export const LOCKED = (f: string, p = { now: ':lockNow', allowed: ':lockAllowed', expired: ':lockExpired' }) =>
  `(${f}.locked_indefinitely = 1 OR ${f}.locked_until > ${p.now} OR (${f}.locked_until IS NULL AND ${f}.failures >= ${p.allowed} AND ${f}.window_start > ${p.expired}))`;

/** LOCKED with positional parameters (now, allowed, expired), for a prepared statement. */
const LOCKED_POSITIONAL = { now: '?', allowed: '?', expired: '?' };

/**
 * SQL: the break-glass superuser's id (SPEC §22), or NULL. Two parameters, both BREAK_GLASS_USERNAME folded: ""
 * is the active local superuser with the lowest id and no `account_expires`; a name is that user while it is one.
 */
const BREAK_GLASS_ID = `(SELECT MIN(bu.id) FROM auth_user bu WHERE ${BREAK_GLASS_ELIGIBLE('bu')} AND (? = '' OR bu.username_folded = ?))`;

/** The user resource's SPEC §22 facts: a pair of the name locked now, and who the break-glass superuser is. */
export interface UserLockFacts {
  locked: boolean;
  breakGlassId: number | null;
}

/** SQL: a counter whose lock or window has not ended by itself (users.repository.ts LOCK_ENDED, negated). */
const LIVE = (f: string) =>
  `(${f}.locked_indefinitely = 1 OR ${f}.locked_until > :lockNow OR (${f}.locked_until IS NULL AND ${f}.window_start > :lockExpired))`;

/** SQL: the oldest user whose name compares (§20) as the counter's (usernames.ts `foldUsername`). */
export const PAIR_USER = (f: string) => `(SELECT MIN(lu.id) FROM auth_user lu WHERE lu.username_folded = ${f}.username_folded)`;

/**
 * The administrator's side of the login throttle's counters (SPEC §22 `login_locks`): the §12 password pairs
 * that are locked or have failures counted in their window, and their unlocking. The throttle's own hot-path
 * statements stay in UsersRepository beside the user lookup they join (findWithThrottle); users.repository.ts
 * is at the size limit, and these statements are read by administrators only.
 */
@Injectable()
export class LoginLocksRepository {
  private factsSql?: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedStatements,
  ) {}

  /** Every listed pair (lockable, failures counted, its lock or window live), for the list kit. */
  listQuery(at: LockClock): SelectQueryBuilder<LoginFailure> {
    return this.dataSource
      .getRepository(LoginFailure)
      .createQueryBuilder('f')
      .where(`f.lockable = 1 AND f.failures > 0 AND ${LIVE('f')}`)
      .setParameters({ lockNow: at.now, lockExpired: at.expired, lockAllowed: at.allowed });
  }

  findListed(at: LockClock, id: number): Promise<LoginFailure | null> {
    return this.listQuery(at).andWhere('f.id = :lockId', { lockId: id }).getOne();
  }

  /** The listed pairs of one name as §20 compares names (`folded`), each with whether it is locked now. */
  async listedOf(at: LockClock, folded: string, clientIp?: string): Promise<{ id: number; locked: boolean; username: string; clientIp: string }[]> {
    const qb = this.listQuery(at).select('f.id', 'id').addSelect(`CASE WHEN ${LOCKED('f')} THEN 1 ELSE 0 END`, 'locked');
    qb.addSelect('f.username', 'username').addSelect('f.client_ip', 'client_ip').andWhere('f.username_folded = :folded', { folded });
    if (clientIp !== undefined) qb.andWhere('f.client_ip = :clientIp', { clientIp });
    const rows = await qb.getRawMany<{ id: number | string; locked: number | string; username: string; client_ip: string }>();
    return rows.map((r) => ({ id: Number(r.id), locked: Number(r.locked) === 1, username: r.username, clientIp: r.client_ip }));
  }

  /**
   * One user resource's SPEC §22 facts (`login_locked`, `break_glass`) in one prepared statement, which the
   * lookups of concurrent requests share (PreparedStatements.first): every `/api/v2/me/` asks it, so it must cost
   * what the front door's own lookups cost, not two ORM queries.
   */
  async userFacts(at: LockClock, folded: string, breakGlassName: string): Promise<UserLockFacts> {
    const p = this.prepared;
    this.factsSql ??=
      `SELECT (SELECT COUNT(*) FROM login_failure f WHERE f.username_folded = ? AND f.lockable = 1 AND f.failures > 0 AND ` +
      `${LOCKED('f', LOCKED_POSITIONAL)}) AS locked, ${BREAK_GLASS_ID} AS break_glass`;
    const named = breakGlassName ? foldUsername(breakGlassName) : '';
    const row = await p.first(this.factsSql, [folded, p.date(at.now), at.allowed, p.date(at.expired), named, named]);
    return { locked: Number(row?.[0] ?? 0) > 0, breakGlassId: row?.[1] == null ? null : Number(row[1]) };
  }

  /** The users (id and folded name) a page of pairs names. */
  async usersOf(folded: string[]): Promise<Map<string, number>> {
    if (!folded.length) return new Map();
    const users = await this.dataSource
      .getRepository(User)
      .createQueryBuilder('u')
      .select(['u.id', 'u.usernameFolded'])
      .where('u.username_folded IN (:...folded)', { folded })
      .orderBy('u.id', 'DESC')
      .getMany();
    // Oldest last, so the oldest of two alike (SPEC §20) is the one kept.
    return new Map(users.map((u) => [u.usernameFolded!, u.id]));
  }

  /**
   * Unlocks and resets pairs (SPEC §22): no failure counted, no lock, a new window from `now`. Attempts in
   * flight keep their places (`pending`), so the allowance stays exact for them.
   */
  async unlock(ids: number[], now: Date): Promise<void> {
    if (!ids.length) return;
    await this.dataSource
      .getRepository(LoginFailure)
      .createQueryBuilder()
      .update()
      .set({ failures: 0, lockedUntil: null, lockedIndefinitely: false, firstFailure: null, lastFailure: null, windowStart: now })
      .where('id IN (:...ids)', { ids })
      .execute();
  }

  /** Whether any counter is of this folded name (unlock_user's "a name that a pair holds"). */
  async anyPairOf(folded: string): Promise<boolean> {
    return (await this.dataSource.getRepository(LoginFailure).createQueryBuilder('f').where('f.username_folded = :folded', { folded }).getCount()) > 0;
  }

  /**
   * The break-glass superuser (SPEC §22): BREAK_GLASS_USERNAME "" is the active local superuser with the lowest id
   * and no `account_expires`; a name is that user while it is an active local superuser without one; else none.
   */
  async breakGlass(configured: string): Promise<Pick<User, 'id' | 'usernameFolded'> | null> {
    const named = configured ? foldUsername(configured) : '';
    const [row] = await this.prepared.rows(`SELECT u.id, u.username_folded FROM auth_user u WHERE u.id = ${BREAK_GLASS_ID}`, [named, named]);
    return row ? { id: Number(row.id), usernameFolded: String(row.username_folded) } : null;
  }

  /** The break-glass superuser's folded name; null when there is none. */
  async breakGlassFolded(configured: string): Promise<string | null> {
    return (await this.breakGlass(configured))?.usernameFolded ?? null;
  }

  /**
   * The failure that fills a pair's allowance, recorded with its lock (SPEC §22) only if it is that failure:
   * true when it was (the caller then writes `login_locked`), false when the failure must be recorded as any
   * other (UsersRepository.recordFailure, whose CASE still locks should another attempt have moved the count).
   */
  async recordLockingFailure(id: number, now: Date, lock: LockTerms): Promise<boolean> {
    const p = this.prepared;
    const changed = await p.run(
      'UPDATE login_failure SET locked_until = ?, locked_indefinitely = ?, first_failure = CASE WHEN failures = 0 THEN ? ELSE first_failure END, ' +
        'last_failure = ?, failures = failures + 1, pending = CASE WHEN pending > 0 THEN pending - 1 ELSE 0 END WHERE id = ? AND failures + 1 = ?',
      [lock.until && p.date(lock.until), lock.indefinitely ? 1 : 0, p.date(now), p.date(now), id, lock.lockAt],
    );
    return changed > 0;
  }
}
