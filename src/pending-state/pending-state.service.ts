import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/secret-box';
import { isUniqueViolation } from '../database/errors';
import { PendingState } from './pending-state.entity';
import { PENDING_STATE_SWEEP_BATCH, PendingStateRepository } from './pending-state.repository';

/** One sweep deletes at most this many batches (a flood of anonymous starts is cleared over a few sweeps). */
const SWEEP_BATCHES = 20;

/**
 * Pending logins one client address keeps at once (second steps: each lives 5 minutes and needs a right
 * password): a new one beyond this ends the address's oldest (issue 40). Single sign-on starts are not stored
 * at all: they are sealed in the starting browser (src/sso/sso-starts.ts, issue 56).
 */
export const PENDING_LOGINS_PER_ADDRESS = 30;

/** Pending logins the whole store keeps; beyond it, the sweep ends those nearest their expiry (SPEC §7). */
export const PENDING_LOGINS_CEILING = 100_000;

/** The global ceiling is restored in slices of this many seconds of expiry, the soonest first. */
const CEILING_SLICE_SECONDS = 15;

/** The longest a pending login may live; past it, a slice holds nothing. */
const LONGEST_PENDING_LOGIN_SECONDS = 600;

/** How often expired entries are swept (src/background-work.ts). */
export const PENDING_STATE_SWEEP_MS = 60 * 1000;

export interface StoredState<T> {
  provider: string;
  data: T;
}

/**
 * The database-backed store behind every piece of short-lived login state (single sign-on, the second
 * step of a login), so a login started on one node completes on another. Values are encrypted with
 * SECRET_KEY. `take` is single-use under concurrency: only the caller whose DELETE removed the row gets it.
 */
@Injectable()
export class PendingStateService {
  private readonly box: SecretBox;

  constructor(
    private readonly states: PendingStateRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.box = new SecretBox(config.secretKey);
  }

  /** Keyed digest of a browser-held handle: the database never holds the handle itself. */
  digest(handle: string): string {
    return this.box.mac(handle);
  }

  /**
   * Stores a new entry; false when the key is already taken (the replay records rely on it). An entry with a
   * `clientIp` is a pending login: then the address's oldest pending logins beyond PENDING_LOGINS_PER_ADDRESS
   * are ended, so a new one is never refused because of what others behind that address began (issue 40).
   */
  async add<T>(key: string, provider: string, data: T, ttlSeconds: number, clientIp = ''): Promise<boolean> {
    if (!(await this.insert(key, provider, data, ttlSeconds, clientIp))) return false;
    if (clientIp) await this.evictBeyondCap(clientIp);
    return true;
  }

  private async insert<T>(key: string, provider: string, data: T, ttlSeconds: number, clientIp: string): Promise<boolean> {
    const now = this.clock.now();
    try {
      await this.states.insert({
        key,
        provider,
        data: this.box.encrypt(JSON.stringify(data)),
        created: now,
        expires: new Date(now.getTime() + ttlSeconds * 1000),
        clientIp,
      });
      return true;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // An expired leftover of the same key (not yet swept) does not count.
      if (!(await this.states.deleteIfExpired(key, now))) return false;
      return this.insert(key, provider, data, ttlSeconds, clientIp);
    }
  }

  /**
   * Ends the address's pending logins beyond the newest PENDING_LOGINS_PER_ADDRESS. Only second steps are
   * pending logins now: anonymous single sign-on starts store nothing, so they cannot end anyone's.
   */
  private async evictBeyondCap(clientIp: string): Promise<void> {
    const surplus = await this.states.beyondNewest(clientIp, PENDING_LOGINS_PER_ADDRESS);
    if (surplus.length) await this.states.deleteKeys(surplus);
  }

  /** Reads a live entry without consuming it. */
  async peek<T>(key: string): Promise<StoredState<T> | null> {
    const row = await this.states.find(key);
    if (!row || row.expires <= this.clock.now()) return null;
    return { provider: row.provider, data: this.open<T>(row) };
  }

  /** Consumes a live entry: at most one caller, on any node, ever gets it. */
  async take<T>(key: string): Promise<StoredState<T> | null> {
    const row = await this.states.find(key);
    if (!row) return null;
    if (!(await this.states.delete(key)) || row.expires <= this.clock.now()) return null;
    return { provider: row.provider, data: this.open<T>(row) };
  }

  remove(key: string): Promise<boolean> {
    return this.states.delete(key);
  }

  /**
   * Deletes expired entries, then restores the global ceiling of pending logins; how many it deleted.
   * Each step is a batch of at most PENDING_STATE_SWEEP_BATCH rows, SWEEP_BATCHES batches per step.
   */
  async sweep(ceiling = PENDING_LOGINS_CEILING): Promise<number> {
    let deleted = await this.inBatches(() => this.states.deleteExpired(this.clock.now()));
    // Addresses are cheap (IPv6): the per-address cap alone does not bound the table. Those nearest their
    // expiry go first, in slices of expiry time; replay caches and other state (no client address) never.
    const now = this.clock.now().getTime();
    for (let ahead = CEILING_SLICE_SECONDS; ahead <= LONGEST_PENDING_LOGIN_SECONDS; ahead += CEILING_SLICE_SECONDS) {
      if ((await this.states.countPendingLogins()) <= ceiling) break;
      const before = new Date(now + ahead * 1000);
      deleted += await this.inBatches(() => this.states.deletePendingLoginsExpiringBefore(before));
    }
    return deleted;
  }

  private async inBatches(batch: () => Promise<number>): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < SWEEP_BATCHES; i++) {
      const n = await batch();
      deleted += n;
      if (n < PENDING_STATE_SWEEP_BATCH) break;
    }
    return deleted;
  }

  private open<T>(row: PendingState): T {
    return JSON.parse(this.box.decrypt(row.data ?? 'null')) as T;
  }
}
