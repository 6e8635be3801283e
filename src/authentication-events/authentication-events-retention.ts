import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { SettingsService } from '../settings/settings.service';
import { AuthenticationEventsRepository } from './authentication-events.repository';

/** Deleted in statements of at most this many rows, so no delete holds the table for long. */
export const RETENTION_BATCH = 500;
/** A background pass deletes at most this many batches; the next pass goes on. */
const BATCHES_PER_PASS = 20;
const DAY_MS = 24 * 60 * 60 * 1000;

/** SPEC §23's AUTH_EVENTS_RETENTION_DAYS: the background sweep and `cleanup_authentication_events`. */
@Injectable()
export class AuthenticationEventsRetention {
  constructor(
    private readonly repository: AuthenticationEventsRepository,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
  ) {}

  /** One pass of the background sweep: a bounded number of small batches of the events past the setting. */
  sweepOnce(): Promise<number> {
    const days = this.settings.get<number>('AUTH_EVENTS_RETENTION_DAYS');
    return this.deleteOlderThan(new Date(this.clock.now().getTime() - days * DAY_MS), BATCHES_PER_PASS);
  }

  /** The command: every event older than `days` days (0: every event made before it started); how many. */
  async cleanup(days: number, dryRun: boolean): Promise<number> {
    const before = new Date(this.clock.now().getTime() - days * DAY_MS);
    return dryRun ? this.repository.countOlderThan(before) : this.deleteOlderThan(before, Infinity);
  }

  /** Deletes in batches of RETENTION_BATCH until none is left or `maxBatches` ran; how many it deleted. */
  private async deleteOlderThan(before: Date, maxBatches: number): Promise<number> {
    let removed = 0;
    for (let i = 0; i < maxBatches; i++) {
      const count = await this.repository.deleteIds(await this.repository.olderThan(before, RETENTION_BATCH));
      removed += count;
      if (count < RETENTION_BATCH) break;
    }
    if (removed) await this.repository.forgetPreviousLoginsBefore(before);
    return removed;
  }
}
