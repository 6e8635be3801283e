import { Logger } from '@nestjs/common';

const WINDOW_MS = 60_000;

type Level = 'log' | 'warn' | 'error';

/**
 * Logs an event at most once a minute per key, carrying how many were folded into it: every basic or
 * bearer request is accounted for without one line per API call, and a failure that repeats (a
 * background loop, the same unexpected error on every request) is one line a minute with its count.
 */
export class SampledLog {
  private readonly seen = new Map<string, { until: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly level: Level = 'log',
  ) {}

  /**
   * Writes the line if it is the first of its key's window; otherwise only counts it. The event is made
   * only when it is written: most calls (every basic or bearer request) are folded into a count.
   */
  log(key: string, event: () => Record<string, unknown>, now = Date.now(), detail?: string): void {
    const entry = this.seen.get(key);
    if (entry && entry.until > now) {
      entry.suppressed++;
      return;
    }
    if (this.seen.size > 10_000) this.seen.clear();
    this.seen.set(key, { until: now + WINDOW_MS, suppressed: 0 });
    const line = { ...event(), requests_since_last: (entry?.suppressed ?? 0) + 1, sampled: true };
    if (detail === undefined) this.logger[this.level](line);
    else this.logger[this.level](line, detail);
  }
}
