import type { OrganizationRole, TeamRole } from './role-targets';
import type { RoleField } from './role.entity';

/** AWX's names and descriptions of the membership roles (SPEC §21), by object kind and role field. */
export const ROLE_TEXT = {
  organization: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the organization', userOnly: true },
    auditor_role: { name: 'Auditor', description: 'Can view all aspects of the organization', userOnly: false },
    member_role: { name: 'Member', description: 'User is a member of the organization', userOnly: true },
  },
  team: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the team', userOnly: false },
    member_role: { name: 'Member', description: 'User is a member of the team', userOnly: false },
  },
} as const;

export type ObjectKind = keyof typeof ROLE_TEXT;

/** The text of a role of an organization or a team (a team has no auditor role: it reads as the member's). */
export function roleText(kind: ObjectKind, field: RoleField): { name: string; description: string; userOnly: boolean } {
  if (kind === 'team') return field === 'admin_role' ? ROLE_TEXT.team.admin_role : ROLE_TEXT.team.member_role;
  return ROLE_TEXT.organization[field];
}

/** The maps' role names (`admin`) and AWX's role fields (`admin_role`). */
export function fieldOf(role: OrganizationRole | TeamRole): RoleField {
  return `${role}_role`;
}

export function roleOf(field: RoleField): OrganizationRole {
  return field.slice(0, -'_role'.length) as OrganizationRole;
}

/** A role's `name` as SQL over its row (`role_field`), for filters and order (SPEC §21: roles filter on `id, name`). */
export function roleNameSql(alias: string): string {
  return `(CASE ${alias}.role_field WHEN 'admin_role' THEN 'Admin' WHEN 'auditor_role' THEN 'Auditor' ELSE 'Member' END)`;
}
