import { z } from 'zod';
import { integer, reportErrors } from '../common/validation';
import type { SettingDefinition } from '../settings/setting-definition';
import { authenticationMapsSchema, RuleSources } from './authentication-maps';
import { drfBoolean, ldapMapValue, MapValue, removeFlag, socialMapValue } from './map-values';

/**
 * AWX 23's map settings (SPEC §21), with AWX's keys, shapes and defaults. Their errors are AWX's: nested at
 * the place they are about (`{"KEY": {"Ops": {"colour": ["Invalid field."]}}}`).
 */

/** One entry of an organization map; an M left out decides nothing (stored as left out). */
export interface OrganizationMapEntry {
  admins?: MapValue;
  auditors?: MapValue;
  users?: MapValue;
  remove_admins?: boolean;
  remove_auditors?: boolean;
  remove_users?: boolean;
  /** Social maps only: the organization acted on instead of the key. */
  organization_alias?: string | null;
}
export type OrganizationMap = Record<string, OrganizationMapEntry>;

export interface TeamMapEntry {
  organization: string;
  users?: MapValue;
  remove?: boolean;
}
export type TeamMap = Record<string, TeamMapEntry>;

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

/** Organization and team names: SPEC §21's 1–512 characters. */
const NAME_MAX = 512;
const name = z.string().trim().min(1, 'This field may not be blank.').max(NAME_MAX);
const nameKey = z.string().min(1, 'An organization or team name may not be blank.').max(NAME_MAX, `A name has at most ${NAME_MAX} characters.`);
/** A name that may be left null (`organization_alias`, `team_alias`): `""` reads as null, as AWX's forms send it. */
const nameOrNull = z.preprocess((value) => (value === '' ? null : value), name.nullable());
/** An attribute name, or null: none. */
const attributeOrNull = z.preprocess((value) => (value === '' ? null : value), z.string().trim().max(1024).nullable());
const flag = removeFlag.optional();

/** `{}` by default; the social maps take null too (null: the `authentication` map applies, SPEC §21). */
function mapOf<T extends z.ZodType>(entry: T, nullable: boolean) {
  const map = z.record(nameKey, entry);
  return reportErrors(nullable ? map.nullable() : map, 'nested');
}

function organizationEntry(m: z.ZodType<MapValue>, social: boolean) {
  const shape = {
    admins: m.optional(),
    auditors: m.optional(),
    users: m.optional(),
    remove_admins: flag,
    remove_auditors: flag,
    remove_users: flag,
  };
  return social ? z.strictObject({ ...shape, organization_alias: nameOrNull.optional() }) : z.strictObject(shape);
}

function teamEntry(m: z.ZodType<MapValue>) {
  return z.strictObject({ organization: name, users: m.optional(), remove: flag });
}

export const socialOrganizationMapSchema = mapOf(organizationEntry(socialMapValue, true), true);
export const socialTeamMapSchema = mapOf(teamEntry(socialMapValue), true);

/** The LDAP flavour: M are DNs, checked by the LDAP module's DN check (`isDn` of §14). */
export function ldapOrganizationMapSchema(isDn: (value: string) => boolean) {
  return mapOf(organizationEntry(ldapMapValue(isDn), false), false);
}
export function ldapTeamMapSchema(isDn: (value: string) => boolean) {
  return mapOf(teamEntry(ldapMapValue(isDn)), false);
}

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
    team_org_map: z.array(z.strictObject({ team: name, team_alias: nameOrNull.optional(), organization: name })).max(1000).optional(),
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

const AUTHENTICATION = 'authentication';

/** The keys of the `authentication` category; AUTHENTICATION_MAPS' sources are those `known` names. */
export function mapSettingDefinitions(known: RuleSources): SettingDefinition[] {
  return [
    { key: 'SOCIAL_AUTH_ORGANIZATION_MAP', category: AUTHENTICATION, default: null, schema: socialOrganizationMapSchema },
    { key: 'SOCIAL_AUTH_TEAM_MAP', category: AUTHENTICATION, default: null, schema: socialTeamMapSchema },
    { key: 'AUTHENTICATION_MAPS', category: AUTHENTICATION, default: [], schema: authenticationMapsSchema(known) },
    // SPEC §21: how long a login's stored claims are kept for the dry run (0: none kept).
    { key: 'AUTH_CLAIMS_RETENTION_DAYS', category: AUTHENTICATION, default: 90, schema: integer(0, 3650) },
  ] as SettingDefinition[];
}

/** A social method's own organization and team maps (`prefix`: `SOCIAL_AUTH_SAML_`…), null by default, in its category. */
export function socialMapSettingDefinitions(prefix: string, category: string): SettingDefinition[] {
  return [
    { key: `${prefix}ORGANIZATION_MAP`, category, default: null, schema: socialOrganizationMapSchema },
    { key: `${prefix}TEAM_MAP`, category, default: null, schema: socialTeamMapSchema },
  ] as SettingDefinition[];
}

/** SAML's attribute maps (SPEC §21), in the category its module gives. */
export function samlAttributeMapSettingDefinitions(category: string): SettingDefinition[] {
  return [
    { key: 'SOCIAL_AUTH_SAML_ORGANIZATION_ATTR', category, default: {}, schema: samlOrganizationAttrSchema },
    { key: 'SOCIAL_AUTH_SAML_TEAM_ATTR', category, default: {}, schema: samlTeamAttrSchema },
    { key: 'SAML_AUTO_CREATE_OBJECTS', category, default: true, schema: z.boolean() },
  ] as SettingDefinition[];
}

/** One directory's maps (`prefix`: `AUTH_LDAP_`, `AUTH_LDAP_1_`…), `{}` by default, DNs checked by `isDn`. */
export function ldapMapSettingDefinitions(prefix: string, category: string, isDn: (value: string) => boolean): SettingDefinition[] {
  return [
    { key: `${prefix}ORGANIZATION_MAP`, category, default: {}, schema: ldapOrganizationMapSchema(isDn) },
    { key: `${prefix}TEAM_MAP`, category, default: {}, schema: ldapTeamMapSchema(isDn) },
  ] as SettingDefinition[];
}
