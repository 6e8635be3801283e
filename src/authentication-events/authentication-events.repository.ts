import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, LessThan, SelectQueryBuilder } from 'typeorm';
import type { AuthEventInput, AuthEventSink, AuthEventUser } from '../common/authentication-record';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { afterCommit } from '../database/transactions';
import { User } from '../users/user.entity';
import { AuthenticationEvent } from './authentication-event.entity';

/** At most this many characters of a user agent and of a typed name are kept (SPEC §23: the throttle's cut). */
const USER_AGENT_MAX = 512;
const USERNAME_MAX = 150;

/** Told of every event once it is written (the log forwarder, SPEC §23), after the transaction that wrote it commits. */
export interface AuthEventListener {
  /** Whether the listener wants the events now: then a batch is written row by row, so that each has its id. */
  wanted(): boolean;
  written(events: { row: AuthenticationEvent; holdUntil?: Date }[]): void;
  /** A coalesced event's new details (its `attempts`). */
  detailsChanged(id: number, details: Record<string, unknown>): void;
}

/** The events' statements: the sink every module's events reach, the lists, and the retention's deletes. */
@Injectable()
export class AuthenticationEventsRepository implements AuthEventSink {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private listener?: AuthEventListener;

  listen(listener: AuthEventListener): void {
    this.listener = listener;
  }

  async insert(events: (AuthEventInput & { at: Date })[], manager: EntityManager = this.dataSource.manager): Promise<number[]> {
    const named = await this.namesOf(events, manager);
    const rows = events.map((e) => this.row(e.user && e.user.username === undefined ? { ...e, user: named.get(e.user.id) ?? e.user } : e));
    const listener = this.listener?.wanted() ? this.listener : undefined;
    if (rows.length > 1 && !listener) {
      await manager.createQueryBuilder().insert().into(AuthenticationEvent).values(rows).updateEntity(false).execute();
      return [];
    }
    // One statement per row where each id is wanted: neither driver returns a multi-row insert's ids (a Galera
    // cluster's ids are not even consecutive).
    const ids: number[] = [];
    const insertEach = async (into: EntityManager) => {
      for (const row of rows) ids.push(Number((await into.insert(AuthenticationEvent, row)).identifiers[0]?.id));
    };
    if (rows.length === 1 || manager !== this.dataSource.manager) await insertEach(manager);
    else await manager.transaction(insertEach);
    if (listener) {
      const written = rows.map((row, i) => ({ row: { ...row, id: ids[i] } as AuthenticationEvent, holdUntil: events[i].holdUntil }));
      afterCommit(manager, () => listener.written(written));
    }
    return ids;
  }

  /** The names of the users that events name by id alone (a session's end), as they are now. */
  private async namesOf(events: AuthEventInput[], manager: EntityManager): Promise<Map<number, AuthEventUser>> {
    const ids = [...new Set(events.filter((e) => e.user && e.user.username === undefined).map((e) => e.user!.id))];
    if (!ids.length) return new Map();
    const users = await manager.getRepository(User).find({ select: { id: true, username: true, firstName: true, lastName: true }, where: { id: In(ids) } });
    return new Map(users.map((u) => [u.id, { id: u.id, username: u.username, firstName: u.firstName, lastName: u.lastName }]));
  }

  async updateDetails(id: number, details: Record<string, unknown>): Promise<void> {
    await this.dataSource.getRepository(AuthenticationEvent).update({ id }, { details: JSON.stringify(details) });
    this.listener?.detailsChanged(id, details);
  }

  private row(e: AuthEventInput & { at: Date }): Partial<AuthenticationEvent> {
    const user = e.user ?? null;
    return {
      timestamp: e.at,
      event: e.event,
      userId: user?.id ?? null,
      userUsername: user?.username ?? null,
      userFirstName: user ? (user.firstName ?? '') : null,
      userLastName: user ? (user.lastName ?? '') : null,
      username: (e.username ?? user?.username ?? '').slice(0, USERNAME_MAX),
      source: e.source ?? null,
      method: e.method ?? null,
      reason: e.reason ?? null,
      sessionId: e.sessionId ?? null,
      tokenId: e.tokenId ?? null,
      ipAddress: e.ipAddress ?? null,
      userAgent: (e.userAgent ?? '').slice(0, USER_AGENT_MAX),
      requestId: e.trace?.request_id ?? null,
      actionNode: this.config.nodeName,
      details: JSON.stringify(e.details ?? {}),
    };
  }

  /** Every event, before the caller's visibility, filters and page; `user` is loaded (its id) while the user exists. */
  listQuery(): SelectQueryBuilder<AuthenticationEvent> {
    return this.dataSource.getRepository(AuthenticationEvent).createQueryBuilder('e').leftJoin('e.user', 'user').addSelect('user.id');
  }

  /** The ids of up to `limit` events older than `before`, oldest first. */
  async olderThan(before: Date, limit: number): Promise<number[]> {
    const rows = await this.dataSource.getRepository(AuthenticationEvent).find({
      select: { id: true }, where: { timestamp: LessThan(before) }, order: { id: 'ASC' }, take: limit,
    });
    return rows.map((r) => r.id);
  }

  async countOlderThan(before: Date): Promise<number> {
    return this.dataSource.getRepository(AuthenticationEvent).countBy({ timestamp: LessThan(before) });
  }

  async deleteIds(ids: number[]): Promise<number> {
    if (!ids.length) return 0;
    return (await this.dataSource.getRepository(AuthenticationEvent).delete({ id: In(ids) })).affected ?? ids.length;
  }

  /** SPEC §22: a user's `previous_login` reads the events that are kept; one older than the oldest kept is forgotten. */
  async forgetPreviousLoginsBefore(before: Date): Promise<void> {
    await this.dataSource.createQueryBuilder().update(User).set({ previousLoginAt: null }).where('previous_login_at < :before', { before }).execute();
  }

  /** The `login_succeeded` a session's login wrote (SPEC §23), or null. */
  async loginEventOfSession(sessionId: number): Promise<number | null> {
    const rows: { id: number | null }[] = await this.dataSource.createQueryBuilder().select('s.login_event_id', 'id').from('user_session', 's').where('s.id = :sessionId', { sessionId }).getRawMany();
    return rows[0]?.id ?? null;
  }

  /** A user's `login_succeeded` events, newest first: the one with `id` (or the latest), and the one before it. */
  async loginsOf(userId: number, loginId: number | null): Promise<[AuthenticationEvent | null, AuthenticationEvent | null]> {
    const logins = () => this.listQuery().where('e.user_id = :userId', { userId }).andWhere("e.event = 'login_succeeded'").orderBy('e.id', 'DESC');
    const login = await (loginId === null ? logins() : logins().andWhere('e.id = :loginId', { loginId })).getOne();
    if (!login) return [null, null];
    return [login, await logins().andWhere('e.id < :before', { before: login.id }).getOne()];
  }

  /** The failed attempts of a user's name between two events' ids (a `throttled` event counts its `attempts`). */
  async failuresBetween(userId: number, afterId: number, beforeId: number): Promise<number> {
    const failures = () =>
      this.dataSource.getRepository(AuthenticationEvent).createQueryBuilder('e')
        .where('e.user_id = :userId AND e.id > :afterId AND e.id < :beforeId', { userId, afterId, beforeId }).andWhere("e.event = 'login_failed'");
    const plain = await failures().andWhere("(e.reason IS NULL OR e.reason <> 'throttled')").getCount();
    const throttled = await failures().andWhere("e.reason = 'throttled'").select('e.details', 'details').getRawMany<{ details: string }>();
    return throttled.reduce((sum, row) => sum + (Number((JSON.parse(row.details) as { attempts?: unknown }).attempts) || 1), plain);
  }
}
