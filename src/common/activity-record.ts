import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { RequestTrace } from '../database/request-trace';
import { Clock } from './clock';
import { actorOf } from './request-context';
import { WriteBehind } from './write-behind';

/** AWX's names of the models the stream records (SPEC §23), as `object1`, `object2` and the summary keys. */
export type StreamKind =
  | 'user' | 'organization' | 'team' | 'o_auth2_application' | 'o_auth2_access_token'
  | 'credential' | 'host' | 'job_template' | 'job';
export type StreamOperation = 'create' | 'update' | 'delete' | 'associate' | 'disassociate';

/** An object an entry touches: its kind, id, and AWX's summary of it as it is now (kept once it is gone). */
export interface StreamObject {
  kind: StreamKind;
  id: number;
  summary: Record<string, unknown>;
}

/** The user a change was made by: the request's authenticated user (none for logins, `/api/o/*`, sweeps, commands). */
export interface StreamActor {
  id: number;
  username: string;
  firstName: string;
  lastName: string;
}

/** One change as a module reports it; `changes` already in AWX's display (secrets hidden: activity-changes.ts). */
export interface StreamEntryInput {
  operation: StreamOperation;
  object1: StreamKind | 'setting';
  object2?: StreamKind;
  /** `role` for a role grant. */
  objectAssociation?: 'role';
  /** The model the granted role belongs to. */
  objectType?: string;
  changes: Record<string, unknown>;
  /** In the order object1's, then object2's. */
  objects: StreamObject[];
  role?: { id: number; role_field: string };
  setting?: { category: string; name: string };
  /** The request that made the change: its actor is the user it was authenticated as (request-context.ts). */
  trace?: RequestTrace;
  /** The actor, when the caller knows it without a trace (a principal); null: none. */
  actor?: Pick<StreamActor, 'id' | 'username' | 'firstName' | 'lastName'> | null;
  /** Recorded even while ACTIVITY_STREAM_ENABLED is false (the writes that turn it off and on). */
  always?: boolean;
}

export type StreamEntry = Omit<StreamEntryInput, 'trace' | 'always' | 'actor'> & { at: Date; actor: StreamActor | null };

/** What writes entries: the activity-stream module registers it (common/ imports no feature). */
export interface StreamSink {
  /** ACTIVITY_STREAM_ENABLED. */
  enabled(): boolean;
  insert(entries: StreamEntry[]): Promise<void>;
}

const FLUSH_DELAY_MS = 100;
const MAX_QUEUED = 10000;
const BATCH = 100;

/**
 * SPEC §23's activity stream as every module reports to it, after its change committed: an entry is queued and
 * written just after the answer (a request never waits for it; a failed write never fails the request nor
 * undoes its change, and is retried). Pending entries are written before the application shuts down.
 */
@Injectable()
export class ActivityRecord implements BeforeApplicationShutdown {
  private readonly logger = new Logger('activity_stream');
  private sink?: StreamSink;
  private readonly queue = new WriteBehind<StreamEntry>({
    name: 'activity_stream', logger: this.logger, delayMs: FLUSH_DELAY_MS, max: MAX_QUEUED,
    write: async (queue) => {
      const batch = queue.slice(0, BATCH);
      await this.sink!.insert(batch);
      return batch.length;
    },
  });

  constructor(private readonly clock: Clock) {}

  register(sink: StreamSink): void {
    this.sink = sink;
  }

  record(input: StreamEntryInput): void {
    if (!this.sink || (!input.always && !this.sink.enabled())) return;
    const { trace, always: _always, actor: given, ...entry } = input;
    const actor = given !== undefined ? given : trace ? actorOf(trace) : undefined;
    this.queue.push({ ...entry, at: this.clock.now(), actor: actor ? { id: actor.id, username: actor.username, firstName: actor.firstName, lastName: actor.lastName } : null });
  }

  flush(): Promise<void> {
    return this.sink ? this.queue.flush() : Promise.resolve();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.queue.stop();
    await this.flush();
  }
}
