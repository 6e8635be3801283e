import type { Decision, Flag } from '../map-contract';
import type { OrganizationMap, TeamMap } from '../map-settings';
import { mapItems, MapValue } from '../map-values';
import { AwxPart, GroupMembership } from './awx-part';
import { MapReading, organizationMapPart, teamMapPart, unmatched, wholeValue } from './map-entries';

/** The LDAP maps' M, AWX's `_update_m2m_from_groups`: groups the settings name, the user in one of them. */
export function readGroupValue(value: MapValue | undefined, remove: boolean, member: GroupMembership): MapReading {
  const whole = wholeValue(value, remove);
  if (whole) return whole;
  const items = mapItems(value!);
  const group = items.find((item) => member(item));
  if (group !== undefined) return { verdict: 'grant', why: `a member of ${group}` };
  return unmatched(remove, `a member of none of its ${items.length} group${items.length === 1 ? '' : 's'}`);
}

/**
 * AWX's chained defaults (SPEC §21): `remove_admins` true, a missing `remove_auditors` what `remove_admins`
 * is, a missing `remove_users` what `remove_auditors` is, so a configuration moved from AWX removes no more.
 */
export function groupRemoves(entry: OrganizationMap[string]) {
  const remove_admins = entry.remove_admins ?? true;
  const remove_auditors = entry.remove_auditors ?? remove_admins;
  const remove_users = entry.remove_users ?? remove_auditors;
  return { remove_admins, remove_auditors, remove_users };
}

/** `AUTH_LDAP_[n_]ORGANIZATION_MAP` (`setting` is the whole key). */
export function groupOrganizationMapPart(setting: string, map: OrganizationMap | null, member: GroupMembership): AwxPart {
  return organizationMapPart(setting, map, (value, remove) => readGroupValue(value, remove, member), groupRemoves);
}

/** `AUTH_LDAP_[n_]TEAM_MAP`. */
export function groupTeamMapPart(setting: string, map: TeamMap | null, member: GroupMembership): AwxPart {
  return teamMapPart(setting, map, (value, remove) => readGroupValue(value, remove, member));
}

/** `AUTH_LDAP_[n_]USER_FLAGS_BY_GROUP`: a flag listed is set by membership of one of its groups, cleared otherwise. */
export function groupFlagsPart(setting: string, flags: Partial<Record<Flag, string[]>>, member: GroupMembership): AwxPart {
  const part: AwxPart = { steps: [], flags: {} };
  for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
    const groups = flags[flag];
    if (!groups) continue;
    const path = `${setting}.${flag}`;
    const by = groups.find((group) => member(group));
    const step =
      by !== undefined ? `${path}: a member of ${by}: grants ${flag}.` : `${path}: a member of none of ${groups.length ? groups.join('; ') : '(no group)'}: revokes ${flag}.`;
    const decision: Decision = { verdict: by !== undefined ? 'grant' : 'revoke', decidedBy: path, step };
    part.flags![flag] = decision;
    part.steps.push(step);
  }
  return part;
}

/** A method's gates: `REQUIRE_GROUP` (outside it: refused), then `DENY_GROUP` (inside it: refused). Keys are the whole setting names. */
export function groupGatesPart(
  gates: { requireKey: string; require: string | null; denyKey: string; deny: string | null },
  member: GroupMembership,
): AwxPart {
  const part: AwxPart = { steps: [], refusedBy: null };
  if (gates.require) {
    const inside = member(gates.require);
    part.steps.push(`${gates.requireKey}: ${inside ? 'a member' : 'not a member'} of ${gates.require}${inside ? '' : ': refused'}.`);
    if (!inside) return { ...part, refusedBy: gates.requireKey };
  }
  if (gates.deny) {
    const inside = member(gates.deny);
    part.steps.push(`${gates.denyKey}: ${inside ? 'a member' : 'not a member'} of ${gates.deny}${inside ? ': refused' : ''}.`);
    if (inside) return { ...part, refusedBy: gates.denyKey };
  }
  return part;
}
