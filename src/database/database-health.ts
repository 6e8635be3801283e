import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { isDatabaseUnavailable } from './errors';
import { NO_REQUEST, RequestTrace } from '../common/request-context';

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

  /** The probe: only while down, one `SELECT 1`. */
  async probe(): Promise<void> {
    if (!this.isDown) return;
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
