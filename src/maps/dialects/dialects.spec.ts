import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Decision } from '../map-contract';
import { attributeFlagsPart } from './attribute-flags';
import { combineParts, membershipIn, mergeDecisions } from './awx-part';
import { groupFlagsPart, groupGatesPart, groupOrganizationMapPart, groupTeamMapPart } from './group-maps';
import { readSocialValue, socialOrganizationMapPart, socialTeamMapPart, Subject } from './social-maps';

const alice: Subject = { username: 'alice', email: 'alice@example.org' };
const verdicts = (part: { organizations?: { organization: string; role: string; verdict: string; decidedBy: string | null }[] }) =>
  (part.organizations ?? []).map((o) => `${o.organization}/${o.role}: ${o.verdict} by ${o.decidedBy}`);

describe("the social maps' M (AWX's _update_m2m_from_expression)", () => {
  const read = (value: Parameters<typeof readSocialValue>[0], remove = true, subject = alice) => readSocialValue(value, remove, subject).verdict;

  it('decides nothing when absent or null, grants on true, revokes on false or [] only with the remove flag', () => {
    assert.equal(read(undefined), 'none');
    assert.equal(read(null), 'none');
    assert.equal(read(true), 'grant');
    assert.equal(read(false), 'revoke');
    assert.equal(read([]), 'revoke');
    assert.equal(read(false, false), 'none');
  });

  it('grants on the exact username or email (case counts), else revokes with the remove flag', () => {
    assert.equal(read('alice'), 'grant');
    assert.equal(read(['bob', 'alice@example.org']), 'grant');
    assert.equal(read('Alice'), 'revoke');
    assert.equal(read('Alice', false), 'none');
  });

  it('matches /pattern/flags from the first character on, not to the end (re.match)', () => {
    assert.equal(read('/ali/'), 'grant');
    assert.equal(read('/lice/'), 'revoke', 'anchored at the start');
    assert.equal(read('/ALI/'), 'revoke');
    assert.equal(read('/ALI/i'), 'grant');
    assert.equal(read('/.*@example\\.org/'), 'grant', 'the email is tried too');
  });

  it("tries the email the source sent; with none sent the email test fails (AWX: the stored one, #15336)", () => {
    const noEmail = { username: 'alice', email: null };
    assert.equal(read('alice@example.org', true, noEmail), 'revoke');
    assert.equal(read('/.*@/', true, noEmail), 'revoke');
    assert.equal(read('/alice/', true, noEmail), 'grant');
  });

  it('acts on organization_alias instead of the key, with every remove flag true by default, and names every organization', () => {
    const part = socialOrganizationMapPart('SOCIAL_AUTH_ORGANIZATION_MAP', { Default: { users: true, admins: 'bob', organization_alias: 'Main' } }, alice);
    assert.deepEqual(verdicts(part), ['Main/admin: revoke by SOCIAL_AUTH_ORGANIZATION_MAP["Default"].admins', 'Main/member: grant by SOCIAL_AUTH_ORGANIZATION_MAP["Default"].users']);
    assert.deepEqual(part.namedObjects, [{ organization: 'Main' }]);
    assert.ok(part.steps.every((step) => !step.includes('alice')), 'no claim value in the steps');
  });

  it("reads a team map's users with its remove flag (default true)", () => {
    const part = socialTeamMapPart('SOCIAL_AUTH_SAML_TEAM_MAP', { Ops: { organization: 'Main', users: ['bob'] }, Dev: { organization: 'Main', users: ['bob'], remove: false } }, alice);
    assert.deepEqual(part.teams?.map((t) => [t.organization, t.team, t.role, t.verdict, t.decidedBy]), [['Main', 'Ops', 'member', 'revoke', 'SOCIAL_AUTH_SAML_TEAM_MAP["Ops"].users']]);
    assert.deepEqual(part.namedObjects, [
      { organization: 'Main', team: 'Ops' },
      { organization: 'Main', team: 'Dev' },
    ]);
  });
});

describe("the LDAP maps' M (AWX's _update_m2m_from_groups)", () => {
  const ops = 'cn=ops,ou=groups,dc=example,dc=org';
  // LDAP passes its DN comparison; a lower-casing one stands in for it here.
  const member = membershipIn(['CN=Ops,OU=Groups,DC=example,DC=org'], (a, b) => a.toLowerCase() === b.toLowerCase());

  it('grants on membership of one of the DNs, compared by the comparator given', () => {
    const part = groupOrganizationMapPart('AUTH_LDAP_1_ORGANIZATION_MAP', { Ops: { admins: [ops], users: 'cn=other,dc=example,dc=org' } }, member);
    assert.deepEqual(verdicts(part), [
      'Ops/admin: grant by AUTH_LDAP_1_ORGANIZATION_MAP["Ops"].admins',
      'Ops/member: revoke by AUTH_LDAP_1_ORGANIZATION_MAP["Ops"].users',
    ]);
  });

  it('chains the remove defaults: remove_auditors is remove_admins, remove_users is remove_auditors', () => {
    const part = groupOrganizationMapPart('AUTH_LDAP_ORGANIZATION_MAP', { Ops: { admins: false, auditors: false, users: false, remove_admins: false } }, member);
    assert.deepEqual(verdicts(part), []);
    const chained = groupOrganizationMapPart('AUTH_LDAP_ORGANIZATION_MAP', { Ops: { admins: false, auditors: false, users: false, remove_auditors: false } }, member);
    assert.deepEqual(verdicts(chained), ['Ops/admin: revoke by AUTH_LDAP_ORGANIZATION_MAP["Ops"].admins']);
    const social = socialOrganizationMapPart('SOCIAL_AUTH_ORGANIZATION_MAP', { Ops: { admins: false, auditors: false, users: false, remove_admins: false } }, alice);
    assert.equal(verdicts(social).length, 2, 'the social flags each default to true');
  });

  it('reads the team map, the flags by group and the gates', () => {
    const teams = groupTeamMapPart('AUTH_LDAP_TEAM_MAP', { 'On call': { organization: 'Ops', users: [ops] } }, member);
    assert.deepEqual(teams.teams?.map((t) => `${t.organization}/${t.team}: ${t.verdict} by ${t.decidedBy}`), ['Ops/On call: grant by AUTH_LDAP_TEAM_MAP["On call"].users']);
    const flags = groupFlagsPart('AUTH_LDAP_2_USER_FLAGS_BY_GROUP', { is_superuser: [ops], is_system_auditor: [] }, member);
    assert.deepEqual(flags.flags, {
      is_superuser: { verdict: 'grant', decidedBy: 'AUTH_LDAP_2_USER_FLAGS_BY_GROUP.is_superuser', step: flags.steps[0] },
      is_system_auditor: { verdict: 'revoke', decidedBy: 'AUTH_LDAP_2_USER_FLAGS_BY_GROUP.is_system_auditor', step: flags.steps[1] },
    });
    const gates = (require: string | null, deny: string | null) =>
      groupGatesPart({ requireKey: 'AUTH_LDAP_1_REQUIRE_GROUP', require, denyKey: 'AUTH_LDAP_1_DENY_GROUP', deny }, member).refusedBy;
    assert.equal(gates(ops, null), null);
    assert.equal(gates('cn=x,dc=y', null), 'AUTH_LDAP_1_REQUIRE_GROUP');
    assert.equal(gates(ops, ops), 'AUTH_LDAP_1_DENY_GROUP');
    assert.equal(gates(null, 'cn=x,dc=y'), null);
  });
});

describe('flags by attribute', () => {
  it("keeps RADIUS's rule: an attribute equal to one of the values, exactly", () => {
    const part = attributeFlagsPart('RADIUS_USER_FLAGS_BY_ATTR', { is_superuser_attr: 'Class', is_superuser_value: ['awx-admins'], is_system_auditor_attr: 'Filter-Id', is_system_auditor_value: ['audit'] }, { Class: ['AWX-admins', 'awx-admins'], 'Filter-Id': ['Audit'] });
    assert.deepEqual(
      Object.entries(part.flags!).map(([flag, d]) => `${flag}: ${d.verdict} by ${d.decidedBy}`),
      ['is_superuser: grant by RADIUS_USER_FLAGS_BY_ATTR.is_superuser_attr', 'is_system_auditor: revoke by RADIUS_USER_FLAGS_BY_ATTR.is_system_auditor_attr'],
    );
    assert.deepEqual(attributeFlagsPart('RADIUS_USER_FLAGS_BY_ATTR', {}, { Class: ['x'] }).flags, {});
  });
});

describe('two AWX settings on one target', () => {
  it('a grant wins over a revoke, and nothing never overrides', () => {
    const grant: Decision = { verdict: 'grant', decidedBy: 'A' };
    const revoke: Decision = { verdict: 'revoke', decidedBy: 'B' };
    const none: Decision = { verdict: 'none', decidedBy: null };
    assert.equal(mergeDecisions(revoke, grant), grant);
    assert.equal(mergeDecisions(grant, revoke), grant);
    assert.equal(mergeDecisions(revoke, none), revoke);
    assert.equal(mergeDecisions(none, revoke), revoke);
    const combined = combineParts([{ steps: ['a'], flags: { is_superuser: revoke } }, { steps: ['b'], flags: { is_superuser: grant } }], false);
    assert.deepEqual(combined.flags.is_superuser, grant);
    assert.deepEqual([combined.steps, combined.createsGranted, combined.namedObjects], [['a', 'b'], false, []]);
  });
});
