import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isDatabaseUnavailable } from './errors';
import { NO_REQUEST, RequestTrace } from './request-trace';

/** Repeated failures are logged once per interval, with how many there were (not once per request). */
const LOG_INTERVAL_MS = 10_000;

/**
 * What this node knows of its database (SPEC §1): requests that fail because it cannot be reached
 * mark it down, `GET /api/v2/ping/` answers 503 while it is down without querying it, and a light
 * probe (the `database-probe` loop) marks it up again as soon as a query succeeds, without a restart.
 */
@Injectable()
export class DatabaseHealth {
  private readonly logger = new Logger('database');
  private downSince: number | null = null;
  private failures = 0;
  private lastLogged = 0;
  private probing: Promise<void> | null = null;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  get isDown(): boolean {
    return this.downSince !== null;
  }

  /**
   * True (and the node marked down, the failure counted for the log) when `err` means the database is
   * unreachable; `trace` is the request that met it, if a request did.
   */
  noteFailure(err: unknown, trace: RequestTrace): boolean {
    if (!isDatabaseUnavailable(err)) return false;
    this.downSince ??= Date.now();
    this.failures++;
    const now = Date.now();
    if (now - this.lastLogged >= LOG_INTERVAL_MS) {
      const e = err as { code?: string; driverError?: { code?: string } };
      this.logger.error({ event: 'database_unavailable', code: e?.driverError?.code ?? e?.code, failures_since_last_line: this.failures, ...trace });
      this.lastLogged = now;
      this.failures = 0;
    }
    return true;
  }

  /**
   * Whether the database answers, for the ping (issue 28): while marked down, a probe now (shared with
   * concurrent pings and the probe loop), waited for at most `waitMs`. So the ping turns 200 as soon as a
   * request could reach the database, not at the next round of the loop.
   */
  async answers(waitMs: number): Promise<boolean> {
    if (!this.isDown) return true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.probe(), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    return !this.isDown;
  }

  /** The probe: only while down, one `SELECT 1` at a time. */
  probe(): Promise<void> {
    if (!this.isDown) return Promise.resolve();
    this.probing ??= this.runProbe().finally(() => (this.probing = null));
    return this.probing;
  }

  private async runProbe(): Promise<void> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch (err) {
      this.noteFailure(err, NO_REQUEST);
      return;
    }
    this.logger.log({ event: 'database_available', down_ms: Date.now() - (this.downSince ?? Date.now()) });
    this.downSince = null;
    this.failures = 0;
    this.lastLogged = 0;
  }
}
