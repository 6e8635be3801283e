import { z } from 'zod';
import { reportErrors } from '../../common/validation';
import { attributeOrNull, mapName, mapNameOrNull } from '../../maps/map-settings';
import { drfBoolean, removeFlag } from '../../maps/map-values';
import type { SettingDefinition } from '../../settings/setting-definition';

/**
 * SAML's own map settings (SPEC §21), with AWX's keys and shapes: its attribute maps and its flags. Read by
 * saml-attribute-maps.ts; the shapes every method's maps share are maps/map-settings.ts's.
 */

export interface SamlOrganizationAttr {
  saml_attr?: string | null;
  saml_admin_attr?: string | null;
  saml_auditor_attr?: string | null;
  remove?: boolean;
  remove_admins?: boolean;
  remove_auditors?: boolean;
}

export interface TeamOrganizationEntry {
  team: string;
  team_alias?: string | null;
  organization: string;
}
export interface SamlTeamAttr {
  saml_attr?: string | null;
  remove?: boolean;
  team_org_map?: TeamOrganizationEntry[];
}

/** §7's flags with AWX's other keys (SPEC §21); a key left out (or null, or `""`) is not stored. */
export interface SamlUserFlagsByAttr {
  is_superuser_attr?: string;
  is_superuser_value?: string[];
  is_superuser_role?: string[];
  remove_superusers?: boolean;
  is_system_auditor_attr?: string;
  is_system_auditor_value?: string[];
  is_system_auditor_role?: string[];
  remove_system_auditors?: boolean;
}

const flag = removeFlag.optional();

export const samlOrganizationAttrSchema = reportErrors(
  z.strictObject({
    saml_attr: attributeOrNull.optional(),
    saml_admin_attr: attributeOrNull.optional(),
    saml_auditor_attr: attributeOrNull.optional(),
    remove: flag,
    remove_admins: flag,
    remove_auditors: flag,
  }),
  'nested',
);

export const samlTeamAttrSchema = reportErrors(
  z.strictObject({
    saml_attr: attributeOrNull.optional(),
    remove: flag,
    team_org_map: z.array(z.strictObject({ team: mapName, team_alias: mapNameOrNull.optional(), organization: mapName })).max(1000).optional(),
  }),
  'nested',
);

/** Missing, null and `""` are all "not given", as AWX's forms send them (§7's flags, as they always were read). */
const absent = (value: unknown) => (value === null || value === '' ? undefined : value);
const attribute = z.preprocess(absent, z.string().max(1024).transform((value) => value.trim()).optional());
/** AWX accepts one value or a list of values. */
const stringList = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z.custom<string[]>((list) => Array.isArray(list) && list.every((item) => typeof item === 'string'), 'Expected a list of strings.'),
);
/** `remove_superusers` and `remove_system_auditors`: DRF booleans, null allowed (AWX: allow_null), then left out. */
const removeOrNull = z.preprocess((value) => (drfBoolean(value) === null ? undefined : value), removeFlag.optional());

/**
 * SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR with AWX's `_role` and `remove_` keys (SPEC §21). It replaces the §7
 * schema in sso-settings.ts; what §7 stored reads the same (keys left out or empty are not stored).
 */
export const samlUserFlagsSchema = reportErrors(
  z
    .strictObject({
      is_superuser_attr: attribute,
      is_superuser_value: stringList.optional(),
      is_superuser_role: stringList.optional(),
      remove_superusers: removeOrNull,
      is_system_auditor_attr: attribute,
      is_system_auditor_value: stringList.optional(),
      is_system_auditor_role: stringList.optional(),
      remove_system_auditors: removeOrNull,
    })
    .transform((flags): SamlUserFlagsByAttr => Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined && value !== ''))),
  'nested',
);

/** SAML's attribute maps (SPEC §21), in the category its module gives. */
export function samlAttributeMapSettingDefinitions(category: string): SettingDefinition[] {
  return [
    { key: 'SOCIAL_AUTH_SAML_ORGANIZATION_ATTR', category, default: {}, schema: samlOrganizationAttrSchema },
    { key: 'SOCIAL_AUTH_SAML_TEAM_ATTR', category, default: {}, schema: samlTeamAttrSchema },
    { key: 'SAML_AUTO_CREATE_OBJECTS', category, default: true, schema: z.boolean() },
  ] as SettingDefinition[];
}

