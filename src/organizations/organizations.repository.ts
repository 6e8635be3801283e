import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Organization } from './organization.entity';
import { Role } from './role.entity';
import type { Scope } from './scopes';
import { Team } from './team.entity';

/**
 * The API's statements about organizations, teams and roles as objects (SPEC §21): the lists' queries (already
 * limited to what the caller may see), one object by id, changes and deletes. Who holds which role is
 * RolesRepository's.
 */
@Injectable()
export class OrganizationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private scoped<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, scope: Scope, viewerId: number): SelectQueryBuilder<T> {
    return scope === null ? qb : qb.where(scope, { viewerId });
  }

  organizations(scope: Scope, viewerId: number): SelectQueryBuilder<Organization> {
    return this.scoped(this.dataSource.manager.createQueryBuilder(Organization, 'o'), scope, viewerId);
  }

  teams(scope: Scope, viewerId: number): SelectQueryBuilder<Team> {
    return this.scoped(this.dataSource.manager.createQueryBuilder(Team, 't').leftJoinAndSelect('t.organization', 'org'), scope, viewerId);
  }

  roles(scope: Scope, viewerId: number): SelectQueryBuilder<Role> {
    const qb = this.dataSource.manager.createQueryBuilder(Role, 'r').leftJoinAndSelect('r.organization', 'rorg').leftJoinAndSelect('r.team', 'rteam');
    return this.scoped(qb, scope, viewerId);
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
