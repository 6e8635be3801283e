import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateValue } from '../../common/validation';
import { samlFlagsPart, samlOrganizationAttrPart, samlTeamAttrPart } from './saml-attribute-maps';
import { samlAttributeMapSettingDefinitions, samlOrganizationAttrSchema, samlTeamAttrSchema, samlUserFlagsSchema } from './saml-attribute-settings';
import { fieldErrorsOf } from '../../../test/support/field-errors';

const verdicts = (part: { organizations?: { organization: string; role: string; verdict: string; decidedBy: string | null }[] }) =>
  (part.organizations ?? []).map((o) => `${o.organization}/${o.role}: ${o.verdict} by ${o.decidedBy}`);

const errors = fieldErrorsOf;

describe("SAML's map settings (SPEC §21)", () => {
  it("refuses a key the shape does not name, and a missing required one, as AWX nests them", () => {
    assert.deepEqual(errors(samlTeamAttrSchema, { saml_attr: 'groups', team_org_map: [{ team: 'a', organization: 'b' }, { team: 'c', colour: 1 }] }), {
      KEY: { team_org_map: { '1': { colour: ['Invalid field.'], organization: ['This field is required.'] } } },
    });
    assert.deepEqual(errors(samlOrganizationAttrSchema, { saml_attr: 'orgs', remove: 'maybe' }), { KEY: { remove: ['Must be a valid boolean.'] } });
  });

  it('extends the SAML flags with their role and remove keys, keeping what §7 stored', () => {
    assert.deepEqual(validateValue(samlUserFlagsSchema, { is_superuser_attr: 'groups', is_superuser_value: 'admins' }, 'KEY'), { is_superuser_attr: 'groups', is_superuser_value: ['admins'] });
    assert.deepEqual(validateValue(samlUserFlagsSchema, { is_superuser_role: 'awx-admin', remove_superusers: 'false', remove_system_auditors: null, is_system_auditor_attr: '' }, 'KEY'), {
      is_superuser_role: ['awx-admin'],
      remove_superusers: false,
    });
    assert.deepEqual(errors(samlUserFlagsSchema, { is_admin_role: 'x' }), { KEY: { is_admin_role: ['Invalid field.'] } });
  });

  it('defines its keys in the category its module gives, with their defaults', () => {
    assert.deepEqual(
      samlAttributeMapSettingDefinitions('saml').map((d) => [d.key, d.category, d.default]),
      [
        ['SOCIAL_AUTH_SAML_ORGANIZATION_ATTR', 'saml', {}],
        ['SOCIAL_AUTH_SAML_TEAM_ATTR', 'saml', {}],
        ['SAML_AUTO_CREATE_OBJECTS', 'saml', true],
      ],
    );
  });
});

describe("SAML's attribute maps and flags", () => {
  it('grants the role in each organization the attribute names (aliased), and revokes every other with the flag', () => {
    const part = samlOrganizationAttrPart(
      { saml_attr: 'orgs', saml_admin_attr: 'admin_orgs', remove_admins: false },
      { Engineering: { organization_alias: 'Eng' } },
      { orgs: ['Engineering', 'Sales'], admin_orgs: ['Sales'] },
    );
    assert.deepEqual(verdicts(part), [
      'Eng/member: grant by SOCIAL_AUTH_SAML_ORGANIZATION_ATTR.saml_attr',
      'Sales/member: grant by SOCIAL_AUTH_SAML_ORGANIZATION_ATTR.saml_attr',
      'Sales/admin: grant by SOCIAL_AUTH_SAML_ORGANIZATION_ATTR.saml_admin_attr',
    ]);
    assert.deepEqual(part.revokeOthers, [{ kind: 'organization', role: 'member', except: [{ organization: 'Eng' }, { organization: 'Sales' }], decidedBy: 'SOCIAL_AUTH_SAML_ORGANIZATION_ATTR.remove' }]);
  });

  it('does nothing without the attribute key, whatever the remove flags (AWX 21.12 to 24: strips)', () => {
    assert.deepEqual(samlOrganizationAttrPart({ remove: true, remove_admins: true }, null, { orgs: ['A'] }), { steps: [], organizations: [], revokeOthers: [] });
    assert.deepEqual(samlTeamAttrPart({ remove: true, team_org_map: [{ team: 'a', organization: 'A' }] }, { teams: ['a'] }), { steps: [], teams: [], revokeOthers: [] });
  });

  it("grants the aliased team of an entry among the values, revokes that same team otherwise even with remove false", () => {
    const part = samlTeamAttrPart(
      { saml_attr: 'teams', remove: false, team_org_map: [{ team: 'blue', team_alias: 'Blue team', organization: 'A' }, { team: 'red', team_alias: 'Red team', organization: 'A' }] },
      { teams: ['blue'] },
    );
    assert.deepEqual(part.teams?.map((t) => `${t.organization}/${t.team}: ${t.verdict} by ${t.decidedBy}`), [
      'A/Blue team: grant by SOCIAL_AUTH_SAML_TEAM_ATTR.team_org_map[0]',
      'A/Red team: revoke by SOCIAL_AUTH_SAML_TEAM_ATTR.team_org_map[1]',
    ]);
    assert.deepEqual(part.revokeOthers, []);
    const removing = samlTeamAttrPart({ saml_attr: 'teams', team_org_map: [{ team: 'blue', organization: 'A' }] }, { teams: ['blue'] });
    assert.deepEqual(removing.revokeOthers, [{ kind: 'team', role: 'member', except: [{ organization: 'A', team: 'blue' }], decidedBy: 'SOCIAL_AUTH_SAML_TEAM_ATTR.remove' }]);
  });

  it("checks a flag as AWX's _check_flag: Role first, a present attribute instead, remove_* false keeps it", () => {
    const flag = (settings: Parameters<typeof samlFlagsPart>[0], attributes: Record<string, string[]>) => {
      const decision = samlFlagsPart(settings, attributes).flags?.is_superuser;
      return decision && `${decision.verdict} by ${decision.decidedBy}`;
    };
    const P = 'SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR';
    assert.equal(flag({ is_superuser_role: ['admin'] }, { Role: ['user', 'admin'] }), `grant by ${P}.is_superuser_role`);
    assert.equal(flag({ is_superuser_role: ['admin'] }, { Role: ['user'] }), `revoke by ${P}.is_superuser_role`);
    assert.equal(flag({ is_superuser_role: ['admin'], is_superuser_attr: 'su' }, { Role: ['admin'], su: ['no'] }), `grant by ${P}.is_superuser_attr`, 'a present attribute without values holds');
    assert.equal(flag({ is_superuser_role: ['admin'], is_superuser_attr: 'su', is_superuser_value: ['yes'] }, { Role: ['admin'], su: ['no'] }), `revoke by ${P}.is_superuser_attr`);
    assert.equal(flag({ is_superuser_role: ['admin'], is_superuser_attr: 'su', is_superuser_value: ['yes'] }, { Role: ['admin'] }), `grant by ${P}.is_superuser_role`, 'an absent attribute leaves the role to decide');
    assert.equal(flag({ is_superuser_attr: 'su' }, {}), `revoke by ${P}.is_superuser_attr`);
    assert.equal(flag({ is_superuser_role: ['admin'], remove_superusers: false }, { Role: [] }), 'none by null');
    assert.equal(flag({}, { Role: ['admin'] }), undefined, 'neither _role nor _attr: left as it is (AWX: cleared, #11831)');
  });
});
