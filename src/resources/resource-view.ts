import type { User } from '../users/user.entity';
import type { OwnedResource } from './owned-resource.entity';
import { canChange } from './ownership';
import type { Principal } from '../common/principal';

/** AWX's summary of a related user: enough to show a name without another request. */
export function userSummary(user: User | null | undefined): Record<string, unknown> | undefined {
  if (!user) return undefined;
  return { id: user.id, username: user.username, first_name: user.firstName, last_name: user.lastName };
}

export interface ResourceView {
  type: string;
  url: string;
  principal: Principal;
  related?: Record<string, string>;
  summary?: Record<string, unknown>;
  /** Capabilities beside, or instead of, edit/delete (job templates add `start`; jobs offer none). */
  capabilities?: Record<string, boolean>;
}

/**
 * The fields every AWX serializer starts with, in AWX's order: id, type, url, related,
 * summary_fields (with created_by, modified_by and the caller's user_capabilities), created,
 * modified, name, description. Resource serializers append their own fields.
 */
export function resourceFields(row: OwnedResource, view: ResourceView): Record<string, unknown> {
  const related: Record<string, string> = {};
  const summary: Record<string, unknown> = { ...view.summary };
  for (const [key, user] of [['created_by', row.createdBy], ['modified_by', row.modifiedBy]] as const) {
    if (!user) continue;
    related[key] = `/api/v2/users/${user.id}/`;
    summary[key] = userSummary(user);
  }
  const mayChange = canChange(view.principal, row.createdById);
  summary.user_capabilities = { edit: mayChange, delete: mayChange, ...view.capabilities };
  return {
    id: row.id,
    type: view.type,
    url: view.url,
    related: { ...related, ...view.related, activity_stream: `${view.url}activity_stream/` },
    summary_fields: summary,
    created: row.created.toISOString(),
    modified: row.modified.toISOString(),
    name: row.name,
    description: row.description,
  };
}
