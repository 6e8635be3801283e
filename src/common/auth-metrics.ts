import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { RequestLatency } from './request-latency';

/**
 * Prometheus metrics of the authentication layer (prom-client). One registry per application
 * instance, so several apps in one test process do not share counters.
 */
@Injectable()
export class AuthMetrics {
  readonly registry = new Registry();

  readonly logins = new Counter({
    name: 'svc_logins_total',
    help: 'Authentication attempts by method (session, basic, password_grant, oidc, saml) and outcome',
    labelNames: ['method', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly sessionsEnded = new Counter({
    name: 'svc_sessions_ended_total',
    help: 'Sessions ended, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly liveSessions = new Gauge({
    name: 'svc_live_sessions',
    help: 'Live browser sessions (all nodes), counted when scraped',
    registers: [this.registry],
  });

  readonly tokensExpiringSoon = new Gauge({
    name: 'svc_tokens_expiring_soon',
    help: 'Live access tokens expiring within TOKEN_EXPIRY_WARNING_SECONDS (all nodes), counted when scraped',
    registers: [this.registry],
  });

  readonly tokensIssued = new Counter({
    name: 'svc_tokens_issued_total',
    help: 'OAuth 2 access tokens issued, by kind (personal, application)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly tokensRevoked = new Counter({
    name: 'svc_tokens_revoked_total',
    help: 'OAuth 2 tokens revoked',
    registers: [this.registry],
  });

  readonly accountRefusals = new Counter({
    name: 'svc_account_refusals_total',
    help: 'Credentials refused by the account policy (inactive user, local authentication off), by credential kind and reason',
    labelNames: ['kind', 'reason'] as const,
    registers: [this.registry],
  });

  readonly throttled = new Counter({
    name: 'svc_login_throttled_total',
    help: 'Password attempts refused by the login throttle, by method',
    labelNames: ['method'] as const,
    registers: [this.registry],
  });

  readonly passwordVerifications = new Counter({
    name: 'svc_password_verifications_total',
    help: 'Password hashes computed to check a login attempt (known or unknown user); the throttle bounds these',
    registers: [this.registry],
  });

  readonly backgroundRuns = new Counter({
    name: 'svc_background_runs_total',
    help: 'Passes of the background loops (src/background-work.ts), by loop and outcome',
    labelNames: ['loop', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly backgroundLoopPeriod = new Gauge({
    name: 'svc_background_loop_period_seconds',
    help: 'The period of each declared background loop',
    labelNames: ['loop'] as const,
    registers: [this.registry],
  });

  readonly logRecordsDropped = new Counter({
    name: 'svc_log_records_dropped_total',
    help: 'Log records for the log aggregator dropped because neither the memory queue nor the disk folder had room (SPEC §23)',
    registers: [this.registry],
  });

  readonly logRecordsQueued = new Gauge({
    name: 'svc_log_records_queued',
    help: 'Log records of this process waiting for the log aggregator, in memory and on disk',
    registers: [this.registry],
  });

  readonly requestDuration = new RequestLatency(this.registry, [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]);

  private liveSessionsSource?: () => Promise<number>;
  private expiringTokensSource?: () => Promise<number>;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
  }

  /** The sessions module supplies the live count; it is read at scrape time only. */
  setLiveSessionsSource(source: () => Promise<number>): void {
    this.liveSessionsSource = source;
  }

  /** The tokens module supplies the count of tokens expiring soon; read at scrape time only, like the sessions. */
  setExpiringTokensSource(source: () => Promise<number>): void {
    this.expiringTokensSource = source;
  }

  async render(): Promise<string> {
    if (this.liveSessionsSource) this.liveSessions.set(await this.liveSessionsSource());
    if (this.expiringTokensSource) this.tokensExpiringSoon.set(await this.expiringTokensSource());
    return this.registry.metrics();
  }
}
