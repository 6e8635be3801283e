import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateValue } from '../common/validation';
import { authenticationMapsSchema, MapRule } from './authentication-maps';
import { combineParts } from './dialects/awx-part';
import type { AwxVerdicts, Claims, Holdings, MapSource } from './map-contract';
import { decide, DecideInput } from './maps-engine';
import { describeOutcome, diffOutcomes } from './outcome-view';

/** The sources the service's methods register (ldap, saml, oidc, radius), as a stub: maps/ names no method. */
const SOURCES = {
  accepts: (tag: string) => /^(ldap(:(default|[1-5]))?|(saml|oidc)(:[A-Za-z0-9][A-Za-z0-9_.-]{0,63})?|radius)$/.test(tag),
  describe: () => 'ldap, ldap:default, ldap:1 … ldap:5, saml, saml:<IdP>, oidc, oidc:<provider>, radius',
};


const rules = (value: unknown[]): MapRule[] => validateValue(authenticationMapsSchema(SOURCES), value, 'AUTHENTICATION_MAPS');
const noAwx: AwxVerdicts = combineParts([], true);
const nobody: Holdings = { flags: { is_superuser: false, is_system_auditor: false }, organizations: [], teams: [] };
const claims = (over: Partial<Claims> = {}): Claims => ({ username: 'alice', email: 'alice@example.org', groups: [], attributes: {}, ...over });
const entra: MapSource = { family: 'oidc', instance: 'entra' };
const ldap1: MapSource = { family: 'ldap', instance: '1' };

function run(over: Partial<DecideInput>) {
  return decide({ source: entra, claims: claims(), awx: noAwx, rules: [], holdings: nobody, existing: { organizations: new Set(), teams: new Set() }, ...over });
}

/** SPEC §21's example: a group gate, a group-made superuser, and a team that needs two LDAP groups (#13226, #7362, #4016). */
const example = rules([
  { name: 'AWX users only', sources: ['oidc:entra'], map_type: 'allow', triggers: { groups: { has_or: ['awx-users', 'awx-admins'] } } },
  { name: 'AWX admins', sources: ['oidc:entra'], map_type: 'is_superuser', triggers: { groups: { has_or: ['awx-admins'] } }, revoke: true },
  {
    name: 'Ops on call',
    sources: ['ldap'],
    map_type: 'team',
    organization: 'Ops',
    team: 'On call',
    triggers: { groups: { has_and: ['cn=ops,ou=groups,dc=example,dc=org', 'cn=oncall,ou=groups,dc=example,dc=org'] } },
    revoke: true,
  },
]);

describe('the rule engine: the example of SPEC §21', () => {
  it('refuses an Entra user in neither group: nothing listed, nothing made, the flags as they are', () => {
    const outcome = run({ rules: example, claims: claims({ groups: ['staff'] }), holdings: { ...nobody, flags: { is_superuser: true, is_system_auditor: false } } });
    assert.deepEqual(describeOutcome(outcome), {
      allowed: false,
      refused_by: 'AUTHENTICATION_MAPS[0]',
      flags: { is_superuser: { verdict: 'none', before: true, after: true, decided_by: null }, is_system_auditor: { verdict: 'none', before: false, after: false, decided_by: null } },
      organizations: [],
      teams: [],
      steps: outcome.steps,
    });
    assert.deepEqual(outcome.creates, { organizations: [], teams: [] });
    assert.ok(outcome.steps.includes('AUTHENTICATION_MAPS[0] "AWX users only": its trigger does not hold: refuses the login.'));
  });

  it('admits an Entra admin as superuser, and revokes superuser from a user who is no longer one', () => {
    assert.deepEqual(run({ rules: example, claims: claims({ groups: ['awx-admins'] }) }).flags.is_superuser, { verdict: 'grant', before: false, after: true, decidedBy: 'AUTHENTICATION_MAPS[1]' });
    const held = { ...nobody, flags: { is_superuser: true, is_system_auditor: false } };
    const outcome = run({ rules: example, claims: claims({ groups: ['awx-users'] }), holdings: held });
    assert.deepEqual([outcome.allowed, outcome.flags.is_superuser], [true, { verdict: 'revoke', before: true, after: false, decidedBy: 'AUTHENTICATION_MAPS[1]' }]);
  });

  it('makes the team for an LDAP user in both groups (compared as DNs), and revokes it with one group only', () => {
    const sameGroup = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    const both = ['CN=Ops,OU=Groups,DC=example,DC=org', 'cn=oncall,ou=groups,dc=example,dc=org'];
    const outcome = run({ source: ldap1, rules: example, claims: claims({ groups: both }), sameGroup });
    assert.equal(outcome.allowed, true, 'the allow rule is for oidc:entra only');
    assert.deepEqual(describeOutcome(outcome).teams, [{ organization: 'Ops', team: 'On call', role: 'member', creates: true, verdict: 'grant', before: false, after: true, decided_by: 'AUTHENTICATION_MAPS[2]' }]);
    assert.deepEqual(outcome.creates, { organizations: ['Ops'], teams: [{ organization: 'Ops', team: 'On call' }] });
    assert.ok(outcome.steps.includes('AUTHENTICATION_MAPS[0] "AWX users only": not for ldap:1: skipped.'));
    const held: Holdings = { ...nobody, teams: [{ organization: 'Ops', team: 'On call', role: 'member' }] };
    const existing = { organizations: new Set(['Ops']), teams: new Set([JSON.stringify(['Ops', 'On call'])]) };
    const one = run({ source: ldap1, rules: example, claims: claims({ groups: both.slice(0, 1) }), sameGroup, holdings: held, existing });
    assert.deepEqual(one.teams, [{ organization: 'Ops', team: 'On call', role: 'member', creates: false, verdict: 'revoke', before: true, after: false, decidedBy: 'AUTHENTICATION_MAPS[2]' }]);
    assert.deepEqual(one.creates, { organizations: [], teams: [] });
  });

  it('names rules and paths in its steps, never a claim value', () => {
    const outcome = run({ rules: example, claims: claims({ groups: ['awx-admins', 'secret-project-x'], username: 'alice' }) });
    assert.ok(outcome.steps.every((step) => !/alice|secret-project-x/.test(step)));
  });
});

describe('the rule engine: order and sources', () => {
  const grantSuper = { name: 'grant', map_type: 'is_superuser', triggers: { always: {} } };
  const revokeSuper = { name: 'revoke', map_type: 'is_superuser', triggers: { never: {} }, revoke: true };
  const awxGrant = combineParts([{ steps: [], flags: { is_superuser: { verdict: 'grant', decidedBy: 'AUTH_LDAP_USER_FLAGS_BY_GROUP.is_superuser' } } }], true);

  it('lets the last applicable rule that grants or revokes decide, over the AWX verdict', () => {
    assert.equal(run({ rules: rules([grantSuper, revokeSuper]) }).flags.is_superuser.decidedBy, 'AUTHENTICATION_MAPS[1]');
    assert.equal(run({ rules: rules([revokeSuper, grantSuper]) }).flags.is_superuser.verdict, 'grant');
    assert.deepEqual(run({ awx: awxGrant, rules: rules([revokeSuper]) }).flags.is_superuser, { verdict: 'revoke', before: false, after: false, decidedBy: 'AUTHENTICATION_MAPS[0]' });
    // A rule whose trigger fails without revoke decides nothing: the AWX verdict stands.
    assert.equal(run({ awx: awxGrant, rules: rules([{ ...revokeSuper, revoke: false }]) }).flags.is_superuser.decidedBy, 'AUTH_LDAP_USER_FLAGS_BY_GROUP.is_superuser');
  });

  it('skips disabled rules and rules whose sources leave the login out', () => {
    assert.equal(run({ awx: awxGrant, rules: rules([{ ...revokeSuper, enabled: false }]) }).flags.is_superuser.verdict, 'grant');
    const only = (sources: string[], source: MapSource) => run({ source, rules: rules([{ ...grantSuper, sources }]) }).flags.is_superuser.verdict;
    assert.equal(only(['ldap'], ldap1), 'grant', '`ldap` is every directory');
    assert.equal(only(['ldap:1'], ldap1), 'grant');
    assert.equal(only(['ldap:2'], ldap1), 'none');
    assert.equal(only(['ldap:default'], { family: 'ldap', instance: 'default' }), 'grant');
    assert.equal(only(['saml'], { family: 'saml', instance: 'okta' }), 'grant');
    assert.equal(only(['saml:okta'], { family: 'saml', instance: 'other' }), 'none');
    assert.equal(only(['radius'], { family: 'radius', instance: null }), 'grant');
    assert.equal(only(['oidc'], { family: 'radius', instance: null }), 'none');
  });

  it('refuses on a gate before any rule, and on any applicable allow rule that does not admit', () => {
    const gated = { ...noAwx, refusedBy: 'AUTH_LDAP_1_REQUIRE_GROUP' };
    const outcome = run({ source: ldap1, awx: gated, rules: rules([{ name: 'all', map_type: 'allow', triggers: { always: {} } }, grantSuper]) });
    assert.deepEqual([outcome.allowed, outcome.refusedBy, outcome.flags.is_superuser.verdict], [false, 'AUTH_LDAP_1_REQUIRE_GROUP', 'none']);
    const two = rules([
      { name: 'a', map_type: 'allow', triggers: { always: {} } },
      { name: 'b', map_type: 'allow', triggers: { never: {} } },
    ]);
    assert.equal(run({ rules: two }).refusedBy, 'AUTHENTICATION_MAPS[1]');
  });
});

describe('the rule engine: triggers', () => {
  const holds = (triggers: unknown, over: Partial<Claims>, sameAttribute?: (a: string, b: string) => boolean) =>
    run({ claims: claims(over), rules: rules([{ name: 't', map_type: 'is_system_auditor', triggers }]), sameAttribute }).flags.is_system_auditor.verdict === 'grant';

  it('requires every present group key: has_or, has_and and has_not together (DAB: only the first)', () => {
    const groups = { has_or: ['a', 'b'], has_and: ['c', 'd'], has_not: ['x'] };
    assert.equal(holds({ groups }, { groups: ['b', 'c', 'd'] }), true);
    assert.equal(holds({ groups }, { groups: ['b', 'c'] }), false);
    assert.equal(holds({ groups }, { groups: ['b', 'c', 'd', 'x'] }), false);
    assert.equal(holds({ groups: { has_not: ['x'] } }, { groups: [] }), true);
  });

  it('passes a test when one value passes it; a missing attribute fails it (DAB: skipped)', () => {
    const attributes = { department: { equals: 'Ops' } };
    assert.equal(holds({ attributes }, { attributes: { department: ['Sales', 'Ops'] } }), true, 'one value suffices (DAB: every value with and)');
    assert.equal(holds({ attributes }, { attributes: { department: ['ops'] } }), false, 'case counts');
    assert.equal(holds({ attributes: { join_condition: 'and', department: { equals: 'Ops' }, title: {} } }, { attributes: { department: ['Ops'] } }), false);
    assert.equal(holds({ attributes: { department: { equals: 'Ops' }, title: {} } }, { attributes: { title: [] } }), true, '{} is presence; or is the default join');
  });

  it('reads contains, ends_with, in and matches (RE2, ignoring case, from the first character)', () => {
    const mail = (test: unknown, value = 'Alice@Example.org') => holds({ attributes: { mail: test } }, { attributes: { mail: [value] } });
    assert.equal(mail({ contains: '@Example' }), true);
    assert.equal(mail({ contains: '@example' }), false);
    assert.equal(mail({ ends_with: '.org' }), true);
    assert.equal(mail({ in: ['x', 'Alice@Example.org'] }), true);
    assert.equal(mail({ matches: 'alice@' }), true);
    assert.equal(mail({ matches: 'example' }), false, 'anchored at the start');
    assert.equal(holds({ attributes: { uid: { equals: '1000' } } }, { attributes: { uid: ['1000'] } }), true, 'values compare as text');
  });

  it('compares attribute names with the comparator given (LDAP: ignoring case)', () => {
    const ignoringCase = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    assert.equal(holds({ attributes: { MAIL: {} } }, { attributes: { mail: ['x'] } }), false);
    assert.equal(holds({ attributes: { MAIL: {} } }, { attributes: { mail: ['x'] } }, ignoringCase), true);
  });

  it('holds groups and attributes both when both are given (DAB: the last listed)', () => {
    const triggers = { groups: { has_or: ['a'] }, attributes: { title: {} } };
    assert.equal(holds(triggers, { groups: ['a'], attributes: { title: ['x'] } }), true);
    assert.equal(holds(triggers, { groups: ['a'] }), false);
  });
});

describe('the rule engine: what a login makes, keeps and removes', () => {
  const existing = { organizations: new Set(['Main']), teams: new Set<string>() };
  const samlGrant = (createsObjects: boolean) =>
    combineParts(
      [{ steps: [], organizations: [{ organization: 'Sales', role: 'member', verdict: 'grant', decidedBy: 'SOCIAL_AUTH_SAML_ORGANIZATION_ATTR.saml_attr' }], namedObjects: [{ organization: 'Named' }] }],
      createsObjects,
    );

  it('makes what the maps name and what their grants need, or drops a grant naming a missing object', () => {
    const making = run({ awx: samlGrant(true), existing });
    assert.deepEqual(making.creates.organizations, ['Named', 'Sales']);
    assert.deepEqual(making.organizations.map((o) => [o.organization, o.creates, o.after]), [['Sales', true, true]]);
    const dropping = run({ awx: samlGrant(false), existing });
    assert.deepEqual([dropping.creates.organizations, dropping.organizations], [[], []]);
    assert.ok(dropping.steps.some((step) => step.includes('the grant is dropped')));
    // A rule makes its object when it grants, whatever the method's settings say; a revoke makes nothing.
    const ruled = rules([
      { name: 'g', map_type: 'organization', organization: 'Rules', role: 'admin', triggers: { always: {} } },
      { name: 'r', map_type: 'organization', organization: 'Gone', triggers: { never: {} }, revoke: true },
    ]);
    assert.deepEqual(run({ awx: samlGrant(false), existing, rules: ruled }).creates.organizations, ['Rules']);
  });

  it('revokes "every other" organization the user holds, keeps the named ones, and lets a grant win', () => {
    const holdings: Holdings = {
      ...nobody,
      organizations: [
        { organization: 'Main', role: 'member' },
        { organization: 'Old', role: 'member' },
        { organization: 'Kept', role: 'member' },
        { organization: 'Old', role: 'admin' },
      ],
    };
    const awx = combineParts(
      [
        { steps: [], revokeOthers: [{ kind: 'organization', role: 'member', except: [{ organization: 'Kept' }], decidedBy: 'SOCIAL_AUTH_SAML_ORGANIZATION_ATTR.remove' }] },
        { steps: [], organizations: [{ organization: 'Main', role: 'member', verdict: 'grant', decidedBy: 'SOCIAL_AUTH_SAML_ORGANIZATION_MAP["Main"].users' }] },
      ],
      true,
    );
    const outcome = run({ awx, holdings, existing: { organizations: new Set(['Main', 'Old', 'Kept']), teams: new Set() } });
    assert.deepEqual(
      outcome.organizations.map((o) => `${o.organization}/${o.role}: ${o.verdict} ${o.before}→${o.after} by ${o.decidedBy}`),
      [
        'Kept/member: none true→true by null',
        'Main/member: grant true→true by SOCIAL_AUTH_SAML_ORGANIZATION_MAP["Main"].users',
        'Old/admin: none true→true by null',
        'Old/member: revoke true→false by SOCIAL_AUTH_SAML_ORGANIZATION_ATTR.remove',
      ],
    );
  });

  it('says what a candidate changes, user by user', () => {
    const held: Holdings = { ...nobody, organizations: [{ organization: 'Main', role: 'member' }] };
    const current = run({ holdings: held, existing });
    const candidate = run({
      holdings: held,
      existing,
      rules: rules([
        { name: 'out', map_type: 'organization', organization: 'Main', triggers: { never: {} }, revoke: true },
        { name: 'su', map_type: 'is_superuser', triggers: { always: {} } },
      ]),
    });
    assert.deepEqual(diffOutcomes(current, candidate), [
      { kind: 'flag', flag: 'is_superuser', current: false, candidate: true, decided_by: 'AUTHENTICATION_MAPS[1]' },
      { kind: 'organization', organization: 'Main', role: 'member', current: true, candidate: false, decided_by: 'AUTHENTICATION_MAPS[0]' },
    ]);
    const refusing = run({ holdings: held, existing, rules: rules([{ name: 'no', map_type: 'allow', triggers: { never: {} } }]) });
    assert.deepEqual(diffOutcomes(current, refusing), [{ kind: 'allow', current: true, candidate: false, decided_by: 'AUTHENTICATION_MAPS[0]' }], 'a refused login keeps what the user holds');
    assert.deepEqual(diffOutcomes(current, current), []);
  });
});
