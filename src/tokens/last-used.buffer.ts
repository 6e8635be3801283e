import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { LastUse, TokensRepository } from './tokens.repository';

/** How often buffered `last_used` stamps are written: one batched UPDATE per period, not one per request. */
export const LAST_USED_FLUSH_MS = 15_000;
const BATCH = 500;

/**
 * `last_used` and `last_used_ip` without a database write per request (SPEC §12, §15; AWX #4694 saw row
 * locks from exactly that write). Each bearer request stamps the token here in memory, time and address
 * together; a background loop (src/background-work.ts) writes every pending stamp in one UPDATE, both
 * columns at once, and a last flush runs at shutdown. Reads on this node see the pending value at once;
 * other nodes see it after the next flush.
 */
@Injectable()
export class LastUsedBuffer {
  private readonly logger = new Logger('tokens');
  private pending = new Map<number, LastUse>();

  constructor(
    private readonly repository: TokensRepository,
    private readonly clock: Clock,
  ) {}

  /** On every bearer request, in memory only; a token used again before the flush updates its entry in place. */
  touch(tokenId: number, ip: string): void {
    const at = this.clock.now();
    const entry = this.pending.get(tokenId);
    if (entry) {
      entry.at = at;
      entry.ip = ip;
    } else {
      this.pending.set(tokenId, { at, ip });
    }
  }

  /** The newest use, time and address: a pending one on this node wins over the stored one. */
  lastUse(tokenId: number, stored: { lastUsed: Date | null; lastUsedIp: string | null }): { at: Date | null; ip: string | null } {
    const pending = this.pending.get(tokenId);
    return pending ? { at: pending.at, ip: pending.ip } : { at: stored.lastUsed, ip: stored.lastUsedIp };
  }

  forget(tokenIds: number[]): void {
    for (const id of tokenIds) this.pending.delete(id);
  }

  /** Writes every pending stamp, BATCH to a statement (`UPDATE ... SET last_used = CASE id WHEN ? THEN ? ... END, last_used_ip = CASE ... END WHERE id IN (...)`). */
  async flush(): Promise<number> {
    if (!this.pending.size || !this.repository.connected) return 0;
    const batch = [...this.pending];
    this.pending = new Map();
    let written = 0;
    for (let i = 0; i < batch.length; i += BATCH) {
      const slice = batch.slice(i, i + BATCH);
      try {
        written += await this.repository.writeLastUsed(slice);
      } catch (err) {
        // Keep the stamps for the next attempt unless a newer one arrived meanwhile.
        for (const [id, use] of slice) if (!this.pending.has(id)) this.pending.set(id, use);
        this.logger.warn({ event: 'last_used_flush_failed', error: String((err as Error)?.message ?? err) });
        break;
      }
    }
    return written;
  }
}
