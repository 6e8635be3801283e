import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../common/clock';
import { endsSession, SessionEndReason } from './session-end-reason';
import { Session } from './session.entity';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { NO_REQUEST } from '../common/request-context';

/** How often a node reads the watched sessions: well inside the 10 seconds of SPEC §13. */
export const WATCH_INTERVAL_MS = 2000;
const CHUNK = 500;

export type SessionChange =
  /** The idle expiry moved (another tab slid the session): seconds left from now. */
  | { type: 'expires'; expiresIn: number }
  /** The session is over; `reason` is null when its row is gone (swept, or the user deleted). */
  | { type: 'ended'; reason: SessionEndReason | null }
  /** The node is shutting down; the stream should close so the client reconnects elsewhere. */
  | { type: 'shutdown' };

interface Watch {
  sessionId: number;
  lastExpires: number;
  listener: (change: SessionChange) => void;
}

/**
 * Tells open browser pages when their session changes. Ends come from anywhere (another node, the
 * CLI, a limit enforced by a login elsewhere), so the node reads the rows of every watched session
 * in one query every two seconds while at least one page watches, instead of a query per page.
 * Reading never slides a session.
 */
@Injectable()
export class SessionWatcher implements OnModuleDestroy {
  private readonly logger = new Logger('sessions');
  private readonly watches = new Set<Watch>();
  private ticking = false;

  constructor(
    private readonly repository: SessionsRepository,
    private readonly sessions: SessionsService,
    private readonly clock: Clock,
  ) {}

  /** Starts watching; returns the function that stops it. */
  watch(session: Session, listener: (change: SessionChange) => void): () => void {
    const entry: Watch = { sessionId: session.id, lastExpires: session.expires.getTime(), listener };
    this.watches.add(entry);
    return () => this.unwatch(entry);
  }

  get watching(): number {
    return this.watches.size;
  }

  onModuleDestroy(): void {
    for (const entry of [...this.watches]) {
      this.unwatch(entry);
      entry.listener({ type: 'shutdown' });
    }
  }

  private unwatch(entry: Watch): void {
    this.watches.delete(entry);
  }

  /** One read of every watched session, then a verdict per page (a background loop, src/background-work.ts). */
  async tick(): Promise<void> {
    if (this.ticking || !this.watches.size) return;
    this.ticking = true;
    try {
      const entries = [...this.watches];
      const ids = [...new Set(entries.map((e) => e.sessionId))];
      const rows = new Map<number, Session>();
      for (let i = 0; i < ids.length; i += CHUNK) {
        // With the user's current state: a deactivation or an "end all" is a cut-off on the user row.
        const found = await this.repository.findWithOwners(ids.slice(i, i + CHUNK));
        for (const row of found) rows.set(row.id, row);
      }
      const now = this.clock.now();
      for (const entry of entries) {
        if (!this.watches.has(entry)) continue;
        await this.check(entry, rows.get(entry.sessionId), now);
      }
    } catch (err) {
      this.logger.warn({ event: 'session_watch_failed', error: String((err as Error).message) });
    } finally {
      this.ticking = false;
    }
  }

  private async check(entry: Watch, row: Session | undefined, now: Date): Promise<void> {
    // A session's row goes with its user's (the foreign key cascades): no row, or no user, is "gone".
    if (!row?.user) return this.finish(entry, null);
    // The same rule as every request's (the session strategy's); a deactivation ends the row itself.
    const reason = this.sessions.validate(row, row.user, now);
    // One loop watches the streams of many requests: its writes belong to none of them.
    if (reason && !row.endedAt && endsSession(reason)) await this.sessions.end({ ids: [row.id] }, reason, NO_REQUEST);
    if (reason) return this.finish(entry, reason);
    if (row.expires.getTime() !== entry.lastExpires) {
      entry.lastExpires = row.expires.getTime();
      entry.listener({ type: 'expires', expiresIn: this.sessions.secondsLeft(row, now) });
    }
  }

  private finish(entry: Watch, reason: SessionEndReason | null): void {
    this.unwatch(entry);
    entry.listener({ type: 'ended', reason });
  }
}
