import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { IdPipe } from '../common/id.pipe';
import { ObjectRoutesController } from '../common/object-routes.controller';
import { CurrentPrincipal, Principal } from '../common/principal';
import { CurrentTrace, RequestTrace } from '../common/request-context';
import { Access } from './access.service';
import { answerAssociation } from './association-reply';
import { GrantsService } from './grants.service';
import { OrganizationsService } from './organizations.service';
import type { RoleField } from './role.entity';
import { RolesService } from './roles.service';
import { TeamsService } from './teams.service';

type Query = Record<string, unknown>;

/** `/api/v2/organizations/` and what hangs off one (SPEC §21). */
@Controller('api/v2/organizations')
export class OrganizationsController extends ObjectRoutesController {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly teams: TeamsService,
    private readonly roles: RolesService,
    private readonly grants: GrantsService,
    private readonly access: Access,
  ) {
    super();
  }

  protected get objects() {
    return this.organizations;
  }

  @Get(':id/teams')
  async teamList(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    await this.organizations.visible(await this.access.standingOf(principal), id);
    return this.teams.page(principal, query, `/api/v2/organizations/${id}/teams/`, { organizationId: id });
  }

  /** Makes a team in this organization, whatever the body's `organization` says. */
  @Post(':id/teams')
  createTeam(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown) {
    return this.teams.create(principal, body, id);
  }

  @Get(':id/object_roles')
  async objectRoles(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    await this.organizations.visible(await this.access.standingOf(principal), id);
    return this.roles.page(principal, query, `/api/v2/organizations/${id}/object_roles/`, { organizationId: id });
  }

  /** The organization's members. */
  @Get(':id/users')
  users(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    return this.holders(principal, id, 'member_role', query, `/api/v2/organizations/${id}/users/`);
  }

  @Get(':id/admins')
  admins(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    return this.holders(principal, id, 'admin_role', query, `/api/v2/organizations/${id}/admins/`);
  }

  @Post(':id/users')
  async associateMember(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IdPipe) id: number,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
    @CurrentTrace() trace: RequestTrace,
  ) {
    return this.associate(principal, id, 'member_role', body, reply, trace);
  }

  @Post(':id/admins')
  async associateAdmin(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IdPipe) id: number,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
    @CurrentTrace() trace: RequestTrace,
  ) {
    return this.associate(principal, id, 'admin_role', body, reply, trace);
  }

  private async holders(principal: Principal, id: number, field: RoleField, query: Query, path: string) {
    const standing = await this.access.standingOf(principal);
    const role = await this.grants.organizationRole(standing, id, field);
    return this.grants.holdersPage(standing, principal, role.id, query, path);
  }

  private async associate(principal: Principal, id: number, field: RoleField, body: unknown, reply: FastifyReply, trace: RequestTrace) {
    const standing = await this.access.standingOf(principal);
    const role = await this.grants.organizationRole(standing, id, field);
    return answerAssociation(reply, await this.grants.associateUser(principal, standing, role, body, trace));
  }
}
