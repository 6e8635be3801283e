import { Injectable, Logger } from '@nestjs/common';
import { AuthenticationRecord } from '../common/authentication-record';
import { Clock } from '../common/clock';
import { NotFound } from '../common/errors';
import { isoTime } from '../common/iso-time';
import type { ListSpec } from '../common/list-query/list-spec';
import type { RequestTrace } from '../common/request-context';
import { SettingsService } from '../settings/settings.service';
import { frontDoorFacts } from './front-door-facts';
import { LoginFailure } from './login-failure.entity';
import { LOCKED, LockClock, LoginLocksRepository, PAIR_USER, UserLockFacts } from './login-locks.repository';
import type { User } from './user.entity';
import { foldUsername, normalizeUsername } from './usernames';

/** SPEC §19 on every field `login_locks` shows. */
export const LOGIN_LOCK_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    username: { property: 'username', type: 'string' },
    user: { property: 'username', type: 'fk', expression: PAIR_USER },
    ip_address: { property: 'clientIp', type: 'string' },
    failures: { property: 'failures', type: 'int' },
    first_failure: { property: 'firstFailure', type: 'datetime' },
    last_failure: { property: 'lastFailure', type: 'datetime' },
    locked: { property: 'failures', type: 'bool', expression: LOCKED },
    locked_until: { property: 'lockedUntil', type: 'datetime' },
  },
  search: ['username', 'ip_address'],
  defaultOrder: [['id', 'ASC']],
};

/**
 * SPEC §22's lock state as administrators see and release it: §12's password pairs that are locked or have
 * failures counted in their window (LoginThrottle keeps them; this only reads and resets them). Unlocking
 * resets a pair in the database, so every node sees it at its next request (§18).
 */
/** Who unlocks (SPEC §23): a superuser through the API or the admin page, from an address; or a command (null, null). */
export interface Unlocker {
  username: string | null;
  clientIp: string | null;
}

@Injectable()
export class LoginLocksService {
  private readonly logger = new Logger('auth');

  constructor(
    private readonly repository: LoginLocksRepository,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly record: AuthenticationRecord,
  ) {}

  /** The moment a request reads the locks at. */
  at(): LockClock {
    const now = this.clock.now();
    return { now, expired: new Date(now.getTime() - this.settings.get<number>('LOGIN_FAILURE_WINDOW') * 1000), allowed: this.settings.get<number>('LOGIN_FAILURES_ALLOWED') };
  }

  listQuery(at: LockClock, user?: User) {
    const qb = this.repository.listQuery(at);
    return user ? qb.andWhere('f.username_folded = :ofUser', { ofUser: foldUsername(user.username) }) : qb;
  }

  async getOr404(at: LockClock, id: number): Promise<LoginFailure> {
    const row = await this.repository.findListed(at, id);
    if (!row) throw new NotFound();
    return row;
  }

  async present(at: LockClock, rows: LoginFailure[]): Promise<Record<string, unknown>[]> {
    const users = await this.repository.usersOf([...new Set(rows.map((r) => r.usernameFolded ?? foldUsername(r.username)))]);
    return rows.map((row) => {
      const until = this.lockEnd(at, row);
      return {
        id: row.id,
        type: 'login_lock',
        url: `/api/v2/login_locks/${row.id}/`,
        username: row.username,
        user: users.get(row.usernameFolded ?? foldUsername(row.username)) ?? null,
        ip_address: row.clientIp,
        failures: Math.min(row.failures, at.allowed),
        first_failure: row.firstFailure ? isoTime(row.firstFailure) : null,
        last_failure: row.lastFailure ? isoTime(row.lastFailure) : null,
        locked: until !== undefined,
        locked_until: until ? isoTime(until) : null,
      };
    });
  }

  /** Undefined: not locked; null: locked until unlocked; else the lock's end (LOCKED, in JS). */
  private lockEnd(at: LockClock, row: LoginFailure): Date | null | undefined {
    if (row.lockedIndefinitely) return null;
    if (row.lockedUntil) return row.lockedUntil.getTime() > at.now.getTime() ? row.lockedUntil : undefined;
    const windowEnd = new Date(row.windowStart.getTime() + at.now.getTime() - at.expired.getTime());
    return row.failures >= at.allowed && row.windowStart.getTime() > at.expired.getTime() ? windowEnd : undefined;
  }

  /**
   * Each user resource's `login_locked` and `break_glass` facts (SPEC §22): from the user's front-door row when it
   * settles them (the request's own user, no failure counted), else one shared lookup per user.
   */
  userFacts(user: User): UserLockFacts | Promise<UserLockFacts> {
    const breakGlass = this.settings.get<string>('BREAK_GLASS_USERNAME');
    return frontDoorFacts(user, breakGlass ? foldUsername(breakGlass) : '') ?? this.repository.userFacts(this.at(), foldUsername(user.username), breakGlass);
  }

  async unlockOne(row: LoginFailure, by: Unlocker, trace: RequestTrace): Promise<void> {
    const at = this.at();
    await this.repository.unlock([row.id], this.clock.now());
    this.logger.log({ event: 'login_unlocked', username: row.username, client_ip: row.clientIp, by: by.username ?? 'manage', ...trace });
    if (this.lockEnd(at, row) !== undefined) await this.recordUnlocked([{ username: row.username, clientIp: row.clientIp, folded: row.usernameFolded ?? foldUsername(row.username) }], by, trace);
  }

  /** SPEC §23's `login_unlocked`, one per pair that was locked: the pair's user and name, the unlocker's address. */
  private async recordUnlocked(pairs: { username: string; clientIp: string; folded: string }[], by: Unlocker, trace: RequestTrace): Promise<void> {
    if (!pairs.length) return;
    const users = await this.repository.usersOf([...new Set(pairs.map((p) => p.folded))]);
    for (const pair of pairs) {
      const id = users.get(pair.folded);
      this.record.record({
        event: 'login_unlocked', user: id === undefined ? null : { id }, username: pair.username, method: by.username === null ? 'command' : 'api',
        ipAddress: by.clientIp, trace, details: by.username === null ? { address: pair.clientIp } : { address: pair.clientIp, by: by.username },
      });
    }
  }

  /**
   * Unlocks every listed pair of a name as the throttle reads it (or its pair from `clientIp`); the number of
   * them that were locked, or null when neither a user (`known`) nor a pair holds the name.
   */
  async unlockName(name: string, known: boolean, by: Unlocker, trace: RequestTrace, clientIp?: string): Promise<number | null> {
    const folded = foldUsername(normalizeUsername(name));
    if (!known && !(await this.repository.anyPairOf(folded))) return null;
    const pairs = await this.repository.listedOf(this.at(), folded, clientIp);
    await this.repository.unlock(pairs.map((p) => p.id), this.clock.now());
    const locked = pairs.filter((p) => p.locked).length;
    if (pairs.length) this.logger.log({ event: 'login_unlocked', username: name, client_ip: clientIp ?? null, pairs: pairs.length, locked, by: by.username ?? 'manage', ...trace });
    await this.recordUnlocked(pairs.filter((p) => p.locked).map((p) => ({ ...p, folded })), by, trace);
    return locked;
  }
}
