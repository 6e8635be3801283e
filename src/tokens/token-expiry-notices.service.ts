import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AuthMetrics } from '../common/auth-metrics';
import { Clock } from '../common/clock';
import { SettingsService } from '../settings/settings.service';
import {
  EXPIRING_PAGE,
  ExpiringToken,
  ExpiringTokensRepository,
  ExpiryPosition,
  NOTICE_BATCH,
  NOTICE_BATCHES_PER_PASS,
} from './expiring-tokens.repository';
import { revokedByCutoff } from './revocation-cutoff.entity';
import { TokensRepository } from './tokens.repository';

/**
 * Tokens nearing their expiry (SPEC §15): within TOKEN_EXPIRY_WARNING_SECONDS a token is "expiring soon".
 * Each is logged once as `token_expiring`, across every node: a pass of the loop (src/background-work.ts)
 * claims unnoticed tokens with one batched UPDATE that stamps its own claim id, then logs what that id
 * took, so two nodes never log one token twice. `svc_tokens_expiring_soon` counts them when scraped.
 * A warning window of 0 turns all of it off.
 */
@Injectable()
export class TokenExpiryNotices implements OnModuleInit {
  private readonly logger = new Logger('tokens');

  constructor(
    private readonly repository: ExpiringTokensRepository,
    private readonly tokens: TokensRepository,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly metrics: AuthMetrics,
  ) {}

  onModuleInit(): void {
    this.metrics.setExpiringTokensSource(() => this.countExpiringSoon());
  }

  /** One pass: at most NOTICE_BATCHES_PER_PASS claims of NOTICE_BATCH tokens; how many it logged. */
  async noticeExpiring(): Promise<number> {
    const window = this.settings.get('TOKEN_EXPIRY_WARNING_SECONDS');
    if (window <= 0) return 0;
    const now = this.clock.now();
    const until = new Date(now.getTime() + window * 1000);
    const systemCutoff = await this.tokens.systemCutoff();
    let logged = 0;
    for (let batch = 0; batch < NOTICE_BATCHES_PER_PASS; batch++) {
      const claim = randomBytes(16).toString('hex');
      const claimed = await this.repository.claim(claim, now, until, NOTICE_BATCH);
      if (!claimed) break;
      for (const token of await this.repository.claimedBy(claim)) {
        // Revoked by a cut-off that the clean-up has not reached yet: claimed, so never noticed later either.
        if (revokedByCutoff(token.created, token.tokensRevokedBefore, systemCutoff)) continue;
        this.logger.log({
          event: 'token_expiring',
          token_id: token.id,
          user_id: token.userId,
          username: token.username,
          application_id: token.applicationId,
          expires: token.expires.toISOString(),
          expires_in: Math.max(0, Math.round((token.expires.getTime() - now.getTime()) / 1000)),
        });
        logged++;
      }
      if (claimed < NOTICE_BATCH) break;
    }
    return logged;
  }

  /** Live tokens expiring within the warning window (the metric). */
  async countExpiringSoon(): Promise<number> {
    const window = this.settings.get('TOKEN_EXPIRY_WARNING_SECONDS');
    if (window <= 0) return 0;
    const now = this.clock.now();
    return this.repository.count(now, new Date(now.getTime() + window * 1000), await this.tokens.systemCutoff());
  }

  /** Every live token expiring within `seconds`, in expiry order, a page at a time (`list_expiring_tokens`). */
  async eachExpiringWithin(seconds: number, page: (tokens: ExpiringToken[]) => void): Promise<number> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + seconds * 1000);
    const systemCutoff = await this.tokens.systemCutoff();
    let after: ExpiryPosition | null = null;
    let total = 0;
    for (;;) {
      const rows = await this.repository.page(now, until, systemCutoff, after, EXPIRING_PAGE);
      if (rows.length) page(rows);
      total += rows.length;
      if (rows.length < EXPIRING_PAGE) return total;
      const last = rows[rows.length - 1];
      after = { expires: last.expires, id: last.id };
    }
  }
}
