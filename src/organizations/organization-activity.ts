import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ActivityRecord, StreamActor, StreamObject, StreamOperation } from '../common/activity-record';
import { changesOf, fieldsOf, namedSummary, userSummary } from '../common/activity-changes';
import { afterCommit } from '../database/transactions';
import { User } from '../users/user.entity';
import { Organization } from './organization.entity';
import { Role } from './role.entity';
import { Team } from './team.entity';

/** Who granted or revoked a role, and from which side (SPEC §23: AWX records from the side acted on). */
export interface MembershipBy {
  /** The request's authenticated user; none for a map at a login or a sweep. */
  actor: Pick<StreamActor, 'id' | 'username' | 'firstName' | 'lastName'> | null;
  /** Through `/api/v2/users/N/roles/`: the user is object1. */
  fromUser?: boolean;
}

const organizationFields = (o: Organization) => ({ name: o.name, description: o.description, max_hosts: o.maxHosts });
const teamFields = (t: Team, organizationName: string) => ({ name: t.name, description: t.description, organization: organizationName });

/** The stream's entries of organizations, teams and role grants (SPEC §23). */
@Injectable()
export class OrganizationActivity {
  constructor(private readonly record: ActivityRecord) {}

  organization(operation: Exclude<StreamOperation, 'associate' | 'disassociate'>, org: Organization, actor: MembershipBy['actor'], before?: Organization): void {
    const changes = before ? changesOf(organizationFields(before), organizationFields(org)) : { ...fieldsOf(organizationFields(org)), id: org.id };
    if (!Object.keys(changes).length) return;
    this.record.record({ operation, object1: 'organization', changes, objects: [{ kind: 'organization', id: org.id, summary: namedSummary(org) }], actor });
  }

  team(operation: Exclude<StreamOperation, 'associate' | 'disassociate'>, team: Team, organizationName: string, actor: MembershipBy['actor'], before?: Team): void {
    const changes = before ? changesOf(teamFields(before, organizationName), teamFields(team, organizationName)) : { ...fieldsOf(teamFields(team, organizationName)), id: team.id };
    if (!Object.keys(changes).length) return;
    this.record.record({ operation, object1: 'team', changes, objects: [{ kind: 'team', id: team.id, summary: namedSummary(team) }], actor });
  }

  /** A role's holder changed: AWX's associate/disassociate entry, recorded once the caller's transaction commits. */
  async membership(operation: 'associate' | 'disassociate', roleId: number, userId: number, by: MembershipBy, manager: EntityManager): Promise<void> {
    const role = await manager.findOneBy(Role, { id: roleId });
    const user = await manager.findOneBy(User, { id: userId });
    if (!role || !user) return;
    const kind = role.organizationId !== null ? 'organization' : 'team';
    const object = kind === 'organization' ? await manager.findOneBy(Organization, { id: role.organizationId! }) : await manager.findOneBy(Team, { id: role.teamId! });
    if (!object) return;
    const objectSide: StreamObject = { kind, id: object.id, summary: namedSummary(object) };
    const userSide: StreamObject = { kind: 'user', id: user.id, summary: userSummary(user) };
    const [first, second] = by.fromUser ? [userSide, objectSide] : [objectSide, userSide];
    const changes = {
      object1: first.kind, object1_pk: first.id, object2: second.kind, object2_pk: second.id, action: operation, relationship: 'awx.main.models.rbac.Role_members',
    };
    afterCommit(manager, () =>
      this.record.record({
        operation, object1: first.kind, object2: second.kind, objectAssociation: 'role', objectType: kind, changes, objects: [first, second],
        role: { id: role.id, role_field: role.roleField }, actor: by.actor,
      }),
    );
  }
}
