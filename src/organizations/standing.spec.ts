import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Account } from '../common/principal';
import type { HeldRole } from './roles.repository';
import type { RoleField } from './role.entity';
import { Standing } from './standing';

const account = (flags: Partial<Account> = {}) => ({ id: 1, isSuperuser: false, isSystemAuditor: false, ...flags }) as Account;
const onOrganization = (id: number, field: RoleField): HeldRole => ({ roleId: 0, field, organizationId: id, teamId: null });
const onTeam = (id: number, field: RoleField): HeldRole => ({ roleId: 0, field, organizationId: null, teamId: id });
const team = { id: 10, organizationId: 1 };

describe('who may (SPEC §21)', () => {
  it('an organization admin is a member there and an admin of its teams; an auditor only reads', () => {
    const admin = new Standing(account(), [onOrganization(1, 'admin_role')], true);
    assert.equal(admin.hasOrganizationRole(1, 'member_role'), true);
    assert.equal(admin.hasOrganizationRole(1, 'auditor_role'), false);
    assert.equal(admin.hasTeamRole(team, 'admin_role'), true);
    assert.equal(admin.mayManageTeam(team), true);
    assert.equal(admin.mayChangeOrganization(2), false);
    const auditor = new Standing(account(), [onOrganization(1, 'auditor_role')], true);
    assert.equal(auditor.readsOrganization(1), true);
    assert.equal(auditor.readsTeam(team), true);
    assert.equal(auditor.mayChangeOrganization(1), false);
    assert.equal(auditor.mayManageTeam(team), false);
    assert.equal(auditor.adminOrAuditorSomewhere, true);
  });

  it("a team's roles read the team, never its organization; a team admin is a member", () => {
    const teamAdmin = new Standing(account(), [onTeam(10, 'admin_role')], true);
    assert.equal(teamAdmin.readsTeam(team), true);
    assert.equal(teamAdmin.readsOrganization(1), false);
    assert.equal(teamAdmin.hasTeamRole(team, 'member_role'), true);
    assert.equal(teamAdmin.mayManageTeam(team), true);
    assert.equal(teamAdmin.mayManageOrganization(1), false);
    assert.equal(teamAdmin.adminOrAuditorSomewhere, false);
    const member = new Standing(account(), [onTeam(10, 'member_role')], true);
    assert.equal(member.hasTeamRole(team, 'admin_role'), false);
    assert.equal(member.mayManageTeam(team), false);
  });

  it('MANAGE_ORGANIZATION_AUTH false leaves teams and grants to superusers; the organization stays its admins\'', () => {
    const admin = new Standing(account(), [onOrganization(1, 'admin_role')], false);
    assert.equal(admin.mayManageOrganization(1), false);
    assert.equal(admin.mayManageTeam(team), false);
    assert.equal(admin.mayChangeOrganization(1), true);
    assert.equal(new Standing(account({ isSuperuser: true }), [], false).mayManageTeam(team), true);
  });

  it('may grant somewhere: an organization or team admin while MANAGE_ORGANIZATION_AUTH, a superuser always; never a member or auditor', () => {
    assert.equal(new Standing(account(), [onOrganization(1, 'admin_role')], true).mayGrantAnywhere, true);
    assert.equal(new Standing(account(), [onTeam(10, 'admin_role')], true).mayGrantAnywhere, true);
    assert.equal(new Standing(account(), [onTeam(10, 'admin_role')], false).mayGrantAnywhere, false);
    assert.equal(new Standing(account(), [onOrganization(1, 'member_role'), onOrganization(2, 'auditor_role'), onTeam(10, 'member_role')], true).mayGrantAnywhere, false);
    assert.equal(new Standing(account({ isSystemAuditor: true }), [], true).mayGrantAnywhere, false);
    assert.equal(new Standing(account({ isSuperuser: true }), [], false).mayGrantAnywhere, true);
  });

  it('a superuser holds every role; a system auditor reads everything and holds every auditor role', () => {
    const superuser = new Standing(account({ isSuperuser: true }), [], true);
    for (const field of ['admin_role', 'member_role', 'auditor_role', 'read_role'] as const) assert.equal(superuser.hasOrganizationRole(5, field), true, field);
    assert.equal(superuser.hasTeamRole(team, 'auditor_role'), false, 'a team has no auditor role');
    const auditor = new Standing(account({ isSystemAuditor: true }), [], true);
    assert.equal(auditor.hasOrganizationRole(5, 'auditor_role'), true);
    assert.equal(auditor.hasOrganizationRole(5, 'member_role'), false);
    assert.equal(auditor.readsTeam(team), true);
    assert.equal(auditor.mayChangeOrganization(5), false);
  });
});
