import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateValue } from '../common/validation';
import { authenticationMapsSchema } from './authentication-maps';
import {
  ldapMapSettingDefinitions,
  ldapOrganizationMapSchema,
  mapSettingDefinitions,
  socialMapSettingDefinitions,
  socialOrganizationMapSchema,
  socialTeamMapSchema,
} from './map-settings';
import { fieldErrorsOf } from '../../test/support/field-errors';

/** The sources the service's methods register (ldap, saml, oidc, radius), as a stub: maps/ names no method. */
const SOURCES = {
  accepts: (tag: string) => /^(ldap(:(default|[1-5]))?|(saml|oidc)(:[A-Za-z0-9][A-Za-z0-9_.-]{0,63})?|radius)$/.test(tag),
  describe: () => 'ldap, ldap:default, ldap:1 … ldap:5, saml, saml:<IdP>, oidc, oidc:<provider>, radius',
};


/** A DN check standing in for §14's (the LDAP module passes its own). */
const isDn = (value: string) => /^[a-z]+=[^,]+(,[a-z]+=[^,]+)*$/i.test(value);

const errors = fieldErrorsOf;

describe('the map settings (SPEC §21)', () => {
  it("refuses a key the shape does not name, and a missing required one, as AWX nests them", () => {
    assert.deepEqual(errors(socialOrganizationMapSchema, { Default: { users: true, colour: 'red' } }), { KEY: { Default: { colour: ['Invalid field.'] } } });
    assert.deepEqual(errors(socialTeamMapSchema, { Ops: { users: true } }), { KEY: { Ops: { organization: ['This field is required.'] } } });
    // The LDAP organization map has no organization_alias (AWX's LDAP field).
    assert.deepEqual(errors(ldapOrganizationMapSchema(isDn), { Ops: { organization_alias: 'x' } }), { KEY: { Ops: { organization_alias: ['Invalid field.'] } } });
  });

  it('accepts auditors and remove_auditors in every organization map (AWX: not in the social field)', () => {
    assert.deepEqual(validateValue(socialOrganizationMapSchema, { Ops: { auditors: 'alice', remove_auditors: false } }, 'KEY'), { Ops: { auditors: 'alice', remove_auditors: false } });
  });

  it("reads a whole M as DRF 3.14's BooleanField does, and keeps a list's items as strings", () => {
    const read = (users: unknown) => (validateValue(socialOrganizationMapSchema, { O: { users } }, 'KEY') as Record<string, { users: unknown }>).O.users;
    for (const value of ['true', 'yes', 'On', 'Y', 'T', 'TRUE', '1', 1, true]) assert.equal(read(value), true, String(value));
    for (const value of ['false', 'no', 'OFF', 'n', 'F', '0', 0, false]) assert.equal(read(value), false, String(value));
    for (const value of ['null', 'NULL', '', null]) assert.equal(read(value), null, String(value));
    assert.deepEqual(read(['true', 'yes', 1]), ['true', 'yes', '1']);
    assert.deepEqual(read(' alice '), 'alice');
    assert.deepEqual(errors(socialOrganizationMapSchema, { O: { users: 5 } }), {
      KEY: { O: { users: ["Expected None, True, False, a string or list of strings but got <class 'int'> instead."] } },
    });
    assert.deepEqual(errors(socialOrganizationMapSchema, { O: { users: ['a', ''] } }), { KEY: { O: { users: { '1': ['This field may not be blank.'] } } } });
  });

  it('reads /pattern/flags with i and m only, checks it as RE2, and reads it back in that form', () => {
    const read = (users: unknown) => (validateValue(socialOrganizationMapSchema, { O: { users } }, 'KEY') as Record<string, { users: unknown }>).O.users;
    assert.equal(read('/^a.*/mi'), '/^a.*/im');
    assert.equal(read('/^a/'), '/^a/');
    // AWX's pattern takes only i and m: with another flag the string is compared exactly.
    assert.equal(read('/^a/x'), '/^a/x');
    assert.deepEqual(errors(socialOrganizationMapSchema, { O: { users: ['/(?=a)/'] } }), {
      KEY: { O: { users: { '0': ['Invalid regular expression (RE2 syntax): invalid or unsupported Perl syntax: `(?=`.'] } } },
    });
  });

  it("checks the LDAP maps' DNs, and takes their whole M as booleans", () => {
    const schema = ldapOrganizationMapSchema(isDn);
    assert.deepEqual(errors(schema, { Ops: { admins: ['cn=admins,dc=example', 'not a dn'] } }), { KEY: { Ops: { admins: { '1': ['Enter a valid DN (e.g. "cn=admins,ou=groups,dc=example,dc=org").'] } } } });
    assert.deepEqual(validateValue(schema, { Ops: { admins: 'cn=admins,dc=example', users: '', auditors: 'yes' } }, 'KEY'), { Ops: { admins: 'cn=admins,dc=example', users: null, auditors: true } });
    assert.deepEqual(errors(schema, null), { KEY: ['Expected a dictionary of items.'] });
  });

  it('defines the keys of each category with their defaults', () => {
    const all = [...mapSettingDefinitions(SOURCES), ...socialMapSettingDefinitions('SOCIAL_AUTH_SAML_', 'saml'), ...socialMapSettingDefinitions('SOCIAL_AUTH_OIDC_', 'oidc')];
    const defaults = Object.fromEntries(all.map((d) => [d.key, [d.category, d.default]]));
    assert.deepEqual(defaults, {
      SOCIAL_AUTH_ORGANIZATION_MAP: ['authentication', null],
      SOCIAL_AUTH_TEAM_MAP: ['authentication', null],
      AUTHENTICATION_MAPS: ['authentication', []],
      AUTH_CLAIMS_RETENTION_DAYS: ['authentication', 90],
      SOCIAL_AUTH_SAML_ORGANIZATION_MAP: ['saml', null],
      SOCIAL_AUTH_SAML_TEAM_MAP: ['saml', null],
      SOCIAL_AUTH_OIDC_ORGANIZATION_MAP: ['oidc', null],
      SOCIAL_AUTH_OIDC_TEAM_MAP: ['oidc', null],
    });
    const retention = mapSettingDefinitions(SOURCES).find((d) => d.key === 'AUTH_CLAIMS_RETENTION_DAYS')!;
    assert.deepEqual(errors(retention.schema, 3651), { KEY: ['Ensure this value is less than or equal to 3650.'] });
    assert.deepEqual(
      ldapMapSettingDefinitions('AUTH_LDAP_1_', 'ldap', isDn).map((d) => [d.key, d.category, d.default]),
      [
        ['AUTH_LDAP_1_ORGANIZATION_MAP', 'ldap', {}],
        ['AUTH_LDAP_1_TEAM_MAP', 'ldap', {}],
      ],
    );
  });
});

describe('AUTHENTICATION_MAPS (SPEC §21)', () => {
  const example = [
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
  ];

  it("takes SPEC's example and fills in the defaults", () => {
    const rules = validateValue(authenticationMapsSchema(SOURCES), example, 'AUTHENTICATION_MAPS');
    assert.deepEqual(rules[0], { ...example[0], enabled: true, revoke: false });
    assert.deepEqual(rules[2], { ...example[2], enabled: true, role: 'member' });
  });

  const refused = (rules: unknown) => errors(authenticationMapsSchema(SOURCES), rules, 'AUTHENTICATION_MAPS');
  const rule = (over: Record<string, unknown>) => ({ name: 'r', map_type: 'is_superuser', triggers: { always: {} }, ...over });

  it('names the path of each mistake', () => {
    assert.deepEqual(refused([rule({}), rule({ name: 'x', triggers: { groups: { has_or: [] } } })]), {
      AUTHENTICATION_MAPS: ['AUTHENTICATION_MAPS[1].triggers.groups.has_or: Ensure this field has at least 1 elements.'],
    });
    assert.deepEqual(refused([rule({ colour: 'red' })]), { AUTHENTICATION_MAPS: ['AUTHENTICATION_MAPS[0].colour: Invalid field.'] });
    assert.deepEqual(refused([rule({ map_type: 'team', organization: 'Ops' })]), { AUTHENTICATION_MAPS: ['AUTHENTICATION_MAPS[0].team: This field is required.'] });
    assert.deepEqual(refused([rule({ organization: 'Ops' })]), { AUTHENTICATION_MAPS: ['AUTHENTICATION_MAPS[0].organization: Not used by a rule of map_type "is_superuser".'] });
    assert.deepEqual(refused([rule({ map_type: 'team', organization: 'O', team: 'T', role: 'auditor' })]), {
      AUTHENTICATION_MAPS: ['AUTHENTICATION_MAPS[0].role: "auditor" is not a role of a team rule (member, admin).'],
    });
    assert.deepEqual(refused([{ name: 'r', map_type: 'allow' }]), { AUTHENTICATION_MAPS: ['AUTHENTICATION_MAPS[0].triggers: This field is required.'] });
    assert.deepEqual(refused([rule({ triggers: { attributes: { 'urn:oid:1': { matches: '(a' } } } })]), {
      AUTHENTICATION_MAPS: ['AUTHENTICATION_MAPS[0].triggers.attributes["urn:oid:1"].matches: Invalid regular expression (RE2 syntax): missing closing ): `(a`.'],
    });
  });

  it('refuses revoke on an allow rule, repeated names, a bad source and a bad trigger', () => {
    assert.match(JSON.stringify(refused([rule({ map_type: 'allow', revoke: true })])), /AUTHENTICATION_MAPS\[0\]\.revoke: An allow rule always decides/);
    assert.deepEqual(refused([rule({}), rule({})]), { AUTHENTICATION_MAPS: ['AUTHENTICATION_MAPS[1].name: Another rule of the list has this name: names are unique.'] });
    assert.match(JSON.stringify(refused([rule({ sources: ['ldap:6'] })])), /AUTHENTICATION_MAPS\[0\]\.sources\[0\]: \\"ldap:6\\" is not a source/);
    assert.match(JSON.stringify(refused([rule({ sources: [] })])), /sources: Ensure this field has at least 1 elements/);
    assert.match(JSON.stringify(refused([rule({ triggers: { always: {}, groups: { has_or: ['a'] } } })])), /triggers\.always: always stands alone/);
    assert.match(JSON.stringify(refused([rule({ triggers: {} })])), /triggers: Give one of always, never/);
    assert.match(JSON.stringify(refused([rule({ triggers: { attributes: { mail: { equals: 'a', contains: 'b' } } } })])), /attributes\.mail: One test per attribute/);
    assert.match(JSON.stringify(refused([rule({ triggers: { attributes: { join_condition: 'and' } } })])), /attributes: Give at least one attribute/);
    assert.match(JSON.stringify(refused([rule({ triggers: { never: { x: 1 } } })])), /triggers\.never\.x: Invalid field/);
    for (const source of ['ldap', 'ldap:default', 'ldap:5', 'saml', 'saml:okta', 'oidc', 'oidc:entra', 'radius']) {
      validateValue(authenticationMapsSchema(SOURCES), [rule({ sources: [source] })], 'AUTHENTICATION_MAPS');
    }
  });

  it('holds at most 500 rules and 1 MiB of JSON', () => {
    const many = Array.from({ length: 501 }, (_, i) => rule({ name: `r${i}` }));
    assert.deepEqual(refused(many), { AUTHENTICATION_MAPS: ['Ensure this field has no more than 500 elements.'] });
    const groups = { has_or: Array.from({ length: 1000 }, (_, i) => `cn=${i},${'x'.repeat(1000)}`) };
    const large = [rule({ triggers: { groups } }), rule({ name: 'r2', triggers: { groups } })];
    assert.match(JSON.stringify(refused(large)), /bytes of JSON: at most 1048576/);
  });

  it('takes a number or boolean operand as its JSON text', () => {
    const [read] = validateValue(authenticationMapsSchema(SOURCES), [rule({ triggers: { attributes: { uid: { equals: 1000 }, staff: { in: [true] } } } })], 'AUTHENTICATION_MAPS');
    assert.deepEqual(read.triggers.attributes, { uid: { equals: '1000' }, staff: { in: ['true'] } });
  });
});
