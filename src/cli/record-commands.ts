import { Injectable } from '@nestjs/common';
import { ActivityStreamRetention } from '../activity-stream/activity-stream-retention';
import { AuthenticationEventsRetention } from '../authentication-events/authentication-events-retention';
import { SettingsService } from '../settings/settings.service';
import { CommandError } from './command-error';
import { CommandRunner } from './command-layer';

/** A flag's value as a whole number of at least `min`, else the command's one-line error naming the flag. */
export function wholeNumber(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new CommandError(`${flag} must be an integer of at least ${min}.`);
  }
  return Number(value);
}

/**
 * `cleanup_authentication_events [--days N] [--dry-run]` (SPEC §23): the events older than N days (default
 * AUTH_EVENTS_RETENTION_DAYS; 0: every event made before the command started) deleted at once, in batches.
 */
@Injectable()
export class CleanupAuthenticationEventsCommand extends CommandRunner {
  constructor(
    private readonly retention: AuthenticationEventsRetention,
    private readonly settings: SettingsService,
  ) {
    super();
  }

  async run(_: string[], options: { days?: string; dryRun?: boolean }): Promise<void> {
    const days = wholeNumber('--days', options.days, 0) ?? this.settings.get<number>('AUTH_EVENTS_RETENTION_DAYS');
    const count = await this.retention.cleanup(days, !!options.dryRun);
    console.log(options.dryRun ? `Would remove ${count} items` : `Removed ${count} items`);
  }
}

/**
 * `cleanup_activitystream [--days N] [--dry-run] [--batch-size X]` (AWX's command, SPEC §23): the entries older than
 * N days (default 90; 0: every entry made before the command started) deleted in batches of X (default 500);
 * a dry run prints each entry it would delete (AWX's `would delete "<entry>" id: <id>`) and deletes nothing.
 */
@Injectable()
export class CleanupActivityStreamCommand extends CommandRunner {
  constructor(private readonly retention: ActivityStreamRetention) {
    super();
  }

  async run(_: string[], options: { days?: string; dryRun?: boolean; batchSize?: string }): Promise<void> {
    const days = wholeNumber('--days', options.days, 0) ?? 90;
    const batchSize = wholeNumber('--batch-size', options.batchSize, 1) ?? 500;
    const each = options.dryRun
      ? (e: { id: number; operation: string; timestamp: Date }) => console.log(`would delete "${e.operation}-${e.timestamp.toISOString()}-pk=${e.id}" id: ${e.id}`)
      : undefined;
    const count = await this.retention.cleanup(days, batchSize, Infinity, each);
    if (!options.dryRun) console.log(`Removed ${count} items`);
  }
}
