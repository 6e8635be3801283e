import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/secret-box';
import { isUniqueViolation } from '../database/errors';
import { PendingState } from './pending-state.entity';
import { PENDING_STATE_SWEEP_BATCH, PendingStateRepository } from './pending-state.repository';

/** One sweep deletes at most this many batches (a flood of anonymous starts is cleared over a few sweeps). */
const SWEEP_BATCHES = 20;

/** Pending logins (single sign-on, second step) one client address may have at once (each lives 10 minutes at most). */
export const PENDING_LOGINS_PER_ADDRESS = 30;

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

  /** Stores a new entry; false when the key is already taken (used by the replay cache). */
  async add<T>(key: string, provider: string, data: T, ttlSeconds: number, clientIp = ''): Promise<boolean> {
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
      return this.add(key, provider, data, ttlSeconds, clientIp);
    }
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
   * False when this address already has PENDING_LOGINS_PER_ADDRESS pending logins unexpired: anonymous
   * requests cannot grow the table without bound (an index on (client_ip, expires) answers the count).
   */
  async hasRoomFor(clientIp: string): Promise<boolean> {
    return (await this.states.countLive(clientIp, this.clock.now())) < PENDING_LOGINS_PER_ADDRESS;
  }

  /** Deletes expired entries, a batch at a time, at most SWEEP_BATCHES batches; how many. */
  async sweep(): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < SWEEP_BATCHES; batch++) {
      const n = await this.states.deleteExpired(this.clock.now());
      deleted += n;
      if (n < PENDING_STATE_SWEEP_BATCH) break;
    }
    return deleted;
  }

  private open<T>(row: PendingState): T {
    return JSON.parse(this.box.decrypt(row.data ?? 'null')) as T;
  }
}
