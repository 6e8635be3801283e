import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource, In, IsNull } from 'typeorm';
import { Clock } from '../common/clock';
import { Session } from './session.entity';

const BATCH = 500;
const KEEP_ENDED_MS = 24 * 60 * 60 * 1000;
/** How often the background loop sweeps (src/background-work.ts). */
export const SESSION_SWEEP_MS = 60 * 1000;

export interface SweepResult {
  expired: number;
  deleted: number;
}

/**
 * Background clean-up in small batches: stamps sessions that ran out with their reason, and deletes
 * ended sessions only once they have kept their reason for 24 hours (SPEC §3).
 */
@Injectable()
export class SessionSweeper {
  private readonly logger = new Logger('sessions');
  private running = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  /** One pass of at most a few batches, so a busy node is never stalled. */
  async sweepOnce(maxBatches = 4): Promise<SweepResult> {
    if (this.running) return { expired: 0, deleted: 0 };
    this.running = true;
    try {
      const result = { expired: 0, deleted: 0 };
      for (let i = 0; i < maxBatches; i++) {
        const step = await this.batch();
        result.expired += step.expired;
        result.deleted += step.deleted;
        if (step.expired < BATCH && step.deleted < BATCH) break;
      }
      if (result.expired || result.deleted) this.logger.log({ event: 'sessions_swept', ...result });
      return result;
    } catch (err) {
      this.logger.warn({ event: 'session_sweep_failed', error: String((err as Error).message) });
      return { expired: 0, deleted: 0 };
    } finally {
      this.running = false;
    }
  }

  /** Sweeps until nothing is left (the cleanup_sessions command). */
  async sweepAll(onProgress?: (r: SweepResult) => void): Promise<SweepResult> {
    const total = { expired: 0, deleted: 0 };
    for (;;) {
      const step = await this.batch();
      total.expired += step.expired;
      total.deleted += step.deleted;
      onProgress?.(total);
      if (step.expired === 0 && step.deleted === 0) return total;
    }
  }

  private async batch(): Promise<SweepResult> {
    const now = this.clock.now();
    const repo = this.dataSource.getRepository(Session);
    const expired = await repo
      .createQueryBuilder('s')
      .select(['s.id', 's.expires', 's.absoluteExpires'])
      .where('s.endedAt IS NULL')
      .andWhere(new Brackets((b) => b.where('s.expires <= :now', { now }).orWhere('s.absoluteExpires <= :now', { now })))
      .take(BATCH)
      .getMany();
    for (const s of expired) {
      const absolute = s.absoluteExpires && s.absoluteExpires.getTime() <= now.getTime();
      await repo.update(
        { id: s.id, endedAt: IsNull() },
        { endedAt: absolute ? s.absoluteExpires! : s.expires, endedReason: absolute ? 'absolute_timeout' : 'idle_timeout' },
      );
    }
    const cutoff = new Date(now.getTime() - KEEP_ENDED_MS);
    const old = await repo.createQueryBuilder('s').select('s.id').where('s.endedAt < :cutoff', { cutoff }).take(BATCH).getMany();
    if (old.length) await repo.delete({ id: In(old.map((s) => s.id)) });
    return { expired: expired.length, deleted: old.length };
  }
}
