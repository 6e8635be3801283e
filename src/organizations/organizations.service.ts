import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Clock } from '../common/clock';
import { BadRequest, FieldErrors, NotFound, PermissionDenied } from '../common/errors';
import { queryPage } from '../common/list-query/list-page';
import type { QueryParams } from '../common/list-query/list-spec';
import type { Principal } from '../common/principal';
import { integer, text, validateBody } from '../common/validation';
import { isUniqueViolation } from '../database/errors';
import { Transactions } from '../database/transactions';
import { Access } from './access.service';
import { ORGANIZATION_LIST } from './organization-lists';
import { Organization } from './organization.entity';
import { serializeOrganization } from './organization.serializer';
import { OrganizationsHeld, OrganizationsRepository } from './organizations.repository';
import { RolesRepository } from './roles.repository';
import { organizationScope, ROLE_LEVELS, RoleLevel } from './scopes';
import { Standing } from './standing';
import { OrganizationActivity } from './organization-activity';

/** There are no execution environments here: only null names one (SPEC §21). */
const noEnvironment = z.custom<null>((value) => value === null, {
  error: (issue) =>
    typeof issue.input === 'number' && Number.isInteger(issue.input) ? `Invalid pk "${issue.input}" - object does not exist.` : `Incorrect type. Expected pk value, received ${typeof issue.input}.`,
});

const ORGANIZATION_BODY = z.object({
  name: text(512),
  description: text(1_000_000, { blank: true }).optional(),
  max_hosts: integer(0, 2147483647).optional(),
  default_environment: noEnvironment.optional(),
});

export const NAME_TAKEN = 'organization with this name already exists.';

/** `role_level` of AWX's organizations and teams lists (reserved; SPEC §21). */
export function roleLevelOf(query: QueryParams): RoleLevel | undefined {
  const raw = query.role_level;
  if (raw === undefined) return undefined;
  const values = Array.isArray(raw) ? raw.map(String) : [String(raw)];
  for (const value of values) {
    if (!(ROLE_LEVELS as readonly string[]).includes(value)) throw new BadRequest(`Invalid role_level "${value.slice(0, 100)}": use one of ${ROLE_LEVELS.join(', ')}.`);
  }
  return values.at(-1) as RoleLevel;
}

/** Organizations (SPEC §21): the list and detail, made by superusers, changed and deleted by their admins. */
@Injectable()
export class OrganizationsService {
  constructor(
    private readonly repository: OrganizationsRepository,
    private readonly roles: RolesRepository,
    private readonly access: Access,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    private readonly activity: OrganizationActivity,
  ) {}

  /**
   * A page of the organizations the caller may read (or holds `role_level` on), narrowed to those `held`
   * names (a user's organizations), filtered by §19.
   */
  async page(principal: Principal, query: QueryParams, path: string, held?: OrganizationsHeld) {
    const standing = await this.access.standingOf(principal);
    const qb = this.repository.organizations(organizationScope(standing, roleLevelOf(query)), principal.user.id, held);
    return queryPage(qb, ORGANIZATION_LIST, query, path, principal.user, (rows) => this.present(standing, rows));
  }

  async present(standing: Standing, rows: Organization[]): Promise<Record<string, unknown>[]> {
    const ids = rows.map((o) => o.id);
    const [roles, holders, teams] = await Promise.all([this.roles.rolesOf('organization', ids), this.roles.holderCounts(ids), this.roles.teamCounts(ids)]);
    return rows.map((org) => {
      const held = holders.get(org.id) ?? {};
      const counts = { users: held.member_role ?? 0, admins: held.admin_role ?? 0, teams: teams.get(org.id) ?? 0 };
      return serializeOrganization(org, roles.get(org.id), counts, standing);
    });
  }

  /** The organization if the caller may read it; 404 otherwise (SPEC §21: as §8 hides users). */
  async visible(standing: Standing, id: number): Promise<Organization> {
    const org = await this.repository.organization(id);
    if (!org || !standing.readsOrganization(org.id)) throw new NotFound();
    return org;
  }

  /** The list at its own path (`/api/v2/organizations/`); the lists hanging off other objects call `page`. */
  list(principal: Principal, query: QueryParams) {
    return this.page(principal, query, '/api/v2/organizations/');
  }

  async get(principal: Principal, id: number) {
    const standing = await this.access.standingOf(principal);
    return (await this.present(standing, [await this.visible(standing, id)]))[0];
  }

  async create(principal: Principal, body: unknown) {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    const input = validateBody(ORGANIZATION_BODY, body);
    let org: Organization;
    try {
      org = await this.transactions.run((manager) =>
        this.roles.insertOrganization(manager, { name: input.name, description: input.description ?? '', maxHosts: input.max_hosts ?? 0 }),
      );
    } catch (err) {
      // The unique index is the check (names compare exactly: `Ops` and `ops` are two organizations, SPEC §21).
      if (isUniqueViolation(err)) throw FieldErrors.of('name', NAME_TAKEN);
      throw err;
    }
    this.activity.organization('create', org, principal.user);
    return (await this.present(await this.access.standingOf(principal), [org]))[0];
  }

  async update(principal: Principal, id: number, body: unknown, partial: boolean) {
    const standing = await this.access.standingOf(principal);
    const org = await this.visible(standing, id);
    if (!standing.mayChangeOrganization(org.id)) throw new PermissionDenied();
    const input = validateBody(ORGANIZATION_BODY, body, { partial });
    if (!standing.isSuperuser && input.max_hosts !== undefined && input.max_hosts !== org.maxHosts) {
      throw new FieldErrors({ __all__: ['Cannot change max_hosts.'] });
    }
    const changes: Partial<Organization> = { modified: this.clock.now() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (input.max_hosts !== undefined) changes.maxHosts = input.max_hosts;
    try {
      await this.repository.updateOrganization(org.id, changes);
    } catch (err) {
      if (isUniqueViolation(err)) throw FieldErrors.of('name', NAME_TAKEN);
      throw err;
    }
    const updated = await this.repository.organization(org.id);
    if (!updated) throw new NotFound();
    this.activity.organization('update', updated, principal.user, org);
    return (await this.present(standing, [updated]))[0];
  }

  /** Its teams and every role held in either go with it. */
  async remove(principal: Principal, id: number): Promise<void> {
    const standing = await this.access.standingOf(principal);
    const org = await this.visible(standing, id);
    if (!standing.mayChangeOrganization(org.id)) throw new PermissionDenied();
    await this.repository.deleteOrganization(org.id);
    this.activity.organization('delete', org, principal.user);
  }

}
