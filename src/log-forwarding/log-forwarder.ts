import { hostname } from 'node:os';
import { join } from 'node:path';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AuthMetrics } from '../common/auth-metrics';
import { trustedCas } from '../common/trusted-cas';
import { InstallationUuid } from '../settings/installation-uuid';
import { SettingsService } from '../settings/settings.service';
import { ForwardRecord, RecordOrigin, formatRecord, isForwarded } from './log-records';
import { LogSpool } from './log-spool';
import { HttpsTransport, LogTransport, TcpTransport, UdpTransport } from './log-transports';
import { ForwardingConfig, forwardingConfig } from './logging-settings';

/** The memory queue's byte bound beside LOG_AGGREGATOR_ACTION_QUEUE_SIZE's count (SPEC §23). */
const MEMORY_BYTES = 64 * 1024 * 1024;
/** The logger context of the forwarder's own lines, which are never forwarded (a record about a record would loop). */
export const FORWARDER_CONTEXT = 'log_forwarding';

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * SPEC §23's forwarding, per server process: records are shaped as they are made and queued; one delivery loop
 * sends them oldest first, so no request ever waits for the receiver. While it is down they wait in memory (at
 * most LOG_AGGREGATOR_ACTION_QUEUE_SIZE records and MEMORY_BYTES), then in this process's folder (at most
 * LOG_AGGREGATOR_ACTION_MAX_DISK_USAGE_GB), then new ones are dropped and counted; once delivery works again one
 * warning record says how many.
 */
@Injectable()
export class LogForwarder implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(FORWARDER_CONTEXT);
  private readonly memory: string[] = [];
  private memoryBytes = 0;
  private spool?: LogSpool;
  private dropped = 0;
  private pumping = false;
  private retry?: NodeJS.Timeout;
  private stopped = false;
  private readonly stopping: (() => void)[] = [];
  private origin: RecordOrigin;
  private readonly transports: Record<ForwardingConfig['protocol'], LogTransport>;

  constructor(
    private readonly settings: SettingsService,
    private readonly installation: InstallationUuid,
    private readonly metrics: AuthMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.origin = { hostName: hostname(), node: config.nodeName, installationUuid: '' };
    this.transports = { tcp: new TcpTransport(), udp: new UdpTransport(), https: new HttpsTransport(() => trustedCas(config.extraCaCertsFile)) };
  }

  async onModuleInit(): Promise<void> {
    this.origin.installationUuid = await this.installation.get();
    // What ended processes of this node left waits before anything this process makes.
    const settings = this.current();
    const spool = this.spoolFor(settings);
    if (spool.adoptEnded(settings.diskPath, this.nodeFolder(), isRunning) > 0 || this.hasOwnBacklog(spool)) this.kick();
  }

  current(): ForwardingConfig {
    return forwardingConfig((key) => this.settings.get(key));
  }

  /** Whether a record of this kind would be sent now (asked before a record is built). */
  wants(record: Pick<ForwardRecord, 'logger' | 'loggerName' | 'level'>): boolean {
    return this.on() && isForwarded(this.current(), record);
  }

  /** The cheap first question of every log line: is forwarding on at all? */
  private on(): boolean {
    return !this.stopped && this.settings.get('LOG_AGGREGATOR_ENABLED') === true;
  }

  /** Shapes and queues one record; never waits for, nor fails because of, the receiver. */
  submit(record: ForwardRecord): void {
    if (!this.on()) return;
    const settings = this.current();
    if (!isForwarded(settings, record)) return;
    this.enqueue(settings, formatRecord(settings, this.origin, record));
    this.kick();
  }

  /** Records waiting in memory and on disk. */
  waiting(): number {
    return this.memory.length + (this.spool?.records ?? 0);
  }

  private enqueue(settings: ForwardingConfig, payload: string): void {
    const bytes = Buffer.byteLength(payload);
    const spooling = (this.spool?.records ?? 0) > 0;
    if (!spooling && this.memory.length < settings.queueSize && this.memoryBytes + bytes <= MEMORY_BYTES) {
      this.memory.push(payload);
      this.memoryBytes += bytes;
    } else if (!this.spoolFor(settings).append(payload, settings.maxDiskBytes)) {
      if (this.dropped === 0) this.logger.warn({ event: 'log_records_dropping', queued: this.waiting() });
      this.dropped++;
      this.metrics.logRecordsDropped.inc();
    }
    this.metrics.logRecordsQueued.set(this.waiting());
  }

  private nodeFolder(): string {
    return this.config.nodeName.replace(/[^A-Za-z0-9._-]/g, '_');
  }

  /** This process's folder under the configured path; a new path is taken once the old folder is empty. */
  private spoolFor(settings: ForwardingConfig): LogSpool {
    const folder = join(settings.diskPath, `${this.nodeFolder()}-${process.pid}`);
    if (!this.spool || (this.spool.folder !== folder && this.spool.records === 0)) this.spool = new LogSpool(folder);
    return this.spool;
  }

  private hasOwnBacklog(spool: LogSpool): boolean {
    try {
      spool.prepare();
    } catch {
      return false;
    }
    return spool.records > 0;
  }

  /** Starts the delivery loop unless it runs, or waits for its retry. */
  private kick(): void {
    if (this.pumping || this.retry || this.stopped) return;
    void this.pump();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      for (;;) {
        const settings = this.current();
        if (this.stopped || !settings.enabled || !settings.host || (settings.protocol !== 'https' && settings.port === null)) return;
        if (!this.memory.length && this.spool?.records) this.refill();
        const payload = this.memory[0];
        if (payload === undefined) return;
        const started = Date.now();
        const failure = await this.attempt(settings, payload);
        if (failure) {
          // Retried at least every LOG_AGGREGATOR_TCP_TIMEOUT from the start of the failed attempt.
          this.retry = setTimeout(() => {
            this.retry = undefined;
            this.kick();
          }, Math.max(0, settings.timeoutMs - (Date.now() - started)));
          this.retry.unref();
          return;
        }
        if (this.memory[0] === payload) {
          this.memory.shift();
          this.memoryBytes -= Buffer.byteLength(payload);
        }
        this.metrics.logRecordsQueued.set(this.waiting());
        if (this.dropped) this.reportDropped(settings);
      }
    } finally {
      this.pumping = false;
    }
  }

  private refill(): void {
    for (const payload of this.spool!.takeOldest()) {
      this.memory.push(payload);
      this.memoryBytes += Buffer.byteLength(payload);
    }
  }

  /** One delivery; the reason it failed, or undefined. */
  private async attempt(settings: ForwardingConfig, payload: string): Promise<string | undefined> {
    let failure: string | undefined;
    try {
      await this.transports[settings.protocol].send(settings, payload);
    } catch (err) {
      failure = String((err as Error)?.message ?? err);
    }
    if (settings.debug) {
      this.logger.log({ event: 'log_forward_attempt', host: settings.host, port: settings.port, protocol: settings.protocol, outcome: failure ? 'failed' : 'delivered', ...(failure ? { error: failure } : {}) });
    }
    return failure;
  }

  /** Delivery works again after drops: one warning record, sent whatever the loggers and level say. */
  private reportDropped(settings: ForwardingConfig): void {
    const dropped = this.dropped;
    this.dropped = 0;
    const message = `${dropped} log records were dropped while the log aggregator was unavailable.`;
    this.logger.warn({ event: 'log_records_dropped', dropped, msg: message });
    const record: ForwardRecord = { logger: 'awx', loggerName: 'awx', level: 'WARNING', message, fields: { dropped }, at: new Date(), always: true };
    // Recorded now, so it goes after what already waits (a process delivers in the order it records).
    this.enqueue(settings, formatRecord(settings, this.origin, record));
  }

  /** What submits its last records at a SIGTERM, before they are spooled. */
  beforeStopping(hook: () => void): void {
    this.stopping.push(hook);
  }

  /** SIGTERM: what waits in memory goes to this process's folder, before what is there, for the next start. */
  beforeApplicationShutdown(): void {
    for (const hook of this.stopping) hook();
    this.stopped = true;
    clearTimeout(this.retry);
    if (this.memory.length) {
      const settings = this.current();
      if (this.spoolFor(settings).prepend(this.memory.splice(0))) this.memoryBytes = 0;
    }
    for (const transport of Object.values(this.transports)) transport.close();
  }
}
