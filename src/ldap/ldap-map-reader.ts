import type { MapRule } from '../maps/authentication-maps';
import { combineParts, membershipIn } from '../maps/dialects/awx-part';
import { groupFlagsPart, groupGatesPart, groupOrganizationMapPart, groupTeamMapPart } from '../maps/dialects/group-maps';
import type { Claims } from '../maps/map-contract';
import type { MapSourceReader, SettingsView } from '../maps/map-sources';
import type { OrganizationMap, TeamMap } from '../maps/map-settings';
import { mapItems, MapValue } from '../maps/map-values';
import { isDn, normalizeDn } from './ldap-names';
import { DIRECTORY_NAMES, DirectoryName, settingPrefix } from './ldap-settings';

const FAMILY = 'ldap';

/** The keys a login through directory `name` reads (SPEC §21): its gates, flags and maps, no other directory's. */
function directoryKeys(name: DirectoryName): string[] {
  const prefix = settingPrefix(name);
  return ['REQUIRE_GROUP', 'DENY_GROUP', 'USER_FLAGS_BY_GROUP', 'ORGANIZATION_MAP', 'TEAM_MAP'].map((key) => prefix + key);
}

/**
 * Normal forms of the DNs the maps compared lately: parsing a DN is the bulk of a dry run's time over a
 * thousand stored logins (profiled: parseDn 26 % of its samples), and the same few group DNs recur. Bounded.
 */
const normalForms = new Map<string, string | null>();
const NORMAL_FORMS_MAX = 10_000;

function normalForm(dn: string): string | null {
  let found = normalForms.get(dn);
  if (found === undefined) {
    try {
      found = normalizeDn(dn);
    } catch {
      found = null;
    }
    if (normalForms.size >= NORMAL_FORMS_MAX) normalForms.clear();
    normalForms.set(dn, found);
  }
  return found;
}

/** DNs compare as §14 compares them; a value that is no DN compares as text. */
export function sameDn(a: string, b: string): boolean {
  if (a === b) return true;
  const x = normalForm(a);
  return x !== null && x === normalForm(b);
}

/**
 * How a login through an LDAP directory reads AWX's settings (SPEC §21, AWX's `_update_m2m_from_groups`):
 * the directory's REQUIRE_GROUP and DENY_GROUP, USER_FLAGS_BY_GROUP, ORGANIZATION_MAP and TEAM_MAP, on the
 * groups the login found. Its maps make every organization and team they name.
 */
export const ldapMapReader: MapSourceReader = {
  family: FAMILY,
  accepts: (instance) => (DIRECTORY_NAMES as readonly (string | null)[]).includes(instance),
  instances: 'ldap:default, ldap:1 … ldap:5',
  keys: (instance) => (instance === null ? DIRECTORY_NAMES.flatMap(directoryKeys) : directoryKeys(instance as DirectoryName)),
  awxVerdicts(instance: string | null, claims: Claims, get: SettingsView) {
    const prefix = settingPrefix(instance as DirectoryName);
    const member = membershipIn(claims.groups, sameDn);
    return combineParts(
      [
        groupGatesPart(
          { requireKey: `${prefix}REQUIRE_GROUP`, require: get(`${prefix}REQUIRE_GROUP`) as string | null, denyKey: `${prefix}DENY_GROUP`, deny: get(`${prefix}DENY_GROUP`) as string | null },
          member,
        ),
        groupFlagsPart(`${prefix}USER_FLAGS_BY_GROUP`, (get(`${prefix}USER_FLAGS_BY_GROUP`) ?? {}) as Record<string, string[]>, member),
        groupOrganizationMapPart(`${prefix}ORGANIZATION_MAP`, get(`${prefix}ORGANIZATION_MAP`) as OrganizationMap | null, member),
        groupTeamMapPart(`${prefix}TEAM_MAP`, get(`${prefix}TEAM_MAP`) as TeamMap | null, member),
      ],
      true,
    );
  },
  sameGroup: sameDn,
  sameAttribute: (a, b) => attributeType(a) === attributeType(b),
};

/**
 * The group DNs a login through directory `name` must know the user's membership of (SPEC §21): those its
 * maps and flags name, and those of the AUTHENTICATION_MAPS rules that read it. A group outside GROUP_SEARCH is
 * asked of the group entry (as §14 asks REQUIRE_GROUP), so the login's groups hold every answer the maps need.
 */
export function ldapNamedGroups(name: DirectoryName, get: SettingsView): string[] {
  const prefix = settingPrefix(name);
  const named: string[] = [];
  const add = (value: MapValue | undefined) => {
    if (typeof value === 'string' || Array.isArray(value)) named.push(...mapItems(value));
  };
  for (const entry of Object.values((get(`${prefix}ORGANIZATION_MAP`) ?? {}) as OrganizationMap)) {
    add(entry.admins);
    add(entry.auditors);
    add(entry.users);
  }
  for (const entry of Object.values((get(`${prefix}TEAM_MAP`) ?? {}) as TeamMap)) add(entry.users);
  for (const dns of Object.values((get(`${prefix}USER_FLAGS_BY_GROUP`) ?? {}) as Record<string, string[]>)) named.push(...dns);
  for (const gate of ['REQUIRE_GROUP', 'DENY_GROUP']) add(get(`${prefix}${gate}`) as string | null);
  for (const rule of (get('AUTHENTICATION_MAPS') ?? []) as MapRule[]) {
    if (rule.enabled === false || !readsDirectory(rule, name)) continue;
    const groups = rule.triggers.groups;
    if (groups) named.push(...(groups.has_or ?? []), ...(groups.has_and ?? []), ...(groups.has_not ?? []));
  }
  return [...new Set(named.filter(isDn))];
}

/**
 * The entry's attributes a login through directory `name` keeps as claims (SPEC §21): those USER_ATTR_MAP maps
 * and those an AUTHENTICATION_MAPS rule that reads this directory names, compared without case and without
 * their options (`userPassword;x-old` is `userPassword`); never the whole entry less a list.
 */
export function ldapNamedAttributes(name: DirectoryName, get: SettingsView, attrMap: Record<string, string | undefined>): Set<string> {
  const named = new Set<string>(Object.values(attrMap).filter((a): a is string => !!a).map(attributeType));
  for (const rule of (get('AUTHENTICATION_MAPS') ?? []) as MapRule[]) {
    if (rule.enabled === false || !readsDirectory(rule, name)) continue;
    for (const attribute of Object.keys(rule.triggers.attributes ?? {})) if (attribute !== 'join_condition') named.add(attributeType(attribute));
  }
  return named;
}

/** An attribute description's type, as LDAP compares it: without case and options (RFC 4512 §2.5). */
export function attributeType(description: string): string {
  const semicolon = description.indexOf(';');
  return (semicolon < 0 ? description : description.slice(0, semicolon)).toLowerCase();
}

function readsDirectory(rule: MapRule, name: DirectoryName): boolean {
  return !rule.sources || rule.sources.some((source) => source === FAMILY || source === `${FAMILY}:${name}`);
}
