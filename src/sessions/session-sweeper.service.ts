import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { NO_REQUEST } from '../common/request-context';
import { inBatches } from '../database/batch-statements';
import { RevocationJobs } from '../users/revocation-jobs';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

const KEEP_ENDED_MS = 24 * 60 * 60 * 1000;
/** A pass stops after this long and goes on at the next one; well above 100,000 rows a minute. */
const PASS_BUDGET_MS = 20_000;

export interface SweepResult {
  expired: number;
  deleted: number;
}

/**
 * Background clean-up (SPEC §3, issue 21): stamps sessions that ran out with their reason, deletes
 * ended sessions once they have kept their reason for 24 hours, and works off the rows that an "end
 * all" cut off. Each step is one statement per batch of rows that are due (found through an index on
 * `ended_at` and the expiry), with a turn for the event loop between batches.
 */
@Injectable()
export class SessionSweeper {
  private readonly logger = new Logger('sessions');
  private running = false;

  constructor(
    private readonly repository: SessionsRepository,
    private readonly clock: Clock,
    private readonly sessions: SessionsService,
    private readonly jobs: RevocationJobs,
  ) {}

  /** One pass: batches until nothing is due or the pass's time budget is spent. */
  async sweepOnce(budgetMs = PASS_BUDGET_MS): Promise<SweepResult> {
    if (this.running) return { expired: 0, deleted: 0 };
    this.running = true;
    const started = Date.now();
    try {
      const result = await this.sweep(started + budgetMs);
      if (result.expired || result.deleted) this.logger.log({ event: 'sessions_swept', ...result, duration_ms: Date.now() - started });
      return result;
    } finally {
      this.running = false;
    }
  }

  /** Sweeps until nothing is left (the cleanup_sessions command). */
  async sweepAll(onProgress?: (r: SweepResult) => void): Promise<SweepResult> {
    return this.sweep(Infinity, onProgress);
  }

  /** The rows an "end all sessions" cut off, stamped in batches (the revocation-cleanup loop). */
  cleanupRevoked(budgetMs?: number): Promise<number> {
    return this.jobs.work('sessions', (job) => this.sessions.cleanupBatch(job), budgetMs);
  }

  private async sweep(deadline: number, onProgress?: (r: SweepResult) => void): Promise<SweepResult> {
    const total = { expired: 0, deleted: 0 };
    await inBatches(async () => {
      const step = await this.batch();
      total.expired += step.expired;
      total.deleted += step.deleted;
      onProgress?.(total);
      return step.expired + step.deleted > 0;
    }, deadline);
    return total;
  }

  /** One batch of each kind: sessions past their absolute lifetime, idle ones, and ended ones kept long enough. */
  private async batch(): Promise<SweepResult> {
    const now = this.clock.now();
    // Absolute first: a session past both limits ended at its absolute expiry, as the request path says.
    const expired =
      (await this.sessions.reportingEnds((batch) => this.repository.stampExpiredBatch('absolute_expires', 'absolute_timeout', now, batch), NO_REQUEST)) +
      (await this.sessions.reportingEnds((batch) => this.repository.stampExpiredBatch('expires', 'idle_timeout', now, batch), NO_REQUEST));
    const deleted = await this.repository.deleteEndedBatch(new Date(now.getTime() - KEEP_ENDED_MS));
    return { expired, deleted };
  }
}
