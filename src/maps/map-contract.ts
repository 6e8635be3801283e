/**
 * The contract between the login methods, the maps engine and the organizations module (SPEC §21, issue 42).
 * A login method turns what its source said into `Claims` and reads its own AWX map settings into
 * `AwxVerdicts` with the shared dialects (maps/dialects/); the engine (maps/maps-engine.ts) adds
 * AUTHENTICATION_MAPS and the user's holdings and answers an `Outcome`, which the login applies and the dry
 * run shows. Nothing here names a method.
 */

import type { ExistingObjects, Flag, Holdings, OrganizationRole, OrganizationTarget, TeamRole, TeamTarget } from '../organizations/role-targets';

export type { ExistingObjects, Flag, Holdings, OrganizationRole, OrganizationTarget, TeamRole, TeamTarget };

/** What a source sent at one login, as the maps read it and the dry run stores it: text only, never a secret. */
export interface Claims {
  /** The username the source sent (or, for a password method, the name the user proved). */
  username: string;
  /** The email the source sent at this login; null when none (then no email test passes). */
  email: string | null;
  /** LDAP: group DNs; SAML: `attr_groups` values; OIDC: the groups claim; RADIUS: `Class` values. */
  groups: string[];
  /** Attribute name → values as text (numbers and booleans as their JSON text). */
  attributes: Record<string, string[]>;
}

/** Which source a login came through: `family` (`ldap`, `saml`, `oidc`, `radius`, a team's own) and its instance. */
export interface MapSource {
  family: string;
  /** `default`, `1`…`5`, an IdP or provider name; null for a family with one instance (`radius`). */
  instance: string | null;
}

/** `ldap:1`, `saml:okta`, `radius`: how rules' `sources`, stored claims and the dry run name a source. */
export function sourceTag(source: MapSource): string {
  return source.instance === null ? source.family : `${source.family}:${source.instance}`;
}

export type Verdict = 'grant' | 'revoke' | 'none';

/**
 * A PATH names the setting and the place in it that decided (SPEC §21): `AUTH_LDAP_1_REQUIRE_GROUP`,
 * `AUTH_LDAP_ORGANIZATION_MAP["Ops"].admins`, `SOCIAL_AUTH_SAML_TEAM_ATTR.team_org_map[2]`, `AUTHENTICATION_MAPS[3]`.
 */
export type Path = string;

/** One setting's say on one target. */
export interface Decision {
  verdict: Verdict;
  decidedBy: Path | null;
  /** The step in words (the dry run's `steps`): no claim value beyond what the settings themselves name. */
  step?: string;
}


/**
 * What a method's AWX settings say for one login (before AUTHENTICATION_MAPS). Revokes of every other
 * organization or team of the database (SAML's attribute maps with a remove flag) are `revokeOthers`.
 */
export interface AwxVerdicts {
  /** The method's gates (LDAP REQUIRE_GROUP, DENY_GROUP): refused when one says so; null: admitted. */
  refusedBy: Path | null;
  steps: string[];
  flags: Partial<Record<Flag, Decision>>;
  organizations: (OrganizationTarget & Decision)[];
  teams: (TeamTarget & Decision)[];
  /** "Every organization (team) of the database other than these loses this role" (SAML attribute maps). */
  revokeOthers: { kind: 'organization' | 'team'; role: OrganizationRole | TeamRole; except: { organization: string; team?: string }[]; decidedBy: Path }[];
  /** Objects the login makes whether or not this user matches (LDAP, OIDC; SAML with SAML_AUTO_CREATE_OBJECTS). */
  namedObjects: { organization: string; team?: string }[];
  /**
   * Whether a grant may make its missing organization or team: true for LDAP and OIDC maps and SAML while
   * SAML_AUTO_CREATE_OBJECTS is true; while false, a SAML grant naming a missing object is dropped.
   */
  createsGranted: boolean;
}



/** V of the dry run: what one target ends as, and why. */
export interface TargetOutcome {
  verdict: Verdict;
  before: boolean;
  after: boolean;
  decidedBy: Path | null;
}

/** OUTCOME of the dry run, and what a login applies (SPEC §21). */
export interface Outcome {
  allowed: boolean;
  refusedBy: Path | null;
  flags: Record<Flag, TargetOutcome>;
  /** Each target held before or after (empty when refused). */
  organizations: (OrganizationTarget & TargetOutcome & { creates: boolean })[];
  teams: (TeamTarget & TargetOutcome & { creates: boolean })[];
  /** Objects the login makes (named by the maps, or granted). */
  creates: { organizations: string[]; teams: { organization: string; team: string }[] };
  steps: string[];
}
