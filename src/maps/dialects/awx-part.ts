import type { AwxVerdicts, Decision, Flag, OrganizationTarget, Path, TeamTarget } from '../map-contract';

/** What one AWX setting says at one login: a part of a method's AwxVerdicts (SPEC §21). */
export interface AwxPart {
  steps: string[];
  refusedBy?: Path | null;
  flags?: Partial<Record<Flag, Decision>>;
  organizations?: (OrganizationTarget & Decision)[];
  teams?: (TeamTarget & Decision)[];
  revokeOthers?: AwxVerdicts['revokeOthers'];
  namedObjects?: AwxVerdicts['namedObjects'];
}

/** Whether the user is in a group the settings name (LDAP: as §14 compares DNs, nested groups included). */
export type GroupMembership = (group: string) => boolean;

/** Membership among the groups a source sent, compared by `sameGroup` (default: exactly). */
export function membershipIn(groups: readonly string[], sameGroup: (a: string, b: string) => boolean = (a, b) => a === b): GroupMembership {
  return (group) => groups.some((held) => sameGroup(held, group));
}

/**
 * SPEC §21: where two AWX settings name one target, each says grant, revoke or nothing; a grant wins over a
 * revoke and nothing never overrides. The first of equal verdicts stays (its path is the one shown).
 */
export function mergeDecisions<D extends Decision>(first: D, second: D): D {
  if (second.verdict === 'none' || first.verdict === 'grant') return first;
  if (first.verdict === 'none' || second.verdict === 'grant') return second;
  return first;
}

/**
 * A method's parts, in the order it reads its settings, as one AwxVerdicts. `createsObjects`: whether the
 * maps' named objects are made and a grant may make its missing object (LDAP, OIDC: true; SAML:
 * SAML_AUTO_CREATE_OBJECTS).
 */
export function combineParts(parts: AwxPart[], createsObjects: boolean): AwxVerdicts {
  const flags: Partial<Record<Flag, Decision>> = {};
  for (const part of parts) {
    for (const [flag, decision] of Object.entries(part.flags ?? {}) as [Flag, Decision][]) {
      flags[flag] = flags[flag] ? mergeDecisions(flags[flag], decision) : decision;
    }
  }
  return {
    refusedBy: parts.find((part) => part.refusedBy)?.refusedBy ?? null,
    steps: parts.flatMap((part) => part.steps),
    flags,
    organizations: parts.flatMap((part) => part.organizations ?? []),
    teams: parts.flatMap((part) => part.teams ?? []),
    revokeOthers: parts.flatMap((part) => part.revokeOthers ?? []),
    namedObjects: createsObjects ? parts.flatMap((part) => part.namedObjects ?? []) : [],
    createsGranted: createsObjects,
  };
}

/** `"Ops"` as a PATH writes a key: JSON's quoting, as the dry run shows it (`AUTH_LDAP_ORGANIZATION_MAP["Ops"].admins`). */
export function keyPath(setting: string, key: string): Path {
  return `${setting}[${JSON.stringify(key)}]`;
}

/** The role an organization map's M field gives. */
export const ORGANIZATION_FIELDS = [
  { field: 'admins', role: 'admin', remove: 'remove_admins' },
  { field: 'auditors', role: 'auditor', remove: 'remove_auditors' },
  { field: 'users', role: 'member', remove: 'remove_users' },
] as const;

/** A verdict in words for the steps. */
export function verdictWords(verdict: Decision['verdict'], what: string): string {
  if (verdict === 'grant') return `grants ${what}`;
  if (verdict === 'revoke') return `revokes ${what}`;
  return `decides nothing on ${what}`;
}
