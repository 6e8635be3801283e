import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Clock } from '../common/clock';
import { FieldErrors, NotFound, PermissionDenied } from '../common/errors';
import { queryPage } from '../common/list-query/list-page';
import type { QueryParams } from '../common/list-query/list-spec';
import type { Principal } from '../common/principal';
import { REQUIRED, text, validateBody } from '../common/validation';
import { isUniqueViolation } from '../database/errors';
import { Transactions } from '../database/transactions';
import { Access } from './access.service';
import { AssociationError } from './association-error';
import { TEAM_LIST } from './organization-lists';
import { serializeTeam } from './organization.serializer';
import { OrganizationsRepository, TeamsOf } from './organizations.repository';
import { roleLevelOf } from './organizations.service';
import { RolesRepository } from './roles.repository';
import { teamScope } from './scopes';
import { Standing } from './standing';
import { OrganizationActivity } from './organization-activity';
import { Team } from './team.entity';

/** DRF's PrimaryKeyRelatedField, required and not null (the organization a team belongs to). */
const organizationId = z.custom<number>((value) => typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 2147483647, {
  error: (issue) => {
    if (issue.input === undefined) return REQUIRED;
    if (issue.input === null) return 'This field may not be null.';
    if (typeof issue.input === 'number' && Number.isInteger(issue.input)) return `Invalid pk "${issue.input}" - object does not exist.`;
    return `Incorrect type. Expected pk value, received ${typeof issue.input}.`;
  },
});

const TEAM_BODY = z.object({
  name: text(512),
  description: text(1_000_000, { blank: true }).optional(),
  organization: organizationId,
});

export const TEAM_TAKEN = 'Team with this Organization and Name already exists.';
const ORGANIZATION_CHANGE = 'Unable to change organization on a team.';

/** Teams (SPEC §21): made, changed and deleted by their organization's admins, changed and deleted by their own. */
@Injectable()
export class TeamsService {
  constructor(
    private readonly repository: OrganizationsRepository,
    private readonly roles: RolesRepository,
    private readonly access: Access,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    private readonly activity: OrganizationActivity,
  ) {}

  /** A page of the teams the caller may read (or holds `role_level` on), narrowed to those `of` names (a list hanging off another object). */
  async page(principal: Principal, query: QueryParams, path: string, of?: TeamsOf) {
    const standing = await this.access.standingOf(principal);
    const qb = this.repository.teams(teamScope(standing, roleLevelOf(query)), principal.user.id, of);
    return queryPage(qb, TEAM_LIST, query, path, principal.user, (rows) => this.present(standing, rows));
  }

  async present(standing: Standing, rows: Team[]): Promise<Record<string, unknown>[]> {
    const roles = await this.roles.rolesOf('team', rows.map((t) => t.id));
    return rows.map((team) => serializeTeam(team, roles.get(team.id), standing));
  }

  async visible(standing: Standing, id: number): Promise<Team> {
    const team = await this.repository.team(id);
    if (!team || !standing.readsTeam(team)) throw new NotFound();
    return team;
  }

  /** The list at its own path (`/api/v2/teams/`); the lists hanging off other objects call `page`. */
  list(principal: Principal, query: QueryParams) {
    return this.page(principal, query, '/api/v2/teams/');
  }

  async get(principal: Principal, id: number) {
    const standing = await this.access.standingOf(principal);
    return (await this.present(standing, [await this.visible(standing, id)]))[0];
  }

  /**
   * `POST /api/v2/teams/` (the body names the organization) or `/api/v2/organizations/N/teams/` (`inOrganization`:
   * N, whatever the body says; a body with `id` would attach, which moves a team in AWX: refused).
   */
  async create(principal: Principal, body: unknown, inOrganization?: number) {
    const standing = await this.access.standingOf(principal);
    if (inOrganization !== undefined) {
      const org = await this.repository.organization(inOrganization);
      if (!org || !standing.readsOrganization(org.id)) throw new NotFound();
      if (body && typeof body === 'object' && !Array.isArray(body) && Object.hasOwn(body, 'id')) {
        throw new AssociationError('A team cannot be attached to another organization: a team never changes organization.');
      }
    }
    const input = validateBody(TEAM_BODY, inOrganization === undefined ? body : { ...(body as object), organization: inOrganization });
    const organizationId = await this.readableOrganization(standing, input.organization);
    if (!standing.mayManageOrganization(organizationId)) throw new PermissionDenied();
    let team: Team;
    try {
      team = await this.transactions.run((manager) => this.roles.insertTeam(manager, { name: input.name, description: input.description ?? '', organizationId }));
    } catch (err) {
      // The unique index (organization, name) is the check.
      if (isUniqueViolation(err)) throw new FieldErrors({ __all__: [TEAM_TAKEN] });
      throw err;
    }
    this.activity.team('create', team, await this.organizationName(organizationId), principal.user);
    return (await this.present(standing, [(await this.repository.team(team.id))!]))[0];
  }

  async update(principal: Principal, id: number, body: unknown, partial: boolean) {
    const standing = await this.access.standingOf(principal);
    const team = await this.visible(standing, id);
    // AWX refuses a move before anything else, superusers too (TeamAccess.can_change).
    const named = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).organization : undefined;
    if (typeof named === 'number' && named !== team.organizationId) throw new PermissionDenied(ORGANIZATION_CHANGE);
    if (!standing.mayManageTeam(team)) throw new PermissionDenied();
    const input = validateBody(TEAM_BODY, body, { partial });
    if (input.organization !== undefined && input.organization !== team.organizationId) throw new PermissionDenied(ORGANIZATION_CHANGE);
    const changes: Partial<Team> = { modified: this.clock.now() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    try {
      await this.repository.updateTeam(team.id, changes);
    } catch (err) {
      if (isUniqueViolation(err)) throw new FieldErrors({ __all__: [TEAM_TAKEN] });
      throw err;
    }
    const updated = await this.repository.team(team.id);
    if (!updated) throw new NotFound();
    this.activity.team('update', updated, await this.organizationName(updated.organizationId), principal.user, team);
    return (await this.present(standing, [updated]))[0];
  }

  async remove(principal: Principal, id: number): Promise<void> {
    const standing = await this.access.standingOf(principal);
    const team = await this.visible(standing, id);
    if (!standing.mayManageTeam(team)) throw new PermissionDenied();
    const organizationName = await this.organizationName(team.organizationId);
    await this.repository.deleteTeam(team.id);
    this.activity.team('delete', team, organizationName, principal.user);
  }

  /** A team's organization as the stream shows it (a related object as its name, AWX). */
  private async organizationName(id: number): Promise<string> {
    return (await this.repository.organization(id))?.name ?? '';
  }

  /** The body's organization: required, and one the caller can see (else a 400 naming it, as AWX). */
  private async readableOrganization(standing: Standing, id: number): Promise<number> {
    const org = await this.repository.organization(id);
    if (!org || !standing.readsOrganization(org.id)) throw FieldErrors.of('organization', `Invalid pk "${id}" - object does not exist.`);
    return org.id;
  }

}
