import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { User } from '../users/user.entity';
import { Organization } from './organization.entity';
import { Role, RoleField } from './role.entity';
import { Scope, userScope } from './scopes';
import { Team } from './team.entity';

/** The organizations a list hanging off a user keeps: those where the user holds one of `fields` directly. */
export interface OrganizationsHeld {
  holderId: number;
  fields: RoleField[];
}

/** The teams a list hanging off another object keeps: an organization's, those a user holds a role on, or none. */
export type TeamsOf = { organizationId: number } | { holderId: number } | { none: true };

/** The roles a list hanging off another object keeps: an organization's, a team's, or those a user holds. */
export type RolesOf = { organizationId: number } | { teamId: number } | { holderId: number };

/**
 * The API's statements about organizations, teams and roles as objects (SPEC §21): the lists' queries (already
 * limited to what the caller may see, and to what a list hanging off another object keeps), the users lists'
 * conditions, one object by id, changes and deletes. Who holds which role is RolesRepository's.
 */
@Injectable()
export class OrganizationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private scoped<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, scope: Scope, viewerId: number): SelectQueryBuilder<T> {
    return scope === null ? qb : qb.where(scope, { viewerId });
  }

  organizations(scope: Scope, viewerId: number, held?: OrganizationsHeld): SelectQueryBuilder<Organization> {
    const qb = this.scoped(this.dataSource.manager.createQueryBuilder(Organization, 'o'), scope, viewerId);
    if (!held) return qb;
    const fields = held.fields.map((f) => `'${f}'`).join(', ');
    return qb.andWhere(
      'o.id IN (SELECT ur.organization_id FROM main_rbac_roles ur INNER JOIN main_rbac_role_members um ON um.role_id = ur.id ' +
        `WHERE um.user_id = :ofUser AND ur.organization_id IS NOT NULL AND ur.role_field IN (${fields}))`,
      { ofUser: held.holderId },
    );
  }

  teams(scope: Scope, viewerId: number, of?: TeamsOf): SelectQueryBuilder<Team> {
    const qb = this.scoped(this.dataSource.manager.createQueryBuilder(Team, 't').leftJoinAndSelect('t.organization', 'org'), scope, viewerId);
    if (!of) return qb;
    if ('organizationId' in of) return qb.andWhere('t.organization_id = :inOrganization', { inOrganization: of.organizationId });
    if ('holderId' in of) {
      return qb.andWhere(
        't.id IN (SELECT ur.team_id FROM main_rbac_roles ur INNER JOIN main_rbac_role_members um ON um.role_id = ur.id WHERE um.user_id = :ofUser AND ur.team_id IS NOT NULL)',
        { ofUser: of.holderId },
      );
    }
    return qb.andWhere('1 = 0');
  }

  roles(scope: Scope, viewerId: number, of: RolesOf): SelectQueryBuilder<Role> {
    const qb = this.scoped(this.dataSource.manager.createQueryBuilder(Role, 'r').leftJoinAndSelect('r.organization', 'rorg').leftJoinAndSelect('r.team', 'rteam'), scope, viewerId);
    if ('organizationId' in of) return qb.andWhere('r.organization_id = :ofOrganization', { ofOrganization: of.organizationId });
    if ('teamId' in of) return qb.andWhere('r.team_id = :ofTeam', { ofTeam: of.teamId });
    return qb.andWhere('r.id IN (SELECT urm.role_id FROM main_rbac_role_members urm WHERE urm.user_id = :roleHolder)', { roleHolder: of.holderId });
  }

  /**
   * The users list (alias `u`, UsersService.listQuery) kept to the users the viewer sees (SPEC §21); `viewerId`
   * null: the viewer sees every user.
   */
  usersSeenBy(qb: SelectQueryBuilder<User>, viewerId: number | null): SelectQueryBuilder<User> {
    const scope = viewerId === null ? null : userScope(false);
    return scope === null ? qb : qb.where(scope, { viewerId });
  }

  /** A users list (alias `u`) kept to user `id`. */
  onlyUser(qb: SelectQueryBuilder<User>, id: number): SelectQueryBuilder<User> {
    return qb.andWhere('u.id = :targetUser', { targetUser: id });
  }

  /** A users list (alias `u`) kept to the direct holders of a role. */
  holdersOf(qb: SelectQueryBuilder<User>, roleId: number): SelectQueryBuilder<User> {
    return qb.andWhere('u.id IN (SELECT hm.user_id FROM main_rbac_role_members hm WHERE hm.role_id = :holderRole)', { holderRole: roleId });
  }

  organization(id: number): Promise<Organization | null> {
    return this.dataSource.manager.findOneBy(Organization, { id });
  }

  team(id: number): Promise<Team | null> {
    return this.dataSource.manager.findOne(Team, { where: { id }, relations: { organization: true } });
  }

  role(id: number): Promise<Role | null> {
    return this.dataSource.manager.findOne(Role, { where: { id }, relations: { organization: true, team: true } });
  }

  async updateOrganization(id: number, changes: Partial<Organization>, manager?: EntityManager): Promise<void> {
    await (manager ?? this.dataSource.manager).update(Organization, { id }, changes);
  }

  async updateTeam(id: number, changes: Partial<Team>): Promise<void> {
    await this.dataSource.manager.update(Team, { id }, changes);
  }

  /** The organization, its teams and every role held in either go (ON DELETE CASCADE, migration 1765200000000). */
  async deleteOrganization(id: number): Promise<void> {
    await this.dataSource.manager.delete(Organization, { id });
  }

  /** The team and its roles go. */
  async deleteTeam(id: number): Promise<void> {
    await this.dataSource.manager.delete(Team, { id });
  }
}
