import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation } from '../database/errors';
import { Clock } from '../common/clock';
import type { ExistingObjects, Holdings, OrganizationTarget, TeamTarget } from './role-targets';
import { Organization } from './organization.entity';
import { RoleMember } from './role-member.entity';
import { ORGANIZATION_ROLES, Role, RoleField, TEAM_ROLES } from './role.entity';
import { fieldOf, roleOf } from './role-names';
import { Team } from './team.entity';
import { MembershipBy, OrganizationActivity } from './organization-activity';

/** A grant or revoke no request's user made (a map at a login, a sweep). */
const NO_ACTOR: MembershipBy = { actor: null };

/** One role a user holds, with the object it belongs to (ids only). */
export interface HeldRole {
  roleId: number;
  field: RoleField;
  organizationId: number | null;
  teamId: number | null;
}

/**
 * Roles and who holds them, by id (the API) and by name (the maps, SPEC §21). Every method takes an optional
 * `EntityManager`: given one, it runs inside the caller's transaction (a login applying its maps).
 *
 * Finding or making an object by name is race-safe without a lock: the INSERT is tried, and a unique-key
 * violation (another login made it first) is answered by reading the row again. On MySQL/MariaDB this holds
 * inside a caller's transaction because `Transactions.run` uses READ COMMITTED: the duplicate INSERT waits for
 * the other transaction, fails only once that one committed (a failed statement does not end InnoDB's
 * transaction), and the second read then sees the committed row. Had the other transaction rolled back, the
 * INSERT succeeds instead. A deadlock between two logins making two objects in opposite orders is retried
 * from the start by `Transactions.run`. On SQLite, writers are serialised, so the second INSERT never races.
 */
@Injectable()
export class RolesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly activity: OrganizationActivity,
  ) {}

  private on(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  /** Every role a user holds directly. */
  async heldBy(userId: number, manager?: EntityManager): Promise<HeldRole[]> {
    const rows = await this.on(manager)
      .createQueryBuilder(Role, 'r')
      .innerJoin(RoleMember, 'm', 'm.role_id = r.id')
      .where('m.user_id = :userId', { userId })
      .getMany();
    return rows.map((r) => ({ roleId: r.id, field: r.roleField, organizationId: r.organizationId, teamId: r.teamId }));
  }

  /** What the user holds, by names (the maps' `Holdings` without the flags, which the users module knows). */
  async holdingsOf(userId: number, manager?: EntityManager): Promise<Omit<Holdings, 'flags'>> {
    return (await this.holdingsOfMany([userId], manager)).get(userId) ?? { organizations: [], teams: [] };
  }

  /** The holdings of several users in one statement (the dry run's impact over up to 1 000 stored logins). */
  async holdingsOfMany(userIds: number[], manager?: EntityManager): Promise<Map<number, Omit<Holdings, 'flags'>>> {
    const out = new Map<number, Omit<Holdings, 'flags'>>();
    if (!userIds.length) return out;
    const rows = (await this.on(manager).query(
      'SELECT m.user_id AS user_id, r.role_field AS field, o.name AS organization, t.name AS team, tor.name AS team_organization ' +
        'FROM main_rbac_role_members m INNER JOIN main_rbac_roles r ON r.id = m.role_id ' +
        'LEFT JOIN main_organization o ON o.id = r.organization_id LEFT JOIN main_team t ON t.id = r.team_id ' +
        `LEFT JOIN main_organization tor ON tor.id = t.organization_id WHERE m.user_id IN (${userIds.map(() => '?').join(', ')}) ORDER BY r.id`,
      userIds,
    )) as { user_id: number; field: RoleField; organization: string | null; team: string | null; team_organization: string | null }[];
    for (const row of rows) {
      const userId = Number(row.user_id);
      let held = out.get(userId);
      if (!held) out.set(userId, (held = { organizations: [], teams: [] }));
      if (row.organization !== null) held.organizations.push({ organization: row.organization, role: roleOf(row.field) });
      else if (row.team !== null && row.team_organization !== null) {
        held.teams.push({ organization: row.team_organization, team: row.team, role: roleOf(row.field) as TeamTarget['role'] });
      }
    }
    return out;
  }

  /** Every organization and team by name (loaded whole: the maps decide what a login creates with it). */
  async existingObjects(manager?: EntityManager): Promise<ExistingObjects> {
    const m = this.on(manager);
    const organizations = (await m.query('SELECT name FROM main_organization')) as { name: string }[];
    const teams = (await m.query('SELECT o.name AS organization, t.name AS team FROM main_team t INNER JOIN main_organization o ON o.id = t.organization_id')) as {
      organization: string;
      team: string;
    }[];
    return {
      organizations: new Set(organizations.map((o) => o.name)),
      teams: new Set(teams.map((t) => JSON.stringify([t.organization, t.team]))),
    };
  }

  /** The organization of this exact name (`Ops` is not `ops`, on MySQL too: the column is binary-collated). */
  async organizationNamed(name: string, manager?: EntityManager): Promise<Organization | null> {
    const found = await this.on(manager).findOneBy(Organization, { name });
    return found && found.name === name ? found : null;
  }

  async teamNamed(organizationId: number, name: string, manager?: EntityManager): Promise<Team | null> {
    const found = await this.on(manager).findOneBy(Team, { organizationId, name });
    return found && found.name === name ? found : null;
  }

  /** Makes an organization with its three roles, in the caller's transaction (a taken name: the unique violation). */
  async insertOrganization(manager: EntityManager, values: { name: string; description: string; maxHosts: number }): Promise<Organization> {
    const now = this.clock.now();
    const id = (await manager.insert(Organization, { ...values, created: now, modified: now })).identifiers[0].id as number;
    await manager.insert(Role, ORGANIZATION_ROLES.map((roleField) => ({ roleField, organizationId: id, teamId: null })));
    return (await manager.findOneBy(Organization, { id }))!;
  }

  /** Makes a team with its two roles, in the caller's transaction (a taken name: the unique violation). */
  async insertTeam(manager: EntityManager, values: { name: string; description: string; organizationId: number }): Promise<Team> {
    const now = this.clock.now();
    const id = (await manager.insert(Team, { ...values, created: now, modified: now })).identifiers[0].id as number;
    await manager.insert(Role, TEAM_ROLES.map((roleField) => ({ roleField, organizationId: null, teamId: id })));
    return (await manager.findOneBy(Team, { id }))!;
  }

  /** Finds or makes the organization of a name; however many logins race, one organization results (see the class). */
  async ensureOrganization(name: string, manager: EntityManager): Promise<Organization> {
    const existing = await this.organizationNamed(name, manager);
    if (existing) return existing;
    try {
      return await this.insertOrganization(manager, { name, description: '', maxHosts: 0 });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const made = await this.organizationNamed(name, manager);
      if (!made) throw err;
      return made;
    }
  }

  /** Finds or makes a team (and its organization), race-safe as `ensureOrganization`. */
  async ensureTeam(organization: string, team: string, manager: EntityManager): Promise<Team> {
    const org = await this.ensureOrganization(organization, manager);
    const existing = await this.teamNamed(org.id, team, manager);
    if (existing) return existing;
    try {
      return await this.insertTeam(manager, { name: team, description: '', organizationId: org.id });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const made = await this.teamNamed(org.id, team, manager);
      if (!made) throw err;
      return made;
    }
  }

  /** The role of a target by names, or null when its organization or team does not exist. */
  async roleOfTarget(target: OrganizationTarget | TeamTarget, manager?: EntityManager): Promise<Role | null> {
    const org = await this.organizationNamed(target.organization, manager);
    if (!org) return null;
    if ('team' in target) {
      const team = await this.teamNamed(org.id, target.team, manager);
      return team ? this.on(manager).findOneBy(Role, { teamId: team.id, roleField: fieldOf(target.role) }) : null;
    }
    return this.on(manager).findOneBy(Role, { organizationId: org.id, roleField: fieldOf(target.role) });
  }

  /**
   * Grants a target's role by names, making its organization or team when missing (the engine lists those in
   * its `creates`). True when the user did not hold it before.
   */
  async grant(userId: number, target: OrganizationTarget | TeamTarget, manager: EntityManager): Promise<boolean> {
    const object = 'team' in target ? await this.ensureTeam(target.organization, target.team, manager) : await this.ensureOrganization(target.organization, manager);
    const role = await manager.findOneByOrFail(Role, 'team' in target ? { teamId: object.id, roleField: fieldOf(target.role) } : { organizationId: object.id, roleField: fieldOf(target.role) });
    return this.addMember(role.id, userId, manager);
  }

  /** Revokes a target's role by names; false when the user did not hold it (or the object does not exist). */
  async revoke(userId: number, target: OrganizationTarget | TeamTarget, manager: EntityManager): Promise<boolean> {
    const role = await this.roleOfTarget(target, manager);
    return role ? this.removeMember(role.id, userId, manager) : false;
  }

  /** A user holds a role (by id); false when already so. A concurrent grant of the same is "already so". */
  async addMember(roleId: number, userId: number, manager?: EntityManager, by: MembershipBy = NO_ACTOR): Promise<boolean> {
    const m = this.on(manager);
    if (await m.existsBy(RoleMember, { roleId, userId })) return false;
    try {
      await m.insert(RoleMember, { roleId, userId });
      await this.activity.membership('associate', roleId, userId, by, m);
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async removeMember(roleId: number, userId: number, manager?: EntityManager, by: MembershipBy = NO_ACTOR): Promise<boolean> {
    const m = this.on(manager);
    const result = await m.delete(RoleMember, { roleId, userId });
    if (!result.affected) return false;
    await this.activity.membership('disassociate', roleId, userId, by, m);
    return true;
  }

  /** The ids of the users who hold a role directly. */
  async usersWithRole(roleId: number, manager?: EntityManager): Promise<number[]> {
    const rows = await this.on(manager).findBy(RoleMember, { roleId });
    return rows.map((r) => r.userId);
  }

  async roleById(id: number): Promise<Role | null> {
    return this.dataSource.manager.findOneBy(Role, { id });
  }

  /** The roles of organizations or teams, keyed by object id then field (for summary_fields of a page). */
  async rolesOf(kind: 'organization' | 'team', ids: number[]): Promise<Map<number, Map<RoleField, Role>>> {
    const out = new Map<number, Map<RoleField, Role>>();
    if (!ids.length) return out;
    const column = kind === 'organization' ? 'organization_id' : 'team_id';
    const roles = await this.dataSource.manager.createQueryBuilder(Role, 'r').where(`r.${column} IN (:...ids)`, { ids }).getMany();
    for (const role of roles) {
      const owner = (kind === 'organization' ? role.organizationId : role.teamId)!;
      if (!out.has(owner)) out.set(owner, new Map());
      out.get(owner)!.set(role.roleField, role);
    }
    return out;
  }

  /** How many users hold each role of these organizations directly, keyed by organization then field. */
  async holderCounts(organizationIds: number[]): Promise<Map<number, Partial<Record<RoleField, number>>>> {
    const out = new Map<number, Partial<Record<RoleField, number>>>();
    if (!organizationIds.length) return out;
    const rows = (await this.dataSource.manager
      .createQueryBuilder(Role, 'r')
      .innerJoin(RoleMember, 'm', 'm.role_id = r.id')
      .select('r.organization_id', 'organization')
      .addSelect('r.role_field', 'field')
      .addSelect('COUNT(1)', 'holders')
      .where('r.organization_id IN (:...ids)', { ids: organizationIds })
      .groupBy('r.organization_id')
      .addGroupBy('r.role_field')
      .getRawMany()) as { organization: number | string; field: RoleField; holders: number | string }[];
    for (const row of rows) {
      const id = Number(row.organization);
      out.set(id, { ...out.get(id), [row.field]: Number(row.holders) });
    }
    return out;
  }

  async teamCounts(organizationIds: number[]): Promise<Map<number, number>> {
    if (!organizationIds.length) return new Map();
    const rows = (await this.dataSource.manager
      .createQueryBuilder(Team, 't')
      .select('t.organization_id', 'organization')
      .addSelect('COUNT(1)', 'teams')
      .where('t.organization_id IN (:...ids)', { ids: organizationIds })
      .groupBy('t.organization_id')
      .getRawMany()) as { organization: number | string; teams: number | string }[];
    return new Map(rows.map((r) => [Number(r.organization), Number(r.teams)]));
  }
}
