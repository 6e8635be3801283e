import type { Decision, OrganizationRole, Verdict } from '../map-contract';
import type { OrganizationMap, TeamMap } from '../map-settings';
import type { MapValue } from '../map-values';
import { AwxPart, keyPath, ORGANIZATION_FIELDS, verdictWords } from './awx-part';

/** What one M says, and in words why (never a claim's value: only the settings' own items). */
export interface MapReading {
  verdict: Verdict;
  why: string;
}

/** How a dialect reads one M with its remove flag. */
export type MapReader = (value: MapValue | undefined, remove: boolean) => MapReading;

/** The remove flags of one organization-map entry, with the dialect's defaults filled in. */
export type RemoveDefaults = (entry: OrganizationMap[string]) => Record<'remove_admins' | 'remove_auditors' | 'remove_users', boolean>;

/**
 * The verdicts of an organization map: each entry's admins, auditors and users in the organization it
 * names (its `organization_alias` when the social flavour has one, else its key). Every organization named
 * is one the login makes (whether it is made is the method's: AwxVerdicts.namedObjects).
 */
export function organizationMapPart(setting: string, map: OrganizationMap | null, read: MapReader, removes: RemoveDefaults): AwxPart {
  const part: Required<Pick<AwxPart, 'steps' | 'organizations' | 'namedObjects'>> = { steps: [], organizations: [], namedObjects: [] };
  for (const [key, entry] of Object.entries(map ?? {})) {
    const organization = entry.organization_alias || key;
    part.namedObjects.push({ organization });
    const flags = removes(entry);
    for (const { field, role, remove } of ORGANIZATION_FIELDS) {
      const path = `${keyPath(setting, key)}.${field}`;
      const { verdict, why } = read(entry[field], flags[remove]);
      const decision: Decision = { verdict, decidedBy: verdict === 'none' ? null : path, step: `${path}: ${why}: ${verdictWords(verdict, roleWords(role, organization))}.` };
      part.steps.push(decision.step!);
      if (verdict !== 'none') part.organizations.push({ organization, role: role as OrganizationRole, ...decision });
    }
  }
  return part;
}

/** The verdicts of a team map: each entry's users, member of the team in its organization. */
export function teamMapPart(setting: string, map: TeamMap | null, read: MapReader): AwxPart {
  const part: Required<Pick<AwxPart, 'steps' | 'teams' | 'namedObjects'>> = { steps: [], teams: [], namedObjects: [] };
  for (const [team, entry] of Object.entries(map ?? {})) {
    part.namedObjects.push({ organization: entry.organization, team });
    const path = `${keyPath(setting, team)}.users`;
    const { verdict, why } = read(entry.users, entry.remove ?? true);
    const step = `${path}: ${why}: ${verdictWords(verdict, `member of team ${JSON.stringify(team)} in ${JSON.stringify(entry.organization)}`)}.`;
    part.steps.push(step);
    if (verdict !== 'none') part.teams.push({ organization: entry.organization, team, role: 'member', verdict, decidedBy: path, step });
  }
  return part;
}

export function roleWords(role: string, organization: string): string {
  return `${role} in ${JSON.stringify(organization)}`;
}

/** An M that is absent, null, `true`, `false` or `[]` reads the same in every dialect (AWX's two helpers). */
export function wholeValue(value: MapValue | undefined, remove: boolean): MapReading | null {
  if (value === undefined || value === null) return { verdict: 'none', why: 'not set' };
  if (value === true) return { verdict: 'grant', why: 'true' };
  if (value === false || (Array.isArray(value) && value.length === 0)) {
    return { verdict: remove ? 'revoke' : 'none', why: `${JSON.stringify(value)}${remove ? '' : ', and its remove flag is false'}` };
  }
  return null;
}

/** What an M whose items none matched says. */
export function unmatched(remove: boolean, what: string): MapReading {
  return { verdict: remove ? 'revoke' : 'none', why: `${what}${remove ? '' : ', and its remove flag is false'}` };
}
