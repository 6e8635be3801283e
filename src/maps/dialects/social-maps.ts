import type { OrganizationMap, TeamMap } from '../map-settings';
import { compilePattern, mapItems, mapPattern, matchesFromStart, MapValue } from '../map-values';
import type { AwxPart } from './awx-part';
import { MapReading, organizationMapPart, teamMapPart, unmatched, wholeValue } from './map-entries';

/**
 * The social maps' M (SAML, OIDC and the `authentication` ones), AWX's `_update_m2m_from_expression`.
 * `username` is the user's here; `email` the one the source sent at this login (AWX: the stored one, #15336).
 */
export interface Subject {
  username: string;
  email: string | null;
}

/** Does one item name this subject: its username or email exactly, or `/pattern/flags` from the first character on? */
function itemMatches(item: string, subject: Subject): boolean {
  const pattern = mapPattern(item);
  const candidates = subject.email === null ? [subject.username] : [subject.username, subject.email];
  if (!pattern) return candidates.includes(item);
  const regex = compilePattern(pattern);
  return candidates.some((value) => matchesFromStart(regex, value));
}

export function readSocialValue(value: MapValue | undefined, remove: boolean, subject: Subject): MapReading {
  const whole = wholeValue(value, remove);
  if (whole) return whole;
  const items = mapItems(value!);
  const index = items.findIndex((item) => itemMatches(item, subject));
  if (index >= 0) return { verdict: 'grant', why: `${items.length > 1 ? `its item ${index}` : 'it'} matches the username or email` };
  return unmatched(remove, 'no item matches the username or email');
}

/** The social remove flags: each defaults to true. */
const socialRemoves = (entry: OrganizationMap[string]) => ({
  remove_admins: entry.remove_admins ?? true,
  remove_auditors: entry.remove_auditors ?? true,
  remove_users: entry.remove_users ?? true,
});

/** An organization map of the social flavour (`SOCIAL_AUTH_ORGANIZATION_MAP`, `SOCIAL_AUTH_SAML_ORGANIZATION_MAP`…). */
export function socialOrganizationMapPart(setting: string, map: OrganizationMap | null, subject: Subject): AwxPart {
  return organizationMapPart(setting, map, (value, remove) => readSocialValue(value, remove, subject), socialRemoves);
}

export function socialTeamMapPart(setting: string, map: TeamMap | null, subject: Subject): AwxPart {
  return teamMapPart(setting, map, (value, remove) => readSocialValue(value, remove, subject));
}
