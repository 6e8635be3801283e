import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, LessThan, MoreThan, SelectQueryBuilder } from 'typeorm';
import type { StreamEntry } from '../common/activity-record';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ActivityEntry } from './activity-entry.entity';
import { ActivityObject } from './activity-object.entity';

/** The object rows that make each user's list (`/api/v2/users/N/activity_stream/`), beside the `user` rows. */
export const USER_LIST = 'user_list';

/** Told of each entry once written (the log forwarder's `activity_stream` logger, SPEC §23). */
export type ActivityListener = (entry: ActivityEntry) => void;

/** The stream's statements: the sink every module's entries reach, the lists, and the retention's deletes. */
@Injectable()
export class ActivityStreamRepository {
  private listener?: ActivityListener;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  listen(listener: ActivityListener): void {
    this.listener = listener;
  }

  /** Each entry with its objects, in one transaction (an entry's objects need its id). */
  async insert(entries: StreamEntry[]): Promise<void> {
    const written: ActivityEntry[] = [];
    await this.dataSource.transaction(async (manager) => {
      for (const e of entries) {
        const summary: Record<string, unknown> = {};
        for (const o of e.objects) summary[o.kind] = [...((summary[o.kind] as unknown[]) ?? []), o.summary];
        if (e.role) summary.role = [e.role];
        if (e.setting) summary.setting = [e.setting];
        const row: Partial<ActivityEntry> = {
          timestamp: e.at,
          operation: e.operation,
          object1: e.object1,
          object2: e.object2 ?? '',
          objectAssociation: e.objectAssociation ?? '',
          objectType: e.objectType ?? '',
          actionNode: this.config.nodeName,
          changes: JSON.stringify(e.changes),
          summaryFields: JSON.stringify(summary),
          actorId: e.actor?.id ?? null,
          actorUsername: e.actor?.username ?? null,
          actorFirstName: e.actor?.firstName ?? null,
          actorLastName: e.actor?.lastName ?? null,
          settingCategory: e.setting?.category ?? null,
          settingName: e.setting?.name ?? null,
        };
        const id = Number((await manager.insert(ActivityEntry, row)).identifiers[0]?.id);
        const objects = e.objects.map((o) => ({ entryId: id, kind: o.kind as string, objectId: o.id }));
        // A user's own list (the entries touching them or made by them) as one index range: a row per user in it.
        const listed = new Set([...e.objects.filter((o) => o.kind === 'user').map((o) => o.id), ...(e.actor ? [e.actor.id] : [])]);
        for (const userId of listed) objects.push({ entryId: id, kind: USER_LIST, objectId: userId });
        if (objects.length) await manager.createQueryBuilder().insert().into(ActivityObject).values(objects).updateEntity(false).execute();
        written.push({ ...row, id } as ActivityEntry);
      }
    });
    if (this.listener) for (const entry of written) this.listener(entry);
  }

  /** Every entry, before the caller's visibility, filters and page; `actor` is loaded (its id) while the actor exists. */
  listQuery(): SelectQueryBuilder<ActivityEntry> {
    return this.dataSource.getRepository(ActivityEntry).createQueryBuilder('e').leftJoin('e.actor', 'actor').addSelect('actor.id');
  }

  /** Up to `limit` entries older than `before` with an id above `after`, oldest first (what a clean-up shows of each). */
  async olderThan(before: Date, limit: number, after = 0): Promise<ActivityEntry[]> {
    return this.dataSource.getRepository(ActivityEntry).find({
      select: { id: true, object1: true, operation: true, timestamp: true },
      where: { timestamp: LessThan(before), id: MoreThan(after) },
      order: { id: 'ASC' },
      take: limit,
    });
  }

  async remove(ids: number[]): Promise<void> {
    if (!ids.length) return;
    await this.dataSource.transaction(async (manager) => {
      await manager.delete(ActivityObject, { entryId: In(ids) });
      await manager.delete(ActivityEntry, { id: In(ids) });
    });
  }

  /** Whether an object of `table` with `id` exists and, when `where` is given, meets it (the per-object lists' 404). */
  async objectMatches(table: string, alias: string, id: number, where: string | null, params: Record<string, unknown>): Promise<boolean> {
    const qb = this.dataSource.createQueryBuilder().select('1', 'found').from(table, alias).where(`${alias}.id = :objectId`, { objectId: id });
    if (where) qb.andWhere(where, params);
    return (await qb.limit(1).getRawMany()).length > 0;
  }

  /** How many entries touch one object (the rows of one (kind, object) of the objects' index: no entry is read). */
  countTouching(kind: string, objectId: number): Promise<number> {
    return this.dataSource.getRepository(ActivityObject).count({ where: { kind, objectId } });
  }
}
