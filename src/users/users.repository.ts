import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, SelectQueryBuilder } from 'typeorm';
import { andThen, Awaitable } from '../common/awaitable';
import { limitedStatement, PlannedStatement } from '../database/batch-statements';
import { dateFromDatabase, PreparedStatements } from '../database/prepared-statements';
import { FRONT_DOOR_FACT_COLUMNS, keepFrontDoorFacts } from './front-door-facts';
import { LoginFailure } from './login-failure.entity';
import { RevocationJob } from './revocation-job.entity';
import { User } from './user.entity';
import { shiftPreviousLogin } from './previous-login';

/** A (username, client address) pair's throttle counter. */
export interface ThrottleRow {
  id: number;
  failures: number;
  pending: number;
  windowStart: Date;
  /** SPEC §22: when the pair's lock ends (set by its locking failure); null before it locks, or for -1. */
  lockedUntil: Date | null; lockedIndefinitely: boolean;
}

/**
 * The pair a throttle counter belongs to: the name as typed (the spelling a new counter keeps) and as §20
 * compares names (`usernameFolded`, the key: `Alice` and `ALICE` from one address are one pair, SPEC §22).
 */
export interface Pair {
  username: string;
  usernameFolded: string;
  clientIp: string;
}

/** The counter an attempt is counted in, and whether it is a §12 password pair (SPEC §22: the ones that lock). */
export interface NewPair extends Pair {
  lockable: boolean;
}

/** What a failure writes when it is the pair's locking one (`failures + 1 = lockAt`; -1: never). */
export interface LockTerms {
  lockAt: number;
  until: Date | null;
  indefinitely: boolean;
}

const THROTTLE_COLUMNS = 'id, failures, pending, window_start, locked_until, locked_indefinitely';

/**
 * A counter whose lock or window has ended by itself (SPEC §22): its next attempt starts a new window. A pair
 * locked with -1 never does; one locked with an end, at that end; one not locked (or locked before issue 57),
 * when its window passes. Parameters: the window's cut-off, then now.
 */
const LOCK_ENDED = '(locked_indefinitely = 0 AND ((locked_until IS NULL AND window_start <= ?) OR locked_until <= ?))';

/** The fields of a user the create and update paths write. */
export type UserValues = Omit<User, 'id' | 'sessionsEndedBefore' | 'sessionsEndReason' | 'sessionsKeptId' | 'tokensRevokedBefore' | 'mfaEnabled'>;

/** How many counters one sweep of the login throttle deletes at most. */
export const THROTTLE_SWEEP_BATCH = 1000;

/**
 * Every statement of the users module (issue 29): users, the login throttle's counters, and the
 * revocation-job queue (the password history has its own, PasswordHistoryRepository). UsersService, LoginThrottle, LocalCredentialsService and RevocationJobs hold the
 * rules and call these.
 */
@Injectable()
export class UsersRepository {
  private credentialSql?: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedStatements,
  ) {}

  private get users() {
    return this.dataSource.getRepository(User);
  }

  findById(id: number): Promise<User | null> {
    return this.users.findOneBy({ id });
  }

  findByIds(ids: number[]): Promise<User[]> {
    return ids.length ? this.users.findBy({ id: In(ids) }) : Promise.resolve([]);
  }

  /** The user of a name as the database matches it (MySQL's collation ignores case: the caller compares exactly). */
  findByUsername(username: string): Promise<User | null> {
    return this.users.findOneBy({ username });
  }

  /** The oldest user whose folded name is `folded` (usernames.ts `foldUsername`), on both databases alike. */
  findByFoldedName(folded: string): Promise<User | null> {
    return this.users.createQueryBuilder('u').where('u.username_folded = :folded', { folded }).orderBy('u.id', 'ASC').getOne();
  }

  /**
   * The oldest user of `account` whose directory entry (`ldap_dn`) is `dn` without regard to case (an entry held
   * twice, by rows made before issue 40, answers as its first account). No index: asked once per directory
   * login, which costs a directory round trip anyway, never on basic auth's repeat path.
   */
  findByDirectoryEntry(account: string, dn: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('u')
      .where('u.external_account = :account AND LOWER(u.ldap_dn) = LOWER(:dn)', { account, dn })
      .orderBy('u.id', 'ASC')
      .getOne();
  }

  count(): Promise<number> {
    return this.users.count();
  }

  listQuery(onlyId?: number): SelectQueryBuilder<User> {
    const qb = this.users.createQueryBuilder('u');
    return onlyId === undefined ? qb : qb.where('u.id = :onlyId', { onlyId });
  }

  /** `manager`: the caller's transaction (a password's history row goes with it). */
  async insert(values: UserValues, manager?: EntityManager): Promise<number> {
    return (await (manager?.getRepository(User) ?? this.users).insert(values)).identifiers[0].id as number;
  }

  async update(id: number, changes: Partial<User>, manager?: EntityManager): Promise<void> {
    await (manager?.getRepository(User) ?? this.users).update({ id }, changes);
  }

  /** Replaces a password hash only if it is still the one that was verified (an upgrade racing a change loses). */
  async replaceHash(id: number, verified: string, upgraded: string): Promise<void> {
    await this.users.update({ id, password: verified }, { password: upgraded });
  }

  /** In a transaction that is retried on a deadlock (logins racing on several Galera members conflict here). */
  async recordLogin(manager: EntityManager, id: number, at: Date): Promise<void> {
    await shiftPreviousLogin(manager, id).then(() => manager.getRepository(User).update({ id }, { lastLogin: at, lastLoginEventAt: at }));
  }

  /**
   * A login's maps run on the user's row locked (SPEC §21): two racing logins of one user apply one after
   * the other, each on the holdings the other left. Returns the flags as the lock found them.
   */
  async lockForLogin(manager: EntityManager, id: number, forUpdate: string): Promise<Pick<User, 'id' | 'isSuperuser' | 'isSystemAuditor'>> {
    const [row] = (await manager.query(`SELECT id, is_superuser, is_system_auditor FROM auth_user WHERE id = ?${forUpdate}`, [id])) as Record<string, unknown>[];
    if (!row) throw new Error(`user ${id} vanished during its login`);
    return { id, isSuperuser: !!Number(row.is_superuser), isSystemAuditor: !!Number(row.is_system_auditor) };
  }

  /** The flags a login's maps decided, in its transaction. */
  async setFlags(manager: EntityManager, id: number, flags: Partial<Pick<User, 'isSuperuser' | 'isSystemAuditor'>>, modified: Date): Promise<void> {
    await manager.getRepository(User).update({ id }, { ...flags, modified });
  }

  async delete(id: number): Promise<void> {
    await this.users.delete({ id });
  }

  /** Writes a user's sessions cut-off (in the caller's transaction, with its clean-up job). */
  async cutOffSessions(manager: EntityManager, id: number, cutoff: Date, reason: string, keptId: number | null): Promise<void> {
    await manager.getRepository(User).update({ id }, { sessionsEndedBefore: cutoff, sessionsEndReason: reason, sessionsKeptId: keptId });
  }

  /** The user a name belongs to and the name's throttle counter from one address, in one statement (a hot path). */
  findWithThrottle(username: string, pair: Pair): Awaitable<{ user: User; throttle: ThrottleRow | null } | null> {
    const p = this.prepared;
    this.credentialSql ??=
      `SELECT ${p.columnList(User, 'u')}, f.id, f.failures, f.pending, f.window_start, f.locked_until, f.locked_indefinitely, ${FRONT_DOOR_FACT_COLUMNS('u')} ` +
      `FROM ${p.table(User)} u LEFT JOIN ${p.table(LoginFailure)} f ON f.username_folded = ? AND f.client_ip = ? WHERE u.username = ?`;
    return andThen(p.first(this.credentialSql, [pair.usernameFolded, pair.clientIp, username]), (row) => {
      if (!row) return null;
      const at = p.width(User); // the throttle row's columns (THROTTLE_COLUMNS) follow the user's
      const [id, failures, pending, window_start, locked_until, locked_indefinitely] = row.slice(at, at + 6);
      const throttle = id == null ? null : throttleRow({ id, failures, pending, window_start, locked_until, locked_indefinitely });
      return { user: keepFrontDoorFacts(p.hydrateAt(User, row), row, at + 6), throttle };
    });
  }

  async findThrottle(pair: Pair): Promise<ThrottleRow | null> {
    const [row] = await this.prepared.rows(`SELECT ${THROTTLE_COLUMNS} FROM login_failure WHERE username_folded = ? AND client_ip = ?`, [pair.usernameFolded, pair.clientIp]);
    return row ? throttleRow(row) : null;
  }

  /**
   * SQLite: counts an attempt in one statement, atomic across every process on the file: a new window
   * when the old one's lock or window has ended (LOCK_ENDED), else one more pending attempt while failures
   * plus pending stay under `allowed`. Null when the pair has no attempt left.
   */
  async reserveUpsert(pair: NewPair, now: Date, expired: Date, allowed: number): Promise<ThrottleRow | null> {
    const p = this.prepared;
    const ended = [p.date(expired), p.date(now)];
    const [row] = await p.rows(
      'INSERT INTO login_failure (username, client_ip, username_folded, lockable, failures, pending, window_start, locked_indefinitely) VALUES (?, ?, ?, ?, 0, 1, ?, 0) ' +
        'ON CONFLICT (username_folded, client_ip) DO UPDATE SET ' +
        `username = CASE WHEN ${LOCK_ENDED} THEN excluded.username ELSE username END, ` +
        `failures = CASE WHEN ${LOCK_ENDED} THEN 0 ELSE failures END, ` +
        `pending = CASE WHEN ${LOCK_ENDED} THEN 1 ELSE pending + 1 END, ` +
        `window_start = CASE WHEN ${LOCK_ENDED} THEN excluded.window_start ELSE window_start END, ` +
        `locked_until = CASE WHEN ${LOCK_ENDED} THEN NULL ELSE locked_until END, ` +
        `lockable = excluded.lockable ` +
        `WHERE ${LOCK_ENDED} OR failures + pending < ? RETURNING ${THROTTLE_COLUMNS}`,
      [pair.username, pair.clientIp, pair.usernameFolded, pair.lockable ? 1 : 0, p.date(now), ...ended, ...ended, ...ended, ...ended, ...ended, ...ended, allowed],
    );
    return row ? throttleRow(row) : null;
  }

  /** MySQL: the pair's counter, locked for the rest of the caller's transaction. */
  async lockThrottle(manager: EntityManager, pair: Pair): Promise<ThrottleRow | null> {
    const [found] = (await manager.query(`SELECT ${THROTTLE_COLUMNS} FROM login_failure WHERE username_folded = ? AND client_ip = ? FOR UPDATE`, [pair.usernameFolded, pair.clientIp])) as Record<string, unknown>[];
    return found ? throttleRow(found) : null;
  }

  async insertThrottle(manager: EntityManager, pair: NewPair, now: Date): Promise<number> {
    return (await manager.insert(LoginFailure, { ...pair, failures: 0, pending: 1, windowStart: now })).identifiers[0].id as number;
  }

  /** A new window, in this attempt's spelling: the old one passed, or its lock ended by itself. */
  async restartWindow(manager: EntityManager, id: number, now: Date, pair: NewPair): Promise<void> {
    const { username, lockable } = pair;
    await manager.update(LoginFailure, { id }, { username, failures: 0, pending: 1, windowStart: now, lockedUntil: null, lockedIndefinitely: false, lockable });
  }

  async addPending(manager: EntityManager, id: number): Promise<void> {
    await manager.query('UPDATE login_failure SET pending = pending + 1 WHERE id = ?', [id]);
  }

  /**
   * An attempt in flight failed: one more failure, one fewer pending; the failure that brings the count to
   * `lock.lockAt` locks the pair on `lock`'s terms (SPEC §22). `failures` is assigned last: MySQL evaluates
   * an UPDATE's assignments left to right, so every CASE before it reads the count before this failure.
   */
  async recordFailure(id: number, now: Date, lock: LockTerms): Promise<void> {
    const p = this.prepared;
    await p.run(
      'UPDATE login_failure SET locked_until = CASE WHEN failures + 1 = ? THEN ? ELSE locked_until END, ' +
        'locked_indefinitely = CASE WHEN failures + 1 = ? THEN ? ELSE locked_indefinitely END, ' +
        'first_failure = CASE WHEN failures = 0 THEN ? ELSE first_failure END, last_failure = ?, ' +
        'failures = failures + 1, pending = CASE WHEN pending > 0 THEN pending - 1 ELSE 0 END WHERE id = ?',
      [lock.lockAt, lock.until && p.date(lock.until), lock.lockAt, lock.indefinitely ? 1 : 0, p.date(now), p.date(now), id],
    );
  }

  /** An attempt in flight succeeded: the `forgiven` failures before it go (in its own window only), one fewer pending. */
  async recordSuccess(id: number, windowStart: Date, forgiven: number): Promise<void> {
    await this.prepared.run(
      'UPDATE login_failure SET failures = CASE WHEN window_start <> ? THEN failures WHEN failures > ? THEN failures - ? ELSE 0 END, ' +
        'pending = CASE WHEN pending > 0 THEN pending - 1 ELSE 0 END WHERE id = ?',
      [this.prepared.date(windowStart), forgiven, forgiven, id],
    );
  }

  /** An attempt in flight ended undecided: one fewer pending, nothing counted. */
  async releasePending(id: number): Promise<void> {
    await this.prepared.run('UPDATE login_failure SET pending = CASE WHEN pending > 0 THEN pending - 1 ELSE 0 END WHERE id = ?', [id]);
  }

  /** A known-good credential forgives the failures a counter showed (unless its window changed meanwhile). */
  async forgive(row: ThrottleRow): Promise<void> {
    await this.prepared.run('UPDATE login_failure SET failures = CASE WHEN failures > ? THEN failures - ? ELSE 0 END WHERE id = ? AND window_start = ?', [
      row.failures, row.failures, row.id, this.prepared.date(row.windowStart),
    ]);
  }

  /** One batch of counters whose window started at or before `expired` and that no attempt is using. */
  deleteIdleThrottles(expired: Date, now: Date, batch = THROTTLE_SWEEP_BATCH): Promise<number> {
    return this.prepared.run(this.idleThrottlesSql(batch), [this.prepared.date(expired), this.prepared.date(now)]);
  }

  private idleThrottlesSql(batch: number): string {
    // A pair still locked (SPEC §22: -1, or an end beyond its window) is kept; the index range is the same.
    const idle = 'window_start <= ? AND pending = 0 AND locked_indefinitely = 0 AND (locked_until IS NULL OR locked_until <= ?)';
    return limitedStatement(this.prepared.dialect, 'DELETE FROM login_failure', 'login_failure', idle, batch, 'IDX_login_failure_window');
  }

  async addJob(manager: EntityManager, job: Omit<RevocationJob, 'id'>): Promise<void> {
    await manager.getRepository(RevocationJob).insert(job);
  }

  /** The oldest pending clean-up jobs of a kind (the queue holds a handful: one per revocation in progress). */
  pendingJobs(kind: RevocationJob['kind']): Promise<RevocationJob[]> {
    return this.dataSource.getRepository(RevocationJob).find({ where: { kind }, order: { id: 'ASC' }, take: 100 });
  }

  async deleteJob(id: number): Promise<void> {
    await this.dataSource.getRepository(RevocationJob).delete({ id });
  }

  /** Every periodic and clean-up statement over a table that grows, for the plan test. */
  periodicStatements(sample: { now: Date }): PlannedStatement[] {
    return [{ name: 'login throttle: delete idle counters', sql: this.idleThrottlesSql(THROTTLE_SWEEP_BATCH), params: [this.prepared.date(sample.now), this.prepared.date(sample.now)] }];
  }
}

/** A row of THROTTLE_COLUMNS, as either driver returns it. */
export function throttleRow(row: Record<string, unknown>): ThrottleRow {
  return {
    id: Number(row.id),
    failures: Number(row.failures), pending: Number(row.pending ?? 0),
    windowStart: dateFromDatabase(row.window_start)!,
    lockedUntil: dateFromDatabase(row.locked_until) ?? null,
    lockedIndefinitely: !!Number(row.locked_indefinitely ?? 0),
  };
}
