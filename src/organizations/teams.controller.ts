import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { IdPipe } from '../common/id.pipe';
import { ObjectRoutesController } from '../common/object-routes.controller';
import { CurrentPrincipal, Principal } from '../common/principal';
import { CurrentTrace, RequestTrace } from '../common/request-context';
import { Access } from './access.service';
import { answerAssociation } from './association-reply';
import { GrantsService } from './grants.service';
import { RolesService } from './roles.service';
import { TeamsService } from './teams.service';

type Query = Record<string, unknown>;

/** `/api/v2/teams/` and what hangs off one (SPEC §21). */
@Controller('api/v2/teams')
export class TeamsController extends ObjectRoutesController {
  constructor(
    private readonly teams: TeamsService,
    private readonly roles: RolesService,
    private readonly grants: GrantsService,
    private readonly access: Access,
  ) {
    super();
  }

  protected get objects() {
    return this.teams;
  }

  @Get(':id/object_roles')
  async objectRoles(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    await this.teams.visible(await this.access.standingOf(principal), id);
    return this.roles.page(principal, query, `/api/v2/teams/${id}/object_roles/`, { teamId: id });
  }

  /** The team's members. */
  @Get(':id/users')
  async users(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    const standing = await this.access.standingOf(principal);
    const role = await this.grants.teamRole(standing, id, 'member_role');
    return this.grants.holdersPage(standing, principal, role.id, query, `/api/v2/teams/${id}/users/`);
  }

  @Post(':id/users')
  async associate(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IdPipe) id: number,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
    @CurrentTrace() trace: RequestTrace,
  ) {
    const standing = await this.access.standingOf(principal);
    const role = await this.grants.teamRole(standing, id, 'member_role');
    return answerAssociation(reply, await this.grants.associateUser(principal, standing, role, body, trace));
  }
}
