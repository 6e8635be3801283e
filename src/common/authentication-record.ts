import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RequestTrace } from '../database/request-trace';
import { Clock } from './clock';
import { WriteBehind } from './write-behind';

export const AUTH_EVENT_NAMES = [
  'login_succeeded', 'login_failed', 'login_locked', 'login_unlocked', 'logout', 'session_ended',
  'token_created', 'token_revoked', 'token_rotated', 'factor_enrolled', 'factor_removed',
] as const;
export type AuthEventName = (typeof AUTH_EVENT_NAMES)[number];

/** The user an event is about, as its summary shows them (SPEC §23). */
export interface AuthEventUser {
  id: number;
  /** When absent, the sink reads the user's names as they are when the event is written. */
  username?: string;
  firstName?: string;
  lastName?: string;
}

/** One event as a login path, a session or a token reports it; never a password, code, token or hash. */
export interface AuthEventInput {
  event: AuthEventName;
  user?: AuthEventUser | null;
  /** As the password path read it; the user's name when absent. */
  username?: string;
  source?: string | null;
  method?: string | null;
  reason?: string | null;
  sessionId?: number | null;
  tokenId?: number | null;
  ipAddress?: string | null;
  userAgent?: string;
  trace?: RequestTrace;
  details?: Record<string, unknown>;
  /** When it happened (a timeout: when the session expired); now when absent. */
  at?: Date;
  /**
   * Not stored: a `throttled` event is forwarded to the log aggregator when its lock ends (this time) or is
   * unlocked, with its final `attempts` (SPEC §23).
   */
  holdUntil?: Date;
}

/** What writes events: the authentication-events module registers it at start-up (common/ imports no feature). */
export interface AuthEventSink {
  insert(events: (AuthEventInput & { at: Date })[], manager?: EntityManager): Promise<number[]>;
  /** A coalesced event's details (its `attempts`), the only value of an event that changes (SPEC §23). */
  updateDetails(id: number, details: Record<string, unknown>): Promise<void>;
}

/** The event later refusals of one kind are counted in, while its window lasts. */
interface Coalesced {
  until: number;
  recorded: number;
  last?: { id: Promise<number | null>; details: Record<string, unknown> };
}

/** At most this many coalescing windows are remembered; the oldest go first. */
const MAX_COALESCED = 10000;

/** A queued event; `written` is told its id (a coalesced event, whose later attempts update it). */
type Queued = AuthEventInput & { at: Date; written?: (id: number | null) => void };

/** Queued events are written this soon after the request that reported them (SPEC §23: visible within 2 s). */
const FLUSH_DELAY_MS = 100;
/** At most this many wait in memory while the database refuses them; beyond, the oldest are dropped and counted. */
const MAX_QUEUED = 10000;
/** Written in statements of at most this many rows. */
const BATCH = 200;

/**
 * SPEC §23's record of authentication as every module reports to it. An event is queued and written just after
 * the answer (a request never waits for it, and a failed write never fails the request it describes); a session
 * login's or password grant's `login_succeeded` is written with `within`, in the login's own transaction.
 * Pending events are written before the application shuts down (SIGTERM).
 */
@Injectable()
export class AuthenticationRecord implements BeforeApplicationShutdown {
  private readonly logger = new Logger('authentication_events');
  private sink?: AuthEventSink;
  private readonly coalesced = new Map<string, Coalesced>();
  private readonly queue = new WriteBehind<Queued>({
    name: 'authentication_events', logger: this.logger, delayMs: FLUSH_DELAY_MS, max: MAX_QUEUED,
    write: (queue) => this.writeSome(queue),
    dropped: (event) => event.written?.(null),
  });

  constructor(private readonly clock: Clock) {}

  register(sink: AuthEventSink): void {
    this.sink = sink;
  }

  /** Queues an event; it is written within FLUSH_DELAY_MS (retried while the database refuses it). */
  record(event: AuthEventInput): void {
    if (!this.sink) return;
    this.enqueue({ ...event, at: event.at ?? this.clock.now() });
  }

  private enqueue(queued: Queued): void {
    this.queue.push(queued);
  }

  /**
   * Writes an event in the caller's transaction and returns its id (null while no sink is registered). A caller
   * flushes the queue before its transaction, so that the event's id follows those of the events before it.
   */
  async within(manager: EntityManager, event: AuthEventInput): Promise<number | null> {
    if (!this.sink) return null;
    const [id] = await this.sink.insert([{ ...event, at: event.at ?? this.clock.now() }], manager);
    return id ?? null;
  }

  /**
   * SPEC §23's bounded refusals: an event is written only while each of its `bounds` (a key and how many events
   * it allows per window of `windowMs`) has room; otherwise it is counted in the `details.attempts` (which starts
   * at 1) of the last event written under the first full bound. Kept per process: each node writes its own
   * first events, so a cluster writes at most one set per node.
   */
  recordCoalesced(bounds: [key: string, limit: number][], windowMs: number, event: AuthEventInput): void {
    const sink = this.sink;
    if (!sink) return;
    const now = this.clock.now().getTime();
    const entries = bounds.map(([key, limit]) => ({ entry: this.window(key, now, windowMs), limit }));
    const full = entries.find(({ entry, limit }) => entry.last && entry.recorded >= limit);
    if (!full) {
      const details = { ...event.details, attempts: 1 };
      const holdUntil = event.reason === 'throttled' ? new Date(now + windowMs) : undefined;
      // Queued like any event, so events keep the order they happened in; its id arrives when it is written.
      const id = new Promise<number | null>((written) => this.enqueue({ ...event, details, holdUntil, at: event.at ?? this.clock.now(), written }));
      for (const { entry } of entries) {
        entry.recorded++;
        entry.last = { id, details };
      }
      return;
    }
    const last = full.entry.last!;
    last.details.attempts = Number(last.details.attempts) + 1;
    // Chained, so the updates land in order and the last one written holds the latest count.
    last.id = last.id.then(async (id) => {
      try {
        if (id !== null) await sink.updateDetails(id, { ...last.details });
      } catch (err) {
        this.logger.warn({ event: 'authentication_events_write_failed', error: String((err as Error)?.message ?? err) });
      }
      return id;
    });
  }

  private window(key: string, now: number, windowMs: number): Coalesced {
    const found = this.coalesced.get(key);
    if (found && found.until > now) return found;
    this.coalesced.delete(key);
    if (this.coalesced.size >= MAX_COALESCED) this.coalesced.delete(this.coalesced.keys().next().value!);
    const entry: Coalesced = { until: now + windowMs, recorded: 0 };
    this.coalesced.set(key, entry);
    return entry;
  }

  /** Writes what is queued; resolves once the queue is empty or the database refused a batch. */
  flush(): Promise<void> {
    return this.sink ? this.queue.flush() : Promise.resolve();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.queue.stop();
    await this.flush();
  }

  /** A run of plain events in one statement; an event whose id is wanted on its own. */
  private async writeSome(queue: readonly Queued[]): Promise<number> {
    const single = queue[0].written !== undefined;
    const end = single ? 1 : queue.findIndex((q, i) => i >= BATCH || q.written !== undefined);
    const batch = queue.slice(0, end === -1 ? BATCH : end);
    const ids = await this.sink!.insert(batch.map(({ written: _, ...event }) => event));
    if (single) batch[0].written!(ids[0] ?? null);
    return batch.length;
  }
}
