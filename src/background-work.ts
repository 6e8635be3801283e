import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { Scheduler } from './common/scheduler';
import { DatabaseHealth } from './database/database-health';
import { DeviceCodes } from './oauth2/device-codes.service';
import { SessionSweeper } from './sessions/session-sweeper.service';
import { SessionWatcher, WATCH_INTERVAL_MS } from './sessions/session-watcher.service';
import { SETTINGS_REFRESH_MS, SettingsService } from './settings/settings.service';
import { PENDING_STATE_SWEEP_MS, PendingStateService } from './pending-state/pending-state.service';
import { LAST_USED_FLUSH_MS, LastUsedBuffer } from './tokens/last-used.buffer';
import { TokenExpiryNotices } from './tokens/token-expiry-notices.service';
import { TokenRevocationService } from './tokens/token-revocation.service';
import { LoginThrottle } from './users/login-throttle.service';
import { InactiveAccounts } from './users/inactive-accounts';
import { CLAIMS_SWEEP_MS, ClaimsSweeper } from './maps/claims-sweeper.service';
import { NO_REQUEST } from './common/request-context';
import { AuthenticationEventsRetention } from './authentication-events/authentication-events-retention';
import { ActivityStreamRetention } from './activity-stream/activity-stream-retention';

/** While the database is down, this node tries it this often (nothing runs while it is up). */
const DATABASE_PROBE_MS = 1000;

/** Rows cut off by an "end all" or "revoke all" are cleaned up this often (the cut-off already refuses them). */
const REVOCATION_CLEANUP_MS = 1000;

/** Expired login-throttle counters are deleted this often. */
const THROTTLE_SWEEP_MS = 60 * 1000;

/** Device codes expired for an hour are deleted this often (RFC 8628; a batch of 1,000 at a time). */
const DEVICE_CODE_SWEEP_MS = 60 * 1000;

/** Tokens entering TOKEN_EXPIRY_WARNING_SECONDS are claimed and logged (`token_expiring`) this often. */
const TOKEN_EXPIRY_NOTICE_MS = 60 * 1000;

/** SPEC §22: users idle for ACCOUNT_INACTIVE_DAYS are deactivated this often ("at least hourly"). */
const INACTIVITY_SWEEP_MS = 15 * 60 * 1000;

/** SPEC §23: authentication events past AUTH_EVENTS_RETENTION_DAYS are deleted this often, in small batches. */
const AUTH_EVENTS_RETENTION_MS = 10 * 60 * 1000;

/**
 * Every background loop of a service node, in one place (the CLI runs none). Each is named, has its
 * period, shows in the metrics, never overlaps itself, and stops on shutdown before the last flush
 * (see common/scheduler.ts). Two loops exist only to notice what another node changed: the settings
 * refresh and the session watch; docs/decisions.md says why polling is the right trade for them.
 */
@Injectable()
export class BackgroundWork implements OnApplicationBootstrap {
  constructor(
    private readonly scheduler: Scheduler,
    private readonly settings: SettingsService,
    private readonly sessionSweeper: SessionSweeper,
    private readonly sessionWatcher: SessionWatcher,
    private readonly lastUsed: LastUsedBuffer,
    private readonly pendingState: PendingStateService,
    private readonly throttle: LoginThrottle,
    private readonly database: DatabaseHealth,
    private readonly tokenRevocation: TokenRevocationService,
    private readonly deviceCodes: DeviceCodes,
    private readonly tokenExpiry: TokenExpiryNotices,
    private readonly claimsSweeper: ClaimsSweeper,
    private readonly inactiveAccounts: InactiveAccounts,
    private readonly authEventsRetention: AuthenticationEventsRetention,
    private readonly activityRetention: ActivityStreamRetention,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const s = this.scheduler;
    s.every('settings-refresh', SETTINGS_REFRESH_MS, () => this.settings.reload(NO_REQUEST));
    s.every('session-watch', WATCH_INTERVAL_MS, () => this.sessionWatcher.tick());
    s.every('last-used-flush', LAST_USED_FLUSH_MS, () => this.lastUsed.flush(), { final: () => this.lastUsed.flush() });
    if (this.config.sessionSweep) s.every('session-sweep', this.config.sessionSweepMs, () => this.sessionSweeper.sweepOnce());
    s.every('revocation-cleanup', REVOCATION_CLEANUP_MS, async () => {
      await this.sessionSweeper.cleanupRevoked();
      await this.tokenRevocation.cleanupRevoked();
    });
    s.every('pending-state-sweep', PENDING_STATE_SWEEP_MS, () => this.pendingState.sweep());
    s.every('throttle-sweep', THROTTLE_SWEEP_MS, () => this.throttle.sweep());
    s.every('device-code-sweep', DEVICE_CODE_SWEEP_MS, () => this.deviceCodes.sweep());
    s.every('login-claims-sweep', CLAIMS_SWEEP_MS, () => this.claimsSweeper.sweepOnce());
    s.every('inactive-accounts-sweep', INACTIVITY_SWEEP_MS, () => this.inactiveAccounts.sweep(NO_REQUEST));
    s.every('authentication-events-retention', AUTH_EVENTS_RETENTION_MS, () => this.authEventsRetention.sweepOnce());
    s.every('activity-stream-retention', AUTH_EVENTS_RETENTION_MS, () => this.activityRetention.sweepOnce());
    // Each token once across every node: a pass claims its tokens with one UPDATE before logging them.
    if (this.config.oauth2ProviderEnabled) s.every('token-expiry-notices', TOKEN_EXPIRY_NOTICE_MS, () => this.tokenExpiry.noticeExpiring());
    s.every('database-probe', DATABASE_PROBE_MS, () => this.database.probe());
  }
}
