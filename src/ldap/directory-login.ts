import { createSecureContext, SecureContext } from 'node:tls';
import { NoSuchObjectError, ResultCodeError, SizeLimitExceededError } from 'ldapts';
import { DirectoryConnection, DirectoryUnavailable, describeError, isTransportError, ServiceBindRefused } from './directory-connection';
import { DirectoryEntry, DirectoryUser, groupType, MembershipAnswer, membershipOf, userAttributes } from './group-types';
import { fillDnTemplate, fillFilter, normalizeDn } from './ldap-names';
import { settingPrefix } from './ldap-settings';
import type { DirectoryConfig, UserField } from './ldap-settings';

/** Why a directory refused a login (for the log event and the explainer; the user sees a wrong password). */
export type DirectoryRefusal =
  | 'empty_password'
  | 'not_found'
  | 'ambiguous_user'
  | 'wrong_password'
  | 'bind_refused';

/** What one directory made of a login, or what the first directory that knew the name decided. */
export interface DirectoryDecision {
  /** The directory that decided; null when none knew the name. */
  directory: string | null;
  refusal: DirectoryRefusal | null;
  /** Extra words for a refusal (Active Directory's reason for a refused bind, say). */
  detail?: string;
  dn: string | null;
  groups: string[];
  /** The mapped fields as the directory has them (absent attributes left out). */
  attributes: Partial<Record<UserField, string>>;
  /** The user entry's attributes, names in lower case (the maps read those a setting names, SPEC §21). */
  entry: Record<string, string[]>;
}

/**
 * The group DNs a directory's settings name beyond its group search (REQUIRE_GROUP, DENY_GROUP, the flags' and
 * maps' groups): asked of each group at a login, so that the maps, which decide the gates and flags (SPEC §21),
 * read every answer they need.
 */
export type NamedGroups = (config: DirectoryConfig) => string[];

/**
 * Active Directory's refusals of a bind carry a sub-code in the diagnostic message (`data 52e`):
 * wrong password, locked, expired... The log and the explainer say which; the user still sees a wrong
 * password. slapd never sends these, so ldap-names.spec.ts tests them on Active Directory's own text.
 */
const AD_BIND_CODES: Record<string, string> = {
  '525': 'no such user (Active Directory 525)',
  '52e': 'wrong password (Active Directory 52e)',
  '530': 'not permitted to log on at this time (Active Directory 530)',
  '531': 'not permitted to log on from this workstation (Active Directory 531)',
  '532': 'password expired (Active Directory 532)',
  '533': 'account disabled (Active Directory 533)',
  '568': 'too many security identifiers (Active Directory 568)',
  '701': 'account expired (Active Directory 701)',
  '773': 'password must be reset (Active Directory 773)',
  '775': 'account locked out (Active Directory 775)',
};

export function activeDirectoryReason(message: string): string | undefined {
  const match = /\bdata ([0-9a-f]{3,4})\b/i.exec(message);
  return match ? AD_BIND_CODES[match[1].toLowerCase()] : undefined;
}

/**
 * The login through the directories (SPEC §14), and its explanation: the same walk answers a login and
 * `ldap_test`, so what the explainer says is what a login does. Directories are asked in order; the first
 * that finds the user decides (binding as the user's DN with the password), and one that cannot be
 * reached stops the walk with DirectoryUnavailable: skipping it would hand its names to the next one.
 * Nothing here writes: the caller applies a successful decision to the user.
 */
export class DirectoryLogin {
  /** TLS contexts by CA_CERT: the trusted list is parsed once, not at every login. */
  private readonly contexts = new Map<string, SecureContext>();

  constructor(
    private readonly systemCas: string[],
    private readonly open: typeof DirectoryConnection.open = DirectoryConnection.open,
    private readonly namedGroups: NamedGroups = () => [],
  ) {}

  private contextFor(caCert: string): SecureContext {
    let context = this.contexts.get(caCert);
    if (!context) {
      if (this.contexts.size >= 16) this.contexts.clear();
      context = createSecureContext({ ca: caCert ? [...this.systemCas, caCert] : this.systemCas });
      this.contexts.set(caCert, context);
    }
    return context;
  }

  /** `step` hears each step as it happens (so an explainer keeps them when a directory fails midway). */
  async decide(directories: DirectoryConfig[], username: string, password: string, step: (line: string) => void = () => {}): Promise<DirectoryDecision> {
    const none: DirectoryDecision = { directory: null, refusal: 'not_found', dn: null, groups: [], attributes: {}, entry: {} };
    if (!directories.length) {
      step('No directory is configured (every AUTH_LDAP_*SERVER_URI is empty).');
      return none;
    }
    // An unauthenticated bind (a DN with no password) succeeds on most servers and proves nothing (RFC 4513 §5.1.2).
    if (password === '') {
      step('The password is empty: refused without asking any directory (an empty password would be an unauthenticated bind).');
      return { ...none, refusal: 'empty_password' };
    }
    for (const config of directories) {
      step(`Directory ${config.name} (${config.uris.join(' ')}):`);
      const decision = await this.inDirectory(config, username, password, (line) => step(`  ${line}`));
      if (decision) return decision;
    }
    step('No directory knows this user: the login is refused like a wrong password.');
    return none;
  }

  /** One directory's answer: a decision, or null when it does not know the user. */
  private async inDirectory(config: DirectoryConfig, username: string, password: string, note: (line: string) => void): Promise<DirectoryDecision | null> {
    let connection: DirectoryConnection;
    try {
      connection = await this.open(config, this.contextFor(config.caCert), note);
    } catch (err) {
      if (err instanceof ServiceBindRefused) {
        note(`The directory refused BIND_DN at ${err.uri} (check ${settingName(config, 'BIND_DN')} and its password).`);
        throw new DirectoryUnavailable(config.name, 'bind DN refused');
      }
      if (err instanceof DirectoryUnavailable) note('No URI of this directory could be used: the login answers 503 and is not counted as a failure.');
      throw err;
    }
    try {
      return await this.withConnection(connection, config, username, password, note);
    } catch (err) {
      if (err instanceof DirectoryUnavailable) throw err;
      // A broken connection, a timeout, or an answer the login cannot use: an outage, not the user's failure.
      note(`The directory failed: ${describeError(err)}.`);
      throw new DirectoryUnavailable(config.name, describeError(err));
    } finally {
      await connection.close();
    }
  }

  private async withConnection(
    connection: DirectoryConnection,
    config: DirectoryConfig,
    username: string,
    password: string,
    note: (line: string) => void,
  ): Promise<DirectoryDecision | null> {
    const found = await this.findUser(connection, config, username, note);
    if (!found) return null;
    const base: DirectoryDecision = { directory: config.name, refusal: null, dn: null, groups: [], attributes: {}, entry: {} };
    if (found === 'ambiguous') return { ...base, refusal: 'ambiguous_user' };
    base.dn = found.dn;
    const bound = await connection.bindAs(found.dn, password);
    if (!bound.ok) {
      const ad = activeDirectoryReason(bound.message);
      if (bound.code === 49) {
        note(`Binding as ${found.dn} failed: ${ad ?? 'invalid credentials'}. Refused like a wrong password.`);
        return { ...base, refusal: 'wrong_password', detail: ad };
      }
      note(`Binding as ${found.dn} was refused (result code ${bound.code}: ${bound.message.split('\n')[0].slice(0, 200)}). Refused like a wrong password.`);
      return { ...base, refusal: 'bind_refused', detail: ad ?? `result code ${bound.code}` };
    }
    note(`Bound as ${found.dn}: the password is right.`);
    const user = found.attributes ? (found as DirectoryUser) : await this.readUser(connection, config, found.dn, note);
    // The entry's DN as the directory spells it (a DN template's is the typed name's): the account is found by it.
    const decision: DirectoryDecision = { ...base, dn: user.dn, attributes: mappedAttributes(config, user), entry: user.attributes };
    const type = groupType(config.groupType, config.groupTypeParams);
    const groups = new Map<string, DirectoryEntry>();
    if (config.groupSearch) {
      for (const entry of await type.userGroups(user, config.groupSearch, connection)) groups.set(normalizeDn(entry.dn), entry);
      decision.groups = [...groups.values()].map((g) => g.dn);
      note(
        `Groups (${config.groupType}${type.nested ? ', followed transitively' : ''}, by ${type.memberAttr} under ${config.groupSearch.base}): ` +
          (decision.groups.length ? decision.groups.join('; ') : 'none') + '.',
      );
    } else {
      note(`No GROUP_SEARCH: only the configured groups are checked, each asked directly.`);
    }
    const ctx = { user, type, search: config.groupSearch, reader: connection };
    // A configured group the search did not find but the user is in (asked of the group) joins the login's
    // groups, so that the maps and their dry run read what this login found (SPEC §21).
    const asked = new Map<string, MembershipAnswer>();
    const membership = async (dn: string): Promise<MembershipAnswer> => {
      const key = normalizeDn(dn);
      let answer = asked.get(key);
      if (!answer) {
        answer = await membershipOf(dn, groups, ctx);
        asked.set(key, answer);
        if (answer.member && !groups.has(key)) decision.groups.push(dn);
      }
      return answer;
    };
    for (const dn of this.namedGroups(config)) {
      const answer = await membership(dn);
      note(`Group ${dn}: ${answer.member ? 'member' : 'not a member'} (${answer.how}).`);
    }
    return decision;
  }

  /** The user's entry: by USER_DN_TEMPLATE (read back to see that it exists) or by USER_SEARCH. */
  private async findUser(
    connection: DirectoryConnection,
    config: DirectoryConfig,
    username: string,
    note: (line: string) => void,
  ): Promise<{ dn: string; attributes?: Record<string, string[]> } | 'ambiguous' | null> {
    const attributes = userAttributes(config.attrMap);
    if (config.userDnTemplate) {
      const dn = fillDnTemplate(config.userDnTemplate, username);
      try {
        const [entry] = await connection.search(dn, 'SCOPE_BASE', '(objectClass=*)', attributes);
        if (entry) {
          note(`USER_DN_TEMPLATE gives ${dn}, which exists.`);
          return entry;
        }
      } catch (err) {
        if (!(err instanceof ResultCodeError)) throw err;
        if (!(err instanceof NoSuchObjectError)) {
          // The entry cannot be read before binding (no read access): the bind will tell.
          note(`USER_DN_TEMPLATE gives ${dn} (not readable before binding: ${describeError(err)}).`);
          return { dn };
        }
      }
      note(`USER_DN_TEMPLATE gives ${dn}: no such entry here.`);
      return null;
    }
    if (!config.userSearch) {
      note('Neither USER_SEARCH nor USER_DN_TEMPLATE is set: this directory cannot find users.');
      return null;
    }
    const { base, scope, filter } = config.userSearch;
    const filled = fillFilter(filter, username);
    let entries: DirectoryEntry[];
    try {
      // Two are enough to know the answer is not one user.
      entries = await connection.search(base, scope, filled, attributes, 2);
    } catch (err) {
      if (err instanceof NoSuchObjectError) {
        note(`USER_SEARCH base ${base} does not exist in this directory.`);
        return null;
      }
      if (err instanceof SizeLimitExceededError) {
        note(`USER_SEARCH ${filled} under ${base}: more than two entries; a login needs exactly one. Refused.`);
        return 'ambiguous';
      }
      throw err;
    }
    if (entries.length === 0) {
      note(`USER_SEARCH ${filled} under ${base}: no entry.`);
      return null;
    }
    if (entries.length > 1) {
      note(`USER_SEARCH ${filled} under ${base}: ${entries.length} entries (${entries.slice(0, 5).map((e) => e.dn).join('; ')}); a login needs exactly one. Refused.`);
      return 'ambiguous';
    }
    note(`USER_SEARCH ${filled} under ${base}: found ${entries[0].dn}.`);
    return entries[0];
  }

  /** Reads the user's entry after binding (the template's entry was not readable before). */
  private async readUser(connection: DirectoryConnection, config: DirectoryConfig, dn: string, note: (line: string) => void): Promise<DirectoryUser> {
    try {
      const [entry] = await connection.search(dn, 'SCOPE_BASE', '(objectClass=*)', userAttributes(config.attrMap));
      if (entry) return entry;
    } catch (err) {
      if (isTransportError(err)) throw err;
    }
    note(`The entry ${dn} could not be read: no attributes are mapped.`);
    return { dn, attributes: {} };
  }
}

function mappedAttributes(config: DirectoryConfig, user: DirectoryUser): Partial<Record<UserField, string>> {
  const out: Partial<Record<UserField, string>> = {};
  for (const [field, attribute] of Object.entries(config.attrMap) as [UserField, string | undefined][]) {
    const value = attribute ? user.attributes[attribute.toLowerCase()]?.[0] : undefined;
    if (value !== undefined) out[field] = value;
  }
  return out;
}

function settingName(config: DirectoryConfig, suffix: string): string {
  return `${settingPrefix(config.name)}${suffix}`;
}
