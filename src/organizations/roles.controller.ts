import { Body, Controller, Get, HttpCode, HttpException, Param, Post, Query } from '@nestjs/common';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal } from '../common/principal';
import { Access } from './access.service';
import { AssociationError } from './association-error';
import { GrantsService } from './grants.service';
import { OrganizationsService } from './organizations.service';
import { RolesService } from './roles.service';
import { TeamsService } from './teams.service';

type Query = Record<string, unknown>;

/** A list that takes no POST (AWX's plain SubListAPIView): 405. */
function methodNotAllowed(): never {
  throw new HttpException({ detail: 'Method "POST" not allowed.' }, 405);
}

/** `/api/v2/roles/N/…` and the user-side lists of SPEC §21. */
@Controller('api/v2')
export class RolesController {
  constructor(
    private readonly roles: RolesService,
    private readonly grants: GrantsService,
    private readonly organizations: OrganizationsService,
    private readonly teams: TeamsService,
    private readonly access: Access,
  ) {}

  @Get('roles/:id')
  detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    return this.roles.detail(principal, id);
  }

  /** The role's direct holders: the way to list auditors and team admins, as in AWX. */
  @Get('roles/:id/users')
  async holders(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    const standing = await this.access.standingOf(principal);
    const role = await this.grants.roleOr404(standing, id);
    return this.grants.holdersPage(standing, principal, role.id, query, `/api/v2/roles/${id}/users/`);
  }

  @Post('roles/:id/users')
  @HttpCode(204)
  async associate(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown) {
    await this.grants.associateRoleUser(principal, id, body);
  }

  /** Only users hold roles here: no team ever does (AWX: a team may hold some). */
  @Get('roles/:id/teams')
  async teamHolders(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    await this.grants.roleOr404(await this.access.standingOf(principal), id);
    // A list of teams that is always empty, read as every list of teams (§19's 400s apply).
    return this.teams.page(principal, query, `/api/v2/roles/${id}/teams/`, { none: true });
  }

  @Post('roles/:id/teams')
  async grantToTeam(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    await this.grants.roleOr404(await this.access.standingOf(principal), id);
    throw new AssociationError('Granting a role to a team is not supported.');
  }

  @Get('users/:id/roles')
  userRoles(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    return this.roles.ofUser(principal, id, query, `/api/v2/users/${id}/roles/`);
  }

  @Post('users/:id/roles')
  @HttpCode(204)
  async associateRole(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Body() body: unknown) {
    await this.grants.associateUserRole(principal, id, body);
  }

  /** Where user N is a member. */
  @Get('users/:id/organizations')
  async userOrganizations(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    await this.grants.userOr404(await this.access.standingOf(principal), id);
    return this.organizations.page(principal, query, `/api/v2/users/${id}/organizations/`, { holderId: id, fields: ['member_role'] });
  }

  @Get('users/:id/admin_of_organizations')
  async adminOf(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    await this.grants.userOr404(await this.access.standingOf(principal), id);
    return this.organizations.page(principal, query, `/api/v2/users/${id}/admin_of_organizations/`, { holderId: id, fields: ['admin_role'] });
  }

  /** Teams where user N is a member or an admin. */
  @Get('users/:id/teams')
  async userTeams(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Query) {
    await this.grants.userOr404(await this.access.standingOf(principal), id);
    return this.teams.page(principal, query, `/api/v2/users/${id}/teams/`, { holderId: id });
  }

  @Post('users/:id/organizations')
  organizationsTakeNoPost() {
    methodNotAllowed();
  }

  @Post('users/:id/admin_of_organizations')
  adminOfTakesNoPost() {
    methodNotAllowed();
  }

  @Post('users/:id/teams')
  teamsTakeNoPost() {
    methodNotAllowed();
  }
}
