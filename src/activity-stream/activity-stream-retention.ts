import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { SettingsService } from '../settings/settings.service';
import type { ActivityEntry } from './activity-entry.entity';
import { ActivityStreamRepository } from './activity-stream.repository';

/** A background pass deletes at most this many batches of 500; the next pass goes on. */
const BATCHES_PER_PASS = 20;
const SWEEP_BATCH = 500;
const DAY_MS = 24 * 60 * 60 * 1000;

/** SPEC §23's ACTIVITY_STREAM_RETENTION_DAYS (the background sweep) and `cleanup_activitystream`. */
@Injectable()
export class ActivityStreamRetention {
  constructor(
    private readonly repository: ActivityStreamRepository,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
  ) {}

  /** One pass of the background sweep (0: keep everything). */
  async sweepOnce(): Promise<number> {
    const days = this.settings.get<number>('ACTIVITY_STREAM_RETENTION_DAYS');
    if (days === 0) return 0;
    return this.cleanup(days, SWEEP_BATCH, BATCHES_PER_PASS);
  }

  /**
   * The entries older than `days` days (0: every entry made before now) deleted in batches of `batchSize`, at
   * most `maxBatches`; `each` is told every entry of a dry run instead. How many it removed (or would).
   */
  async cleanup(days: number, batchSize: number, maxBatches = Infinity, each?: (entry: ActivityEntry) => void): Promise<number> {
    const before = new Date(this.clock.now().getTime() - days * DAY_MS);
    let removed = 0;
    let after = 0;
    for (let i = 0; i < maxBatches; i++) {
      const batch = await this.repository.olderThan(before, batchSize, after);
      if (!batch.length) break;
      if (each) batch.forEach(each);
      else await this.repository.remove(batch.map((e) => e.id));
      removed += batch.length;
      after = batch[batch.length - 1].id;
      if (batch.length < batchSize) break;
    }
    return removed;
  }
}
