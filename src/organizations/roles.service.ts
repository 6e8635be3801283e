import { Injectable } from '@nestjs/common';
import { queryPage } from '../common/list-query/list-page';
import type { QueryParams } from '../common/list-query/list-spec';
import type { Principal } from '../common/principal';
import { Access } from './access.service';
import { GrantsService } from './grants.service';
import { ROLE_LIST } from './organization-lists';
import { serializeRole } from './organization.serializer';
import { OrganizationsRepository, RolesOf } from './organizations.repository';
import { roleScope } from './scopes';

/** Roles as resources (SPEC §21): one by id, an object's roles, a user's roles. */
@Injectable()
export class RolesService {
  constructor(
    private readonly repository: OrganizationsRepository,
    private readonly access: Access,
    private readonly grants: GrantsService,
  ) {}

  async detail(principal: Principal, id: number) {
    const standing = await this.access.standingOf(principal);
    return serializeRole(await this.grants.roleOr404(standing, id));
  }

  /** A page of the roles the caller sees, narrowed to those `of` names. */
  async page(principal: Principal, query: QueryParams, path: string, of: RolesOf) {
    const standing = await this.access.standingOf(principal);
    const qb = this.repository.roles(roleScope(standing), principal.user.id, of);
    return queryPage(qb, ROLE_LIST, query, path, principal.user, (rows) => rows.map(serializeRole));
  }

  /** `/api/v2/users/N/roles/`: the roles N holds directly (404 when N is hidden from the caller). */
  async ofUser(principal: Principal, userId: number, query: QueryParams, path: string) {
    await this.grants.userOr404(await this.access.standingOf(principal), userId);
    return this.page(principal, query, path, { holderId: userId });
  }
}
