import type { CategoryCheck, CategoryDerivation } from '../settings/settings.service';
import type { SettingDefinition } from '../settings/setting-definition';
import type { Claims, MapSource } from '../maps/map-contract';
import type { MapSourceReader } from '../maps/map-sources';
import type { BackendAttempt, LoginMethod } from '../users/login-methods';
import type { ProvisionedField } from '../users/provisioning';
import type { UserInput } from '../users/users.service';
import type { User } from '../users/user.entity';

/**
 * What a method hands the pipeline once it has proved who someone is (issue 55): the one shape of every
 * external login. Everything after it (the holder, the name rule, the maps' allow decision, creation or
 * refresh, grants and flags, the stored claims, the loss of access) is the pipeline's, for every method.
 */
export interface ProvenIdentity {
  /** The method's `external_account`. */
  account: string;
  /** What the maps read it as (`ldap:1`, `saml:okta`, `radius`). */
  source: MapSource;
  /** The method's own key of its holder (a directory entry's DN, a provider link `provider uid`), if it has one. */
  key?: string;
  /** The name a first login creates (or, with `freeName`, the base of the first free `name`, `name-2`…). */
  username: string;
  /** A password method's user may be found by the name (folded); an SSO user only by its key, and a clash gets a suffix. */
  freeName?: boolean;
  /** The user fields the method keeps in step (only what it sent: a field left out is left as it is). */
  fields: Partial<Record<ProvisionedField, string>>;
  /** Method-owned columns (a directory entry's DN). */
  owned?: Partial<Pick<UserInput, 'ldap_dn'>>;
  /** What the source said, as the maps read it and the claims record keeps it (secrets already left out). */
  claims: Claims;
  /** Which of the method's sources vouched, as its log lines name it (`{ directory: "1" }`). */
  vouchedBy: Record<string, string>;
}

/** A password method's proof of an attempt: who it is, or why not (`source` null: the method does not know the name). */
export type PasswordProof =
  | { proven: ProvenIdentity; source: string; explained?: Record<string, unknown> }
  | { refused: string; source: string | null; explained?: Record<string, unknown> };

/** One settings category of a method, with its cross-key checks and its label in `/api/v2/settings/`. */
export interface MethodSettings {
  category: string;
  label: string;
  definitions: SettingDefinition[];
  checks?: CategoryCheck[];
  /** Hidden keys a write stores with it (RADIUS: the address its secret was typed with). */
  derivations?: CategoryDerivation[];
}

/** The method's explainer (`POST /api/v2/settings/<category>/test/`, `manage login_test --method <account>`). */
export interface MethodExplainer {
  /** The settings category whose `test/` route explains it. */
  category: string;
  /** Its sources, when it has several and one may be picked (`--server`, `server`): LDAP's directories. */
  servers?: readonly string[];
  /** The method's own fields of the answer when it proved nothing (`{ dn: null, groups: [] }`). */
  unproven: Record<string, unknown>;
  /** How the command prints those fields (`DN: …`, `Groups: …`), between the steps and the flags. */
  lines?(answer: Record<string, unknown>): string[];
}

/**
 * One registration per method, from its own module (issue 55): the login method's facts (users/), its maps
 * readers, its settings and their checks and labels, how its holder is found, and for a password method its
 * proof and explainer. Rule sources, the dry run's list, the settings labels and the explainer routes and
 * command are read from here; nothing outside the method's folder names it.
 */
export interface ExternalMethod {
  method: LoginMethod;
  /** The prefix of its log events (`<events>_user_created`); the account when absent. */
  events?: string;
  /** Where a password method is asked among the others (local accounts first; LDAP 10, RADIUS 20, TACACS+ 30). */
  order?: number;
  /** How its logins read AWX's map settings; absent: none of its own (AUTHENTICATION_MAPS alone, source = the account). */
  mapReaders?: MapSourceReader[];
  settings?: MethodSettings[];
  /** The holder by the method's key (`ProvenIdentity.key`); a method without keys finds holders by name alone. */
  holderOf?(key: string): Promise<User | null>;
  /** After a first login made `user`: the method's link to it (a unique violation: another login made it first). */
  link?(user: User, proven: ProvenIdentity): Promise<void>;
  /** A password method's proof; `note` hears each step for an explainer; throws PasswordBackendUnavailable. */
  prove?(attempt: BackendAttempt, options: { server?: string; note?: (line: string) => void }): Promise<PasswordProof>;
  explainer?: MethodExplainer;
  /** How an explainer names a holder beyond its id (`DN uid=…`). */
  holderNote?(user: User): string;
}
