import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, MoreThan, Repository } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/secret-box';
import { isUniqueViolation } from '../database/errors';
import { PendingState } from './pending-state.entity';

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
    @InjectRepository(PendingState) private readonly states: Repository<PendingState>,
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
      const removed = await this.states.delete({ key, expires: LessThan(now) });
      if (!removed.affected) return false;
      return this.add(key, provider, data, ttlSeconds, clientIp);
    }
  }

  /** Reads a live entry without consuming it. */
  async peek<T>(key: string): Promise<StoredState<T> | null> {
    const row = await this.states.findOneBy({ key });
    if (!row || row.expires <= this.clock.now()) return null;
    return { provider: row.provider, data: this.open<T>(row) };
  }

  /** Consumes a live entry: at most one caller, on any node, ever gets it. */
  async take<T>(key: string): Promise<StoredState<T> | null> {
    const row = await this.states.findOneBy({ key });
    if (!row) return null;
    const removed = await this.states.delete({ key });
    if (!removed.affected || row.expires <= this.clock.now()) return null;
    return { provider: row.provider, data: this.open<T>(row) };
  }

  async remove(key: string): Promise<boolean> {
    const removed = await this.states.delete({ key });
    return !!removed.affected;
  }

  /**
   * False when this address already has PENDING_LOGINS_PER_ADDRESS pending logins unexpired: anonymous
   * requests cannot grow the table without bound (an index on (client_ip, expires) answers the count).
   */
  async hasRoomFor(clientIp: string): Promise<boolean> {
    const pending = await this.states.count({ where: { clientIp, expires: MoreThan(this.clock.now()) } });
    return pending < PENDING_LOGINS_PER_ADDRESS;
  }

  async sweep(): Promise<number> {
    const removed = await this.states.delete({ expires: LessThan(this.clock.now()) });
    return removed.affected ?? 0;
  }

  private open<T>(row: PendingState): T {
    return JSON.parse(this.box.decrypt(row.data ?? 'null')) as T;
  }
}
