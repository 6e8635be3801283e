import type { Logger } from '@nestjs/common';

export interface WriteBehindOptions<T> {
  /** The log lines' prefix: `<name>_write_failed`, `<name>_dropped`. */
  name: string;
  logger: Logger;
  /** How soon after the first queued item a write starts. */
  delayMs: number;
  /** At most this many wait while the database refuses them; beyond, the oldest are dropped and counted. */
  max: number;
  /** Writes a prefix of the queue and says how long it was; throws when the database refused it. */
  write(queue: readonly T[]): Promise<number>;
  /** Told of an item dropped unwritten. */
  dropped?(item: T): void;
}

/**
 * A queue written just after the answer (SPEC §23's records): items wait at most `delayMs`, are written a prefix at a
 * time, and are retried every second while the database refuses them, so a request never waits for its record and
 * a failed write never fails it. `flush` writes what waits (a SIGTERM, a test).
 */
export class WriteBehind<T> {
  private readonly queue: T[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private droppedCount = 0;

  constructor(private readonly opts: WriteBehindOptions<T>) {}

  push(item: T): void {
    if (this.queue.length >= this.opts.max) {
      const oldest = this.queue.shift()!;
      this.opts.dropped?.(oldest);
      this.droppedCount++;
    }
    this.queue.push(item);
    this.schedule(this.opts.delayMs);
  }

  /** Writes what is queued; resolves once the queue is empty or the database refused a write. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (!this.queue.length) return;
    this.flushing = this.writeQueued().finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length) {
      try {
        this.queue.splice(0, await this.opts.write(this.queue));
      } catch (err) {
        this.opts.logger.warn({ event: `${this.opts.name}_write_failed`, queued: this.queue.length, error: String((err as Error)?.message ?? err) });
        this.schedule(1000);
        return;
      }
    }
    if (this.droppedCount) {
      this.opts.logger.warn({ event: `${this.opts.name}_dropped`, dropped: this.droppedCount });
      this.droppedCount = 0;
    }
  }
}
