import { z } from 'zod';
import { integer, reportErrors } from '../common/validation';
import type { SettingDefinition } from '../settings/setting-definition';
import { authenticationMapsSchema, RuleSources } from './authentication-maps';
import { ldapMapValue, MapValue, removeFlag, socialMapValue } from './map-values';

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

/** Organization and team names: SPEC §21's 1–512 characters. */
const NAME_MAX = 512;
export const mapName = z.string().trim().min(1, 'This field may not be blank.').max(NAME_MAX);
const nameKey = z.string().min(1, 'An organization or team name may not be blank.').max(NAME_MAX, `A name has at most ${NAME_MAX} characters.`);
/** A name that may be left null (`organization_alias`, `team_alias`): `""` reads as null, as AWX's forms send it. */
export const mapNameOrNull = z.preprocess((value) => (value === '' ? null : value), mapName.nullable());
/** An attribute name, or null: none. */
export const attributeOrNull = z.preprocess((value) => (value === '' ? null : value), z.string().trim().max(1024).nullable());
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
  return social ? z.strictObject({ ...shape, organization_alias: mapNameOrNull.optional() }) : z.strictObject(shape);
}

function teamEntry(m: z.ZodType<MapValue>) {
  return z.strictObject({ organization: mapName, users: m.optional(), remove: flag });
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

/** One directory's maps (`prefix`: `AUTH_LDAP_`, `AUTH_LDAP_1_`…), `{}` by default, DNs checked by `isDn`. */
export function ldapMapSettingDefinitions(prefix: string, category: string, isDn: (value: string) => boolean): SettingDefinition[] {
  return [
    { key: `${prefix}ORGANIZATION_MAP`, category, default: {}, schema: ldapOrganizationMapSchema(isDn) },
    { key: `${prefix}TEAM_MAP`, category, default: {}, schema: ldapTeamMapSchema(isDn) },
  ] as SettingDefinition[];
}
