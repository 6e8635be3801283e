import type { Organization } from './organization.entity';
import type { Role, RoleField } from './role.entity';
import { ROLE_TEXT, roleText, type ObjectKind } from './role-names';
import type { Standing } from './standing';
import type { Team } from './team.entity';

/** `summary_fields.object_roles`: each role of the object under AWX's field name. */
export function objectRoles(kind: ObjectKind, roles: Map<RoleField, Role> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(ROLE_TEXT[kind]) as RoleField[]) {
    const role = roles?.get(field);
    if (!role) continue;
    const text = roleText(kind, field);
    out[field] = { id: role.id, name: text.name, description: text.description, ...(text.userOnly ? { user_only: true } : {}) };
  }
  return out;
}

export interface OrganizationCounts {
  users: number;
  admins: number;
  teams: number;
}

/** AWX's OrganizationSerializer, as far as SPEC §21 goes. */
export function serializeOrganization(org: Organization, roles: Map<RoleField, Role> | undefined, counts: OrganizationCounts, standing: Standing): Record<string, unknown> {
  const url = `/api/v2/organizations/${org.id}/`;
  const mayChange = standing.mayChangeOrganization(org.id);
  return {
    id: org.id,
    type: 'organization',
    url,
    related: { users: `${url}users/`, admins: `${url}admins/`, teams: `${url}teams/`, object_roles: `${url}object_roles/`, activity_stream: `${url}activity_stream/` },
    summary_fields: {
      object_roles: objectRoles('organization', roles),
      user_capabilities: { edit: mayChange, delete: mayChange },
      related_field_counts: { inventories: 0, teams: counts.teams, users: counts.users, admins: counts.admins, job_templates: 0, projects: 0 },
    },
    created: org.created.toISOString(),
    modified: org.modified.toISOString(),
    name: org.name,
    description: org.description,
    max_hosts: org.maxHosts,
    custom_virtualenv: null,
    default_environment: null,
  };
}

/** AWX's TeamSerializer, as far as SPEC §21 goes. The team's organization is loaded with it. */
export function serializeTeam(team: Team, roles: Map<RoleField, Role> | undefined, standing: Standing): Record<string, unknown> {
  const url = `/api/v2/teams/${team.id}/`;
  const mayChange = standing.mayManageTeam(team);
  const org = team.organization;
  return {
    id: team.id,
    type: 'team',
    url,
    related: { organization: `/api/v2/organizations/${team.organizationId}/`, users: `${url}users/`, object_roles: `${url}object_roles/`, activity_stream: `${url}activity_stream/` },
    summary_fields: {
      organization: org ? { id: org.id, name: org.name, description: org.description } : undefined,
      object_roles: objectRoles('team', roles),
      user_capabilities: { edit: mayChange, delete: mayChange },
    },
    created: team.created.toISOString(),
    modified: team.modified.toISOString(),
    name: team.name,
    description: team.description,
    organization: team.organizationId,
  };
}

/** AWX's RoleSerializer: the role and the object it belongs to. Its organization or team is loaded with it. */
export function serializeRole(role: Role): Record<string, unknown> {
  const url = `/api/v2/roles/${role.id}/`;
  const kind: ObjectKind = role.teamId !== null ? 'team' : 'organization';
  const object = kind === 'team' ? role.team : role.organization;
  const objectId = kind === 'team' ? role.teamId! : role.organizationId!;
  const objectUrl = kind === 'team' ? `/api/v2/teams/${objectId}/` : `/api/v2/organizations/${objectId}/`;
  const text = roleText(kind, role.roleField);
  return {
    id: role.id,
    type: 'role',
    url,
    related: { users: `${url}users/`, teams: `${url}teams/`, [kind]: objectUrl },
    summary_fields: {
      resource_name: object?.name ?? null,
      resource_type: kind,
      resource_type_display_name: kind === 'team' ? 'Team' : 'Organization',
      resource_id: objectId,
    },
    name: text.name,
    description: text.description,
  };
}
