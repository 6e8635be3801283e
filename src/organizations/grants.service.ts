import { Injectable } from '@nestjs/common';
import { BadRequest, NotFound, PermissionDenied } from '../common/errors';
import { queryPage } from '../common/list-query/list-page';
import type { QueryParams } from '../common/list-query/list-spec';
import type { Principal } from '../common/principal';
import type { RequestTrace } from '../common/request-context';
import { validateBody } from '../common/validation';
import { USER_BODY } from '../users/user-body';
import { USER_LIST } from '../users/user-list';
import { UserPresenter } from '../users/user-presenter';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { Access } from './access.service';
import { AssociationError, readAssociation } from './association-error';
import { OrganizationsRepository } from './organizations.repository';
import { Role, RoleField } from './role.entity';
import { RolesRepository } from './roles.repository';
import { Standing } from './standing';

/** What an association POST did: 204 (granted, revoked, or nothing to do) or 201 with the user it made. */
export type AssociationOutcome = { created: null } | { created: Record<string, unknown>; location: string };

/**
 * Who holds a role, and AWX's association POSTs that grant and revoke (SPEC §21). Only users hold roles;
 * holder lists show direct holders, among the users the caller sees.
 */
@Injectable()
export class GrantsService {
  constructor(
    private readonly repository: OrganizationsRepository,
    private readonly roles: RolesRepository,
    private readonly access: Access,
    private readonly users: UsersService,
    private readonly presenter: UserPresenter,
  ) {}

  /** The users the caller sees (SPEC §21), as a users list query (alias `u`). */
  usersQuery(standing: Standing) {
    return this.repository.usersSeenBy(this.users.listQuery(), this.access.seesAllUsers(standing) ? null : standing.user.id);
  }

  /** User `id` if the caller sees it, else null. */
  async visibleUser(standing: Standing, id: number): Promise<User | null> {
    return this.repository.onlyUser(this.usersQuery(standing), id).getOne();
  }

  /** The user of a `/api/v2/users/N/…` list: 404 when hidden from the caller (§8). */
  async userOr404(standing: Standing, id: number): Promise<User> {
    const user = await this.visibleUser(standing, id);
    if (!user) throw new NotFound();
    return user;
  }

  /** A page of a role's direct holders. */
  async holders(principal: Principal, roleId: number, query: QueryParams, path: string) {
    const standing = await this.access.standingOf(principal);
    return this.holdersPage(standing, principal, roleId, query, path);
  }

  holdersPage(standing: Standing, principal: Principal, roleId: number, query: QueryParams, path: string) {
    const qb = this.repository.holdersOf(this.usersQuery(standing), roleId);
    return queryPage(qb, USER_LIST, query, path, principal.user, (rows) => this.presenter.present(principal, rows));
  }

  /** The role `field` of an organization the caller reads (404 otherwise). */
  async organizationRole(standing: Standing, organizationId: number, field: RoleField): Promise<Role> {
    const org = await this.repository.organization(organizationId);
    if (!org || !standing.readsOrganization(org.id)) throw new NotFound();
    return this.roleOf('organization', org.id, field);
  }

  async teamRole(standing: Standing, teamId: number, field: RoleField): Promise<Role> {
    const team = await this.repository.team(teamId);
    if (!team || !standing.readsTeam(team)) throw new NotFound();
    return this.roleOf('team', team.id, field);
  }

  private async roleOf(kind: 'organization' | 'team', id: number, field: RoleField): Promise<Role> {
    const role = (await this.roles.rolesOf(kind, [id])).get(id)?.get(field);
    if (!role) throw new NotFound();
    return (await this.repository.role(role.id))!;
  }

  /** A role the caller can see (its organization or team is readable), else null. */
  async visibleRole(standing: Standing, id: number): Promise<Role | null> {
    const role = await this.repository.role(id);
    if (!role) return null;
    if (role.organizationId !== null) return standing.readsOrganization(role.organizationId) ? role : null;
    return role.team && standing.readsTeam(role.team) ? role : null;
  }

  async roleOr404(standing: Standing, id: number): Promise<Role> {
    const role = await this.visibleRole(standing, id);
    if (!role) throw new NotFound();
    return role;
  }

  /** Whether the caller may grant and revoke a role (MANAGE_ORGANIZATION_AUTH applies). */
  mayGrant(standing: Standing, role: Role): boolean {
    if (role.organizationId !== null) return standing.mayManageOrganization(role.organizationId);
    return !!role.team && standing.mayManageTeam(role.team);
  }

  /**
   * `POST /organizations/N/users/`, `/admins/`, `/teams/N/users/`: `{"id"}` grants, with `disassociate` revokes;
   * no id makes a user as `POST /api/v2/users/` does (superusers, same 400s) and grants the role.
   */
  async associateUser(principal: Principal, standing: Standing, role: Role, body: unknown, trace: RequestTrace): Promise<AssociationOutcome> {
    this.assertMayGrant(standing, role);
    const asked = readAssociation(body);
    if (asked.id === null) {
      if (!principal.user.isSuperuser) throw new PermissionDenied();
      const user = await this.users.create(validateBody(USER_BODY, body), trace);
      await this.roles.addMember(role.id, user.id, undefined, { actor: principal.user });
      const created = await this.presenter.presentOne(principal, user);
      return { created, location: created.url as string };
    }
    await this.applyToUser(standing, role, asked.id, asked.revoke);
    return { created: null };
  }

  /** `POST /api/v2/roles/N/users/`: like the others, but without `id` a 400 (AWX's RoleUsersList). */
  async associateRoleUser(principal: Principal, roleId: number, body: unknown): Promise<void> {
    const standing = await this.access.standingOf(principal);
    const role = await this.roleOr404(standing, roleId);
    this.assertMayGrant(standing, role);
    const asked = readAssociation(body);
    if (asked.id === null) throw new AssociationError("User 'id' field is missing.");
    await this.applyToUser(standing, role, asked.id, asked.revoke);
  }

  /** `POST /api/v2/users/N/roles/`: the body names the role (AWX's UserRolesList). */
  async associateUserRole(principal: Principal, userId: number, body: unknown): Promise<void> {
    const standing = await this.access.standingOf(principal);
    const user = await this.userOr404(standing, userId);
    // The body names the role: before it is read, the right to grant some role somewhere; then the role's own.
    if (!standing.mayGrantAnywhere) throw new PermissionDenied();
    const asked = readAssociation(body);
    if (asked.id === null) throw new AssociationError("Role 'id' field is missing.");
    const role = await this.visibleRole(standing, asked.id);
    if (!role) throw new BadRequest('Role matching query does not exist.');
    if (!this.mayGrant(standing, role)) throw new PermissionDenied();
    const by = { actor: principal.user, fromUser: true };
    await (asked.revoke ? this.roles.removeMember(role.id, user.id, undefined, by) : this.roles.addMember(role.id, user.id, undefined, by));
  }

  /**
   * The right is decided before the body is read (SPEC §21): a caller who may not grant or revoke the role gets
   * the one 403 whatever the body names, so a refusal never tells which ids exist (issue 56: it was a 400 for an
   * id naming no one, a 403 for one naming someone).
   */
  private assertMayGrant(standing: Standing, role: Role): void {
    if (!this.mayGrant(standing, role)) throw new PermissionDenied();
  }

  /** Grants or revokes a role, which the caller may grant, of a user the caller sees (else 400, AWX's get_object_or_400). */
  private async applyToUser(standing: Standing, role: Role, userId: number, revoke: boolean): Promise<void> {
    const user = await this.visibleUser(standing, userId);
    if (!user) throw new BadRequest('User matching query does not exist.');
    const by = { actor: standing.user };
    await (revoke ? this.roles.removeMember(role.id, user.id, undefined, by) : this.roles.addMember(role.id, user.id, undefined, by));
  }
}
