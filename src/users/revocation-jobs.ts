import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { inBatches } from '../database/batch-statements';
import { dateFromDatabase } from '../database/prepared-statements';
import type { RevocationJob } from './revocation-job.entity';
import { UsersRepository } from './users.repository';

/**
 * Rows one clean-up batch touches: one statement each, small enough that no request waits long for it
 * (on SQLite a statement holds the event loop: 300 rows with their index entries take about 30 ms).
 */
export const CLEANUP_BATCH = 300;

/**
 * A cut-off: now, or the newest creation time among the credentials it revokes if that is later (a row
 * written by a node whose clock runs ahead). `newest` is what the database returned for MAX(created):
 * a Date (MySQL), UTC text (SQLite), or null.
 */
export function latest(now: Date, newest: unknown): Date {
  const t = dateFromDatabase(newest);
  return !t || Number.isNaN(t.getTime()) || t.getTime() <= now.getTime() ? now : t;
}

/** A batch of clean-up work: ends or deletes at most CLEANUP_BATCH rows of a job; returns how many. */
export type CleanupBatch = (job: RevocationJob) => Promise<number>;

/**
 * The queue of clean-up owed after revocations by cut-off. Revoking writes the cut-off and a job in one
 * transaction; the background loop (src/background-work.ts) then works each job off in batches, yielding
 * between them, and deletes it when a batch comes back short. Idempotent, so two nodes may share a job.
 */
@Injectable()
export class RevocationJobs {
  private readonly logger = new Logger('revocation');

  constructor(private readonly repository: UsersRepository) {}

  /** Queues a job in the caller's transaction (the one that writes the cut-off). */
  add(manager: EntityManager, job: Omit<RevocationJob, 'id'>): Promise<void> {
    return this.repository.addJob(manager, job);
  }

  /**
   * Works off the pending jobs of one kind until none is left or `budgetMs` is spent; returns the rows
   * it touched. Between batches the event loop gets a turn (SQLite runs statements synchronously).
   */
  async work(kind: RevocationJob['kind'], batch: CleanupBatch, budgetMs = 5000): Promise<number> {
    const deadline = Date.now() + budgetMs;
    let total = 0;
    for (const job of await this.repository.pendingJobs(kind)) {
      const finished = await inBatches(async () => {
        const touched = await batch(job);
        total += touched;
        return touched >= CLEANUP_BATCH;
      }, deadline);
      if (!finished) return total;
      await this.repository.deleteJob(job.id);
      this.logger.log({ event: 'revocation_cleaned', kind, user_id: job.userId, reason: job.reason });
    }
    return total;
  }
}
