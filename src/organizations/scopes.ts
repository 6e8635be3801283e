import type { RoleField } from './role.entity';
import type { Standing } from './standing';

/**
 * The lists' visibility and `role_level` as SQL conditions (SPEC §21), the same rules as `Standing` asks of one
 * object, so a list reads one page of what the caller may see. Each condition names the caller as
 * `:viewerId`; `null` means every row.
 */
export type Scope = string | null;

export type RoleLevel = RoleField | 'read_role';
export const ROLE_LEVELS: readonly RoleLevel[] = ['admin_role', 'member_role', 'auditor_role', 'read_role'];

const NOTHING = '1 = 0';

/** The ids of the organizations (or teams) on which the caller directly holds one of `fields` (any role when none). */
function held(kind: 'organization' | 'team', tag: string, fields: RoleField[] = []): string {
  const column = `${tag}r.${kind}_id`;
  const which = fields.length ? ` AND ${tag}r.role_field IN (${fields.map((f) => `'${f}'`).join(', ')})` : '';
  return (
    `(SELECT ${column} FROM main_rbac_roles ${tag}r INNER JOIN main_rbac_role_members ${tag}m ON ${tag}m.role_id = ${tag}r.id ` +
    `WHERE ${tag}m.user_id = :viewerId AND ${column} IS NOT NULL${which})`
  );
}

/** Organizations (alias `o`) the caller may read, or on which it holds `level`. */
export function organizationScope(standing: Standing, level: RoleLevel = 'read_role'): Scope {
  const { isSuperuser, readsAll } = standing;
  switch (level) {
    case 'read_role':
      return readsAll ? null : `o.id IN ${held('organization', 'hr')}`;
    case 'auditor_role':
      return readsAll ? null : `o.id IN ${held('organization', 'hr', ['auditor_role'])}`;
    case 'member_role':
      return isSuperuser ? null : `o.id IN ${held('organization', 'hr', ['admin_role', 'member_role'])}`;
    case 'admin_role':
      return isSuperuser ? null : `o.id IN ${held('organization', 'hr', ['admin_role'])}`;
  }
}

/** Teams (alias `t`) the caller may read, or on which it holds `level` (a team has no auditor role). */
export function teamScope(standing: Standing, level: RoleLevel = 'read_role'): Scope {
  const { isSuperuser, readsAll } = standing;
  switch (level) {
    case 'read_role':
      return readsAll ? null : `(t.organization_id IN ${held('organization', 'ho')} OR t.id IN ${held('team', 'ht')})`;
    case 'auditor_role':
      return NOTHING;
    case 'member_role':
      return isSuperuser ? null : `(t.organization_id IN ${held('organization', 'ho', ['admin_role'])} OR t.id IN ${held('team', 'ht', ['admin_role', 'member_role'])})`;
    case 'admin_role':
      return isSuperuser ? null : `(t.organization_id IN ${held('organization', 'ho', ['admin_role'])} OR t.id IN ${held('team', 'ht', ['admin_role'])})`;
  }
}

/** Roles (alias `r`) of the organizations and teams the caller may read. */
export function roleScope(standing: Standing): Scope {
  if (standing.readsAll) return null;
  return (
    `(r.organization_id IN ${held('organization', 'ro')} OR r.team_id IN ${held('team', 'rt')} ` +
    `OR r.team_id IN (SELECT rtt.id FROM main_team rtt WHERE rtt.organization_id IN ${held('organization', 'rto')}))`
  );
}

/**
 * Users (alias `u`) a caller who reads not everything sees (SPEC §21): themselves, the members of the
 * organizations they can read, and, for a team's admin, the members of the team's organization (whom they may
 * add, issue 56; the admin still reads neither that organization nor its other teams); every user while
 * `everyone` (ORG_ADMINS_CAN_SEE_ALL_USERS for an admin or auditor of an organization).
 */
export function userScope(everyone: boolean): Scope {
  if (everyone) return null;
  const administeredTeams = `(SELECT ut.organization_id FROM main_team ut WHERE ut.id IN ${held('team', 'ut', ['admin_role'])})`;
  return (
    `(u.id = :viewerId OR u.id IN (SELECT um.user_id FROM main_rbac_role_members um INNER JOIN main_rbac_roles ur ON ur.id = um.role_id ` +
    `WHERE ur.role_field = 'member_role' AND (ur.organization_id IN ${held('organization', 'uh')} OR ur.organization_id IN ${administeredTeams})))`
  );
}

/**
 * The users (by the SQL `column` naming a user id) whose records a caller who reads not everything may read
 * (SPEC §23's authentication events): themselves, and the members and admins of the organizations on which
 * they hold the admin or auditor role.
 */
export function auditedUsersScope(column: string): string {
  return (
    `(${column} = :viewerId OR ${column} IN (SELECT am.user_id FROM main_rbac_role_members am INNER JOIN main_rbac_roles ar ON ar.id = am.role_id ` +
    `WHERE ar.role_field IN ('member_role', 'admin_role') AND ar.organization_id IN ${held('organization', 'ah', ['admin_role', 'auditor_role'])}))`
  );
}
