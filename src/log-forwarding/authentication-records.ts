import { Injectable, OnModuleInit } from '@nestjs/common';
import { authEventEntry } from '../authentication-events/authentication-event-list';
import type { AuthenticationEvent } from '../authentication-events/authentication-event.entity';
import { AuthEventListener, AuthenticationEventsRepository } from '../authentication-events/authentication-events.repository';
import { foldUsername } from '../users/usernames';
import { LogForwarder } from './log-forwarder';
import type { ForwardRecord } from './log-records';

const LOGGER_NAME = 'awx.analytics.authentication';
/** How often held `throttled` records are checked for the end of their lock. */
const RELEASE_EVERY_MS = 1000;

/**
 * The `authentication` logger (ours, SPEC §23): one record per event once it is written, `WARNING` for
 * `login_failed` and `login_locked`. A `throttled` event is held until its lock ends or is unlocked, and then goes
 * with its final `attempts`.
 */
@Injectable()
export class AuthenticationRecords implements AuthEventListener, OnModuleInit {
  private readonly held = new Map<number, { fields: Record<string, unknown>; until: number }>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly events: AuthenticationEventsRepository,
    private readonly forwarder: LogForwarder,
  ) {}

  onModuleInit(): void {
    this.events.listen(this);
    // Before the forwarder spools what waits at a SIGTERM, the held records go with the attempts counted so far.
    this.forwarder.beforeStopping(() => {
      for (const id of [...this.held.keys()]) this.release(id);
    });
  }

  wanted(): boolean {
    return this.forwarder.wants({ logger: 'authentication', loggerName: LOGGER_NAME, level: 'INFO' });
  }

  written(events: { row: AuthenticationEvent; holdUntil?: Date }[]): void {
    for (const { row, holdUntil } of events) {
      const { url: _url, related: _related, ...fields } = authEventEntry(row, true);
      if (holdUntil && holdUntil.getTime() > Date.now()) this.hold(row.id, fields, holdUntil.getTime());
      else this.send(fields);
      if (row.event === 'login_unlocked') this.releaseUnlocked(fields);
    }
  }

  detailsChanged(id: number, details: Record<string, unknown>): void {
    const held = this.held.get(id);
    if (held) held.fields.details = details;
  }

  private send(fields: Record<string, unknown>, at?: Date): void {
    const level = fields.event === 'login_failed' || fields.event === 'login_locked' ? 'WARNING' : 'INFO';
    const record: ForwardRecord = {
      logger: 'authentication', loggerName: LOGGER_NAME, level, message: `${String(fields.event)} ${String(fields.username)}`,
      fields, at: at ?? new Date(String(fields.timestamp)),
    };
    this.forwarder.submit(record);
  }

  private hold(id: number, fields: Record<string, unknown>, until: number): void {
    this.held.set(id, { fields, until });
    if (this.timer) return;
    this.timer = setInterval(() => this.releaseEnded(), RELEASE_EVERY_MS);
    this.timer.unref();
  }

  private release(id: number): void {
    const held = this.held.get(id);
    if (!held) return;
    this.held.delete(id);
    this.send(held.fields, new Date());
    if (!this.held.size) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private releaseEnded(): void {
    const now = Date.now();
    for (const [id, held] of this.held) if (held.until <= now) this.release(id);
  }

  /** An unlocked pair's held `throttled` records go now (the pair: its name, folded as the throttle folds it, and address). */
  private releaseUnlocked(unlocked: Record<string, unknown>): void {
    const address = (unlocked.details as Record<string, unknown> | undefined)?.address;
    const name = foldUsername(String(unlocked.username));
    for (const [id, held] of this.held) {
      if (held.fields.ip_address === address && foldUsername(String(held.fields.username)) === name) this.release(id);
    }
  }
}
