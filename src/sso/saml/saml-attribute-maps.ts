import type { Decision, Flag, OrganizationRole } from '../../maps/map-contract';
import type { OrganizationMap } from '../../maps/map-settings';
import type { SamlOrganizationAttr, SamlTeamAttr, SamlUserFlagsByAttr } from './saml-attribute-settings';
import type { AwxPart } from '../../maps/dialects/awx-part';

const ORGANIZATION_ATTR = 'SOCIAL_AUTH_SAML_ORGANIZATION_ATTR';
const TEAM_ATTR = 'SOCIAL_AUTH_SAML_TEAM_ATTR';
const USER_FLAGS = 'SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR';

const ROLES = [
  { role: 'member', attr: 'saml_attr', remove: 'remove' },
  { role: 'admin', attr: 'saml_admin_attr', remove: 'remove_admins' },
  { role: 'auditor', attr: 'saml_auditor_attr', remove: 'remove_auditors' },
] as const;

/**
 * SOCIAL_AUTH_SAML_ORGANIZATION_ATTR: while a role's attribute key is set, each value of that assertion
 * attribute names an organization (the `organization_alias` of the organization-map entry keyed by the
 * value, else the value) and grants the role there; while the role's remove flag is true (default) every
 * other organization of the database revokes it. (AWX 21.12 to 24: the flags act with no key set; we: only
 * with it, SPEC §21.) `organizationMap` is the map the login resolved to.
 */
export function samlOrganizationAttrPart(settings: SamlOrganizationAttr, organizationMap: OrganizationMap | null, attributes: Record<string, string[]>): AwxPart {
  const part: Required<Pick<AwxPart, 'steps' | 'organizations' | 'revokeOthers'>> = { steps: [], organizations: [], revokeOthers: [] };
  for (const { role, attr, remove } of ROLES) {
    const name = settings[attr];
    if (!name) continue;
    const path = `${ORGANIZATION_ATTR}.${attr}`;
    const organizations = [...new Set((attributes[name] ?? []).map((value) => organizationMap?.[value]?.organization_alias || value))];
    part.steps.push(`${path}: the attribute ${JSON.stringify(name)} names ${organizations.length} organization${organizations.length === 1 ? '' : 's'}: grants ${role} in each.`);
    for (const organization of organizations) part.organizations.push({ organization, role: role as OrganizationRole, verdict: 'grant', decidedBy: path });
    if (settings[remove] ?? true) {
      const removePath = `${ORGANIZATION_ATTR}.${remove}`;
      part.steps.push(`${removePath}: true: revokes ${role} in every other organization.`);
      part.revokeOthers.push({ kind: 'organization', role: role as OrganizationRole, except: organizations.map((organization) => ({ organization })), decidedBy: removePath });
    }
  }
  return part;
}

/**
 * SOCIAL_AUTH_SAML_TEAM_ATTR, while `saml_attr` is set: a `team_org_map` entry whose `team` is among the
 * attribute's values grants membership of `team_alias` (else `team`) in `organization`; one whose `team` is
 * not revokes that same membership, even with `remove` false (AWX: the un-aliased team; we: the one the entry
 * grants); with `remove` true (default) every other team of the database revokes membership.
 */
export function samlTeamAttrPart(settings: SamlTeamAttr, attributes: Record<string, string[]>): AwxPart {
  const part: Required<Pick<AwxPart, 'steps' | 'teams' | 'revokeOthers'>> = { steps: [], teams: [], revokeOthers: [] };
  if (!settings.saml_attr) return part;
  const values = new Set(attributes[settings.saml_attr] ?? []);
  const granted: { organization: string; team: string }[] = [];
  (settings.team_org_map ?? []).forEach((entry, index) => {
    const path = `${TEAM_ATTR}.team_org_map[${index}]`;
    const team = entry.team_alias || entry.team;
    const inside = values.has(entry.team);
    const step = `${path}: ${JSON.stringify(entry.team)} is ${inside ? '' : 'not '}among the values of ${JSON.stringify(settings.saml_attr)}: ${inside ? 'grants' : 'revokes'} member of team ${JSON.stringify(team)} in ${JSON.stringify(entry.organization)}.`;
    part.steps.push(step);
    part.teams.push({ organization: entry.organization, team, role: 'member', verdict: inside ? 'grant' : 'revoke', decidedBy: path, step });
    if (inside) granted.push({ organization: entry.organization, team });
  });
  if (settings.remove ?? true) {
    const removePath = `${TEAM_ATTR}.remove`;
    part.steps.push(`${removePath}: true: revokes member of every other team.`);
    part.revokeOthers.push({ kind: 'team', role: 'member', except: granted, decidedBy: removePath });
  }
  return part;
}

const REMOVE_KEY: Record<Flag, 'remove_superusers' | 'remove_system_auditors'> = { is_superuser: 'remove_superusers', is_system_auditor: 'remove_system_auditors' };

/**
 * SAML flags, AWX's `_check_flag`: `is_<flag>_role` holds when one of its values is among those of the
 * assertion attribute `Role`; a non-empty `is_<flag>_attr` in the assertion decides instead (with
 * `is_<flag>_value`, one of those among the attribute's; without, true). With `remove_<flag>s` false a held
 * flag is never cleared. A flag with neither `_role` nor `_attr` is left as it is (AWX: cleared, #11831).
 */
export function samlFlagsPart(settings: SamlUserFlagsByAttr, attributes: Record<string, string[]>): AwxPart {
  const part: AwxPart = { steps: [], flags: {} };
  for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
    const roles = settings[`${flag}_role`] ?? [];
    const attr = settings[`${flag}_attr`];
    if (!roles.length && !attr) continue;
    let holds = false;
    let path = `${USER_FLAGS}.${flag}_role`;
    let why = '';
    if (roles.length) {
      holds = roles.some((role) => (attributes.Role ?? []).includes(role));
      why = holds ? 'one of its roles is among the values of Role' : 'none of its roles is among the values of Role';
    }
    if (attr && (!roles.length || (attributes[attr] ?? []).length)) {
      path = `${USER_FLAGS}.${flag}_attr`;
      const present = attributes[attr] ?? [];
      const wanted = settings[`${flag}_value`] ?? [];
      holds = present.length > 0 && (!wanted.length || wanted.some((value) => present.includes(value)));
      why = !present.length ? `the assertion has no ${JSON.stringify(attr)}` : wanted.length ? `${holds ? 'one' : 'none'} of ${flag}_value is among the values of ${JSON.stringify(attr)}` : `the assertion has ${JSON.stringify(attr)}`;
    }
    let decision: Decision = { verdict: holds ? 'grant' : 'revoke', decidedBy: path };
    let words = `${path}: ${why}: ${holds ? 'grants' : 'revokes'} ${flag}.`;
    if (!holds && settings[REMOVE_KEY[flag]] === false) {
      decision = { verdict: 'none', decidedBy: null };
      words = `${path}: ${why}, but ${REMOVE_KEY[flag]} is false: ${flag} is left as it is.`;
    }
    part.flags![flag] = { ...decision, step: words };
    part.steps.push(words);
  }
  return part;
}
