import type { StreamKind } from '../common/activity-record';
import { BadRequest } from '../common/errors';
import type { ListSpec, QueryParams } from '../common/list-query/list-spec';
import { relatedUser } from '../users/user-list';
import type { ActivityEntry } from './activity-entry.entity';

/** Where each kind's objects live in the API and in the database (the per-object lists, related URLs, filters). */
export const STREAM_KINDS: Record<StreamKind, { path: string; table: string; name: string }> = {
  user: { path: 'users', table: 'auth_user', name: 'username' },
  organization: { path: 'organizations', table: 'main_organization', name: 'name' },
  team: { path: 'teams', table: 'main_team', name: 'name' },
  o_auth2_application: { path: 'applications', table: 'oauth2_application', name: 'name' },
  o_auth2_access_token: { path: 'tokens', table: 'oauth2_access_token', name: 'description' },
  credential: { path: 'credentials', table: 'main_credential', name: 'name' },
  host: { path: 'hosts', table: 'main_host', name: 'name' },
  job_template: { path: 'job_templates', table: 'main_jobtemplate', name: 'name' },
  job: { path: 'jobs', table: 'main_job', name: 'name' },
};

/** What the stream may be filtered and ordered on (SPEC §23, §19); the touched objects are read apart (kindFilters). */
export const ACTIVITY_STREAM_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    timestamp: { property: 'timestamp', type: 'datetime' },
    operation: { property: 'operation', type: 'string' },
    object1: { property: 'object1', type: 'string' },
    object2: { property: 'object2', type: 'string' },
    object_association: { property: 'objectAssociation', type: 'string' },
    object_type: { property: 'objectType', type: 'string' },
    action_node: { property: 'actionNode', type: 'string' },
    changes: { property: 'changes', type: 'string' },
  },
  relations: { actor: relatedUser('actor') },
  search: ['changes'],
  defaultOrder: [['id', 'ASC']],
};

/** One condition on the touched objects: `kind=N`, `kind__id=N`, `kind__<name field>=text`, `setting__category|name=`. */
export interface KindFilter {
  /** The condition: on the entry (`setting__…`), or on the object row joined as `alias` (a touched object). */
  sql: (alias: string) => string;
  params: Record<string, unknown>;
  /** A touched object's kind: the condition is on one object row joined for it. */
  kind?: string;
  /** Set when the condition is exactly "touches object `objectId` of `kind`" (counted from the index alone). */
  objectId?: number;
}

/**
 * Takes the touched-object filters out of `query` (the list language reads the rest) and turns each into a
 * condition on one joined object row (an entry touches at most one object of a kind): AWX's many-to-many fields.
 */
export function kindFilters(query: QueryParams): { rest: QueryParams; filters: KindFilter[] } {
  const rest: QueryParams = {};
  const filters: KindFilter[] = [];
  for (const [key, raw] of Object.entries(query)) {
    const [head, field, extra] = key.split('__');
    if (head === 'setting' && (field === 'category' || field === 'name') && extra === undefined) {
      const n = filters.length;
      filters.push({ sql: () => `e.setting_${field} = :kf${n}`, params: { [`kf${n}`]: String(raw) } });
      continue;
    }
    if (!Object.hasOwn(STREAM_KINDS, head)) {
      rest[key] = raw;
      continue;
    }
    const kind = STREAM_KINDS[head as StreamKind];
    const n = filters.length;
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (field === undefined || (field === 'id' && extra === undefined)) {
      if (!/^\d{1,15}$/.test(String(value))) throw new BadRequest(`${key.slice(0, 100)}: a number is required.`);
      const objectId = Number(value);
      filters.push({ kind: head, objectId, sql: (o) => `${o}.kind = '${head}' AND ${o}.object_id = :kf${n}`, params: { [`kf${n}`]: objectId } });
    } else if (field === kind.name && extra === undefined) {
      const sql = (o: string) => `${o}.kind = '${head}' AND ${o}.object_id IN (SELECT kt.id FROM ${kind.table} kt WHERE kt.${kind.name} = :kf${n})`;
      filters.push({ kind: head, sql, params: { [`kf${n}`]: String(value) } });
    } else {
      throw new BadRequest(`${key.slice(0, 100)}: the stream is filtered on a ${head}'s id or ${kind.name} only.`);
    }
  }
  return { rest, filters };
}

/**
 * One entry as every list shows it (AWX's ActivityStreamSerializer). `actorExists`: whether the actor still
 * exists; once deleted, the summary keeps their names with `"id": null` and `related.actor` is gone.
 */
export function activityEntry(e: ActivityEntry, actorExists: boolean): Record<string, unknown> {
  const summary = parse(e.summaryFields) as Record<string, unknown>;
  const related: Record<string, unknown> = {};
  if (e.actorId !== null && actorExists) related.actor = `/api/v2/users/${e.actorId}/`;
  for (const [kind, { path }] of Object.entries(STREAM_KINDS)) {
    const objects = summary[kind] as { id: number }[] | undefined;
    if (objects?.length) related[kind] = objects.map((o) => `/api/v2/${path}/${o.id}/`);
  }
  if (e.settingCategory) related.setting = `/api/v2/settings/${e.settingCategory}/`;
  const summaryFields: Record<string, unknown> = { ...summary };
  if (e.actorUsername !== null) {
    summaryFields.actor = { id: actorExists ? e.actorId : null, username: e.actorUsername, first_name: e.actorFirstName ?? '', last_name: e.actorLastName ?? '' };
  }
  return {
    id: e.id,
    type: 'activity_stream',
    url: `/api/v2/activity_stream/${e.id}/`,
    related,
    summary_fields: summaryFields,
    timestamp: e.timestamp.toISOString(),
    operation: e.operation,
    changes: parse(e.changes),
    object1: e.object1,
    object2: e.object2,
    object_association: e.objectAssociation,
    action_node: e.actionNode,
    object_type: e.objectType,
  };
}

function parse(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}
