import type { Account } from '../common/principal';
import type { HeldRole } from './roles.repository';
import type { RoleField } from './role.entity';
import type { Team } from './team.entity';

/**
 * The caller's place among organizations and teams: the account and the roles it holds directly. Every
 * who-may rule of SPEC §21 is a question to it. A superuser holds every role; a system auditor reads
 * everything and holds every organization's auditor role; an organization admin is a member there and an
 * admin of each of its teams; a team admin is a member of the team.
 */
export class Standing {
  private readonly organizations = new Map<number, Set<RoleField>>();
  private readonly teams = new Map<number, Set<RoleField>>();

  constructor(
    readonly user: Account,
    held: HeldRole[],
    /** MANAGE_ORGANIZATION_AUTH: while false only superusers manage teams and grant roles. */
    private readonly manageAuth: boolean,
  ) {
    for (const role of held) {
      const [map, id] = role.organizationId !== null ? [this.organizations, role.organizationId] : [this.teams, role.teamId!];
      if (!map.has(id)) map.set(id, new Set());
      map.get(id)!.add(role.field);
    }
  }

  get isSuperuser(): boolean {
    return this.user.isSuperuser;
  }

  get readsAll(): boolean {
    return this.user.isSuperuser || this.user.isSystemAuditor;
  }

  private holdsOrganization(id: number, ...fields: RoleField[]): boolean {
    const held = this.organizations.get(id);
    return !!held && (fields.length === 0 || fields.some((f) => held.has(f)));
  }

  private holdsTeam(id: number, ...fields: RoleField[]): boolean {
    const held = this.teams.get(id);
    return !!held && (fields.length === 0 || fields.some((f) => held.has(f)));
  }

  /** Whether the caller holds an organization's role, directly or implied (AWX's `role_level`). */
  hasOrganizationRole(id: number, field: RoleField | 'read_role'): boolean {
    if (field === 'read_role') return this.readsOrganization(id);
    if (this.isSuperuser) return true;
    if (field === 'auditor_role') return this.user.isSystemAuditor || this.holdsOrganization(id, 'auditor_role');
    if (field === 'member_role') return this.holdsOrganization(id, 'member_role', 'admin_role');
    return this.holdsOrganization(id, 'admin_role');
  }

  /** Whether the caller holds a team's role, directly or implied. A team has no auditor role. */
  hasTeamRole(team: Pick<Team, 'id' | 'organizationId'>, field: RoleField | 'read_role'): boolean {
    if (field === 'read_role') return this.readsTeam(team);
    if (field === 'auditor_role') return false;
    if (this.isSuperuser || this.holdsOrganization(team.organizationId, 'admin_role')) return true;
    return field === 'member_role' ? this.holdsTeam(team.id, 'member_role', 'admin_role') : this.holdsTeam(team.id, 'admin_role');
  }

  readsOrganization(id: number): boolean {
    return this.readsAll || this.holdsOrganization(id);
  }

  readsTeam(team: Pick<Team, 'id' | 'organizationId'>): boolean {
    return this.readsAll || this.holdsOrganization(team.organizationId) || this.holdsTeam(team.id);
  }

  /** Change and delete an organization (max_hosts: superusers only, checked by the caller). */
  mayChangeOrganization(id: number): boolean {
    return this.hasOrganizationRole(id, 'admin_role');
  }

  /** Make teams in an organization, grant and revoke its roles. */
  mayManageOrganization(id: number): boolean {
    return this.isSuperuser || (this.manageAuth && this.holdsOrganization(id, 'admin_role'));
  }

  /** Change and delete a team, grant and revoke its roles. */
  mayManageTeam(team: Pick<Team, 'id' | 'organizationId'>): boolean {
    return this.isSuperuser || (this.manageAuth && this.hasTeamRole(team, 'admin_role'));
  }

  /** Whether the caller may grant and revoke some role: of an organization or a team it administers. */
  get mayGrantAnywhere(): boolean {
    if (this.isSuperuser) return true;
    const admin = (held: Set<RoleField>) => held.has('admin_role');
    return this.manageAuth && ([...this.organizations.values()].some(admin) || [...this.teams.values()].some(admin));
  }

  /** Whether the caller is an admin or auditor of some organization (ORG_ADMINS_CAN_SEE_ALL_USERS). */
  get adminOrAuditorSomewhere(): boolean {
    return [...this.organizations.values()].some((held) => held.has('admin_role') || held.has('auditor_role'));
  }
}
