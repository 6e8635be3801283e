import { Logger } from '@nestjs/common';

const WINDOW_MS = 60_000;

/**
 * Logs an event at most once a minute per key, carrying how many were folded into it, so that every
 * basic or bearer request is accounted for without one log line per API call.
 */
export class SampledLog {
  private readonly seen = new Map<string, { until: number; suppressed: number }>();

  constructor(private readonly logger: Logger) {}

  log(key: string, event: Record<string, unknown>, now = Date.now()): void {
    const entry = this.seen.get(key);
    if (entry && entry.until > now) {
      entry.suppressed++;
      return;
    }
    if (this.seen.size > 10_000) this.seen.clear();
    this.seen.set(key, { until: now + WINDOW_MS, suppressed: 0 });
    this.logger.log({ ...event, requests_since_last: (entry?.suppressed ?? 0) + 1, sampled: true });
  }
}
