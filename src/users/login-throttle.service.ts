import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Awaitable } from '../common/awaitable';
import { Clock } from '../common/clock';
import { Throttled } from '../common/errors';
import { isUniqueViolation } from '../database/errors';
import { Transactions } from '../database/transactions';
import { SettingsService } from '../settings/settings.service';
import { LoginLocksRepository } from './login-locks.repository';
import { foldUsername } from './usernames';
import { LockTerms, NewPair, Pair, ThrottleRow, UsersRepository } from './users.repository';

export type { ThrottleRow };

/** An attempt counted against its pair before its password is checked. */
export interface Reservation {
  id: number;
  windowStart: Date;
  /** Failures of the window when this attempt was counted: what its success forgives. */
  failuresBefore: number;
  /** The pair's typed name, and whether it is a §12 password pair, which locks (SPEC §22). */
  username: string;
  clientIp: string;
  lockable: boolean;
}

/** What a throttled check made of the secret it was given. */
export type Verdict = 'right' | 'wrong';

/**
 * One throttled check (`LoginThrottle.attempt`): the counters it is counted against, each a (name, address)
 * pair, and whether a right secret forgives the failures before it (a password does; a device code, which
 * proves nothing about the guesses before it, does not).
 */
export interface ThrottledCheck {
  pairs: [name: string, clientIp: string][];
  rightForgives: boolean;
  /** SPEC §22: the pairs are §12's password pairs, which lock on LOGIN_LOCKOUT_DURATION's terms and are listed. */
  locks?: boolean;
  /** Told when a failure of this check locks its pair (SPEC §23's `login_locked`). */
  onLocked?: (lock: { username: string; clientIp: string; failures: number; lockedUntil: Date | null }) => void;
}

/**
 * An error that ends an attempt without a verdict on its secret because something outside could not be
 * asked (a password method's server: SPEC §14's 503): the attempt counts as nothing. Every other error, a
 * database fault included, counts as a failure: a guesser must never gain a free try from an error.
 */
export interface WithoutVerdict {
  readonly withoutVerdict: true;
}

export function isWithoutVerdict(err: unknown): err is WithoutVerdict {
  return typeof err === 'object' && err !== null && (err as Partial<WithoutVerdict>).withoutVerdict === true;
}

/** How long an attempt waits for attempts of its pair being verified right now, polling at this pace. */
const WAIT_MS = 10_000;
const POLL_MS = 20;

/**
 * Per (username, client address) throttling of password attempts (SPEC §12): after
 * LOGIN_FAILURES_ALLOWED failures within LOGIN_FAILURE_WINDOW seconds the pair answers 429 until the
 * window passes. Other addresses are unaffected, so nobody can lock a victim out. The counters live
 * in the database so every node shares them.
 *
 * Exact under concurrency: each attempt is counted atomically *before* its password is checked (an
 * upsert with RETURNING on SQLite, a locked row on MySQL) as `pending`, and no attempt starts while
 * failures plus pending would pass the allowance. So 40 wrong passwords fired at once get at most the
 * allowance verified; the rest wait for the verifications in flight and then answer 429, while right
 * passwords racing each other are verified a few at a time and all succeed. A success forgives the
 * failures counted before it started (the pair is reset), never those of attempts beside it.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    private readonly repository: UsersRepository,
    private readonly transactions: Transactions,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly locks: LoginLocksRepository,
  ) {}

  /** Counts an attempt before its password is checked; throws Throttled when the pair has no attempts left. */
  private async reserve(username: string, clientIp: string, lockable: boolean): Promise<Reservation> {
    const key: NewPair = { ...pairKey(username, clientIp), lockable };
    const started = Date.now();
    for (;;) {
      const now = this.clock.now();
      const expired = new Date(now.getTime() - this.windowMs());
      const reservation = this.transactions.isMysql ? await this.reserveLocked(key, now, expired) : await this.reserveUpsert(key, now, expired);
      if (reservation) return reservation;
      const row = await this.repository.findThrottle(key);
      // Full with failures: refused. Full only with attempts in flight: wait for their verdicts.
      if (!row || row.failures >= this.allowed() || Date.now() - started > WAIT_MS) {
        throw this.refusal(row ?? { id: 0, failures: 0, pending: 0, windowStart: now, lockedUntil: null, lockedIndefinitely: false });
      }
      await sleep(POLL_MS);
    }
  }

  /**
   * The one way a secret is checked under the throttle (issue 39): every pair reserved before the check (a
   * refused pair releases those already reserved and throws Throttled), then each settled by one rule: a
   * wrong secret is a failure; a right one forgives the failures before it, or counts as nothing when
   * `rightForgives` is false; an error without a verdict (`isWithoutVerdict`) counts as nothing; any other
   * error is a failure.
   */
  async attempt<T>(check: ThrottledCheck, run: () => Promise<T>, judge: (result: T) => Verdict): Promise<T> {
    const reservations: Reservation[] = [];
    try {
      for (const [name, clientIp] of check.pairs) reservations.push(await this.reserve(name, clientIp, !!check.locks));
    } catch (err) {
      await Promise.all(reservations.map((r) => this.release(r)));
      throw err;
    }
    let settle: (r: Reservation) => Promise<void> = (r) => this.failed(r, check);
    try {
      const result = await run();
      if (judge(result) === 'right') settle = (r) => (check.rightForgives ? this.succeeded(r) : this.release(r));
      return result;
    } catch (err) {
      if (isWithoutVerdict(err)) settle = (r) => this.release(r);
      throw err;
    } finally {
      await Promise.all(reservations.map(settle));
    }
  }

  /** The password was wrong: the attempt becomes a failure of its window, and the one that fills it locks the pair. */
  private async failed(reservation: Reservation, check: ThrottledCheck): Promise<void> {
    const now = this.clock.now();
    const terms = await this.lockTerms(reservation, now);
    // The locking failure is recorded apart, so that the lock is reported once (SPEC §23).
    if (terms.lockAt > 0 && (await this.locks.recordLockingFailure(reservation.id, now, terms))) {
      check.onLocked?.({ username: reservation.username, clientIp: reservation.clientIp, failures: terms.lockAt, lockedUntil: terms.indefinitely ? null : terms.until });
      return;
    }
    await this.repository.recordFailure(reservation.id, now, terms);
  }

  /**
   * The lock the pair takes if this failure fills its allowance (SPEC §22), on the LOGIN_LOCKOUT_DURATION in
   * force now: 0, until its window ends; N, N seconds from now; -1, until an administrator unlocks it. The
   * break-glass superuser is never locked longer than LOGIN_FAILURE_WINDOW from now (asked only when it could be).
   */
  private async lockTerms(reservation: Reservation, now: Date): Promise<LockTerms> {
    if (!reservation.lockable) return { lockAt: -1, until: null, indefinitely: false };
    const duration = this.settings.get<number>('LOGIN_LOCKOUT_DURATION');
    const capped = new Date(now.getTime() + this.windowMs());
    const terms: LockTerms = { lockAt: this.allowed(), until: null, indefinitely: duration === -1 };
    if (duration === 0) terms.until = new Date(reservation.windowStart.getTime() + this.windowMs());
    else if (duration > 0) terms.until = new Date(now.getTime() + duration * 1000);
    const beyondCap = terms.indefinitely || terms.until!.getTime() > capped.getTime();
    if (beyondCap && (await this.locks.breakGlassFolded(this.settings.get<string>('BREAK_GLASS_USERNAME'))) === foldUsername(reservation.username)) return { ...terms, until: capped, indefinitely: false };
    return terms;
  }

  /** The password was right: the attempt ends and the failures before it are forgiven (same window only). */
  private succeeded(reservation: Reservation): Promise<void> {
    return this.repository.recordSuccess(reservation.id, reservation.windowStart, reservation.failuresBefore);
  }

  /**
   * The attempt ends without a verdict on a password: a password backend was unreachable (SPEC §14), or a
   * device user code was right, which proves nothing about the guesses before it. One fewer pending,
   * neither a failure counted nor one forgiven.
   */
  private release(reservation: Reservation): Promise<void> {
    return this.repository.releasePending(reservation.id);
  }

  /** For a credential already known good (basic's fast path): refused while the pair is throttled, else the pair is reset. */
  admitKnownGood(row: ThrottleRow | null): Awaitable<void> {
    if (!row || row.failures <= 0 || this.lockEnded(row)) return;
    if (row.failures >= this.allowed() || row.lockedIndefinitely || row.lockedUntil) throw this.refusal(row);
    return this.repository.forgive(row);
  }

  /**
   * Deletes counters whose window has passed and that no attempt is using: anonymous attempts leave a
   * row each, and this keeps the table to the pairs of the current window. One batch per call.
   */
  sweep(): Promise<number> {
    const now = this.clock.now();
    return this.repository.deleteIdleThrottles(new Date(now.getTime() - this.windowMs()), now);
  }

  /** SQLite: one statement, atomic across every process on the file. */
  private async reserveUpsert(key: NewPair, now: Date, expired: Date): Promise<Reservation | null> {
    const counted = await this.repository.reserveUpsert(key, now, expired, this.allowed());
    return counted && { id: counted.id, windowStart: counted.windowStart, failuresBefore: counted.failures, username: key.username, clientIp: key.clientIp, lockable: key.lockable };
  }

  /** MySQL: the pair's row locked for the decision; a first attempt racing another inserts once. */
  private async reserveLocked(key: NewPair, now: Date, expired: Date): Promise<Reservation | null> {
    const { username, clientIp, lockable } = key;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.transactions.run(async (manager) => {
          const row = await this.repository.lockThrottle(manager, key);
          if (!row) return { id: await this.repository.insertThrottle(manager, key, now), windowStart: now, failuresBefore: 0, username, clientIp, lockable };
          if (this.lockEnded(row, now)) {
            await this.repository.restartWindow(manager, row.id, now, key);
            return { id: row.id, windowStart: now, failuresBefore: 0, username, clientIp, lockable };
          }
          if (row.failures + row.pending >= this.allowed()) return null;
          await this.repository.addPending(manager, row.id);
          return { id: row.id, windowStart: row.windowStart, failuresBefore: row.failures, username, clientIp, lockable };
        });
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= 3) throw err; // another node inserted the row first: count again
      }
    }
  }

  /** users.repository.ts LOCK_ENDED in JS: the pair's lock (or, not locked, its window) has ended by itself. */
  private lockEnded(row: ThrottleRow, now = this.clock.now()): boolean {
    if (row.lockedIndefinitely) return false;
    return now.getTime() >= (row.lockedUntil?.getTime() ?? row.windowStart.getTime() + this.windowMs());
  }

  /** The refusal of a throttled pair (logged by the caller, which knows the attempt and its request). */
  private refusal(row: ThrottleRow): Throttled {
    if (row.lockedIndefinitely) return new Throttled(null);
    const end = row.lockedUntil?.getTime() ?? row.windowStart.getTime() + this.windowMs();
    return new Throttled(Math.max(1, Math.ceil((end - this.clock.now().getTime()) / 1000)));
  }

  private allowed(): number {
    return this.settings.get('LOGIN_FAILURES_ALLOWED');
  }

  private windowMs(): number {
    return this.settings.get('LOGIN_FAILURE_WINDOW') * 1000;
  }
}

/** A counter's key: the name as typed and as §20 compares it (SPEC §22: one pair whatever the case). */
export function pairKey(username: string, clientIp: string): Pair {
  const typed = username.slice(0, 150);
  return { username: typed, usernameFolded: foldUsername(typed), clientIp: clientIp.slice(0, 45) };
}
