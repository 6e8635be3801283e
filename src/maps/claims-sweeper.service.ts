import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { NO_REQUEST } from '../common/request-context';
import { SettingsService } from '../settings/settings.service';
import { LoginClaimsRepository } from './login-claims.repository';

/** Stored claims past AUTH_CLAIMS_RETENTION_DAYS are deleted this often, a batch at a time. */
export const CLAIMS_SWEEP_MS = 60 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/** The background sweep of stored login claims (SPEC §21): older than the retention, gone. */
@Injectable()
export class ClaimsSweeper {
  private readonly logger = new Logger('maps');

  constructor(
    private readonly store: LoginClaimsRepository,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
  ) {}

  /** One pass; returns how many records went. */
  async sweepOnce(): Promise<number> {
    const days = this.settings.get<number>('AUTH_CLAIMS_RETENTION_DAYS');
    // 0 keeps none: everything stored before now goes.
    const cutoff = new Date(this.clock.now().getTime() - days * DAY_MS + (days === 0 ? 1 : 0));
    const total = await this.store.sweep(cutoff);
    if (total) this.logger.log({ event: 'login_claims_swept', deleted: total, retention_days: days, ...NO_REQUEST });
    return total;
  }
}
