/**
 * Roles by name, as the maps of SPEC §21 name them (an organization's admin, auditor or member; a team's admin
 * or member) and as a login reads and writes them. The organizations module owns them; the maps engine
 * (`maps/map-contract.ts`) re-exports them.
 */
export type Flag = 'is_superuser' | 'is_system_auditor';
export type OrganizationRole = 'admin' | 'auditor' | 'member';
export type TeamRole = 'admin' | 'member';

/** A target of a map: one role in one organization, or in one team of one organization. */
export interface OrganizationTarget {
  organization: string;
  role: OrganizationRole;
}
export interface TeamTarget {
  organization: string;
  team: string;
  role: TeamRole;
}

/** What the user holds before the login: the flags and every role, by names. */
export interface Holdings {
  flags: Record<Flag, boolean>;
  organizations: OrganizationTarget[];
  teams: TeamTarget[];
}

/** Existing objects by name (the engine decides `creates` and SAML's dropped grants with it). */
export interface ExistingObjects {
  organizations: ReadonlySet<string>;
  /** `JSON.stringify([organization, team])`. */
  teams: ReadonlySet<string>;
}
