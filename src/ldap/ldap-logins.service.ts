import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { trustedCas } from '../common/trusted-cas';
import type { PasswordProof, ProvenIdentity } from '../external-logins/external-method';
import { textAttributes } from '../maps/claims-record';
import { SettingsService } from '../settings/settings.service';
import { BackendAttempt, PasswordBackend, PasswordBackendUnavailable } from '../users/login-methods';
import type { User } from '../users/user.entity';
import { MAX_USERNAME, USERNAME } from '../users/usernames';
import { UsersService } from '../users/users.service';
import { DirectoryConnection, DirectoryUnavailable } from './directory-connection';
import { DirectoryDecision, DirectoryLogin } from './directory-login';
import { attributeType, ldapNamedAttributes, ldapNamedGroups } from './ldap-map-reader';
import { DIRECTORY_NAMES, DirectoryConfig, directoryConfig, DirectoryName, settingPrefix } from './ldap-settings';

export const LDAP_ACCOUNT = 'ldap';

/**
 * LDAP as a password method (SPEC §14): the proof of an attempt through the directories (DirectoryLogin: find,
 * bind, groups), what the entry vouches for, and the user that holds an entry. Everything after the proof
 * (the holder, REQUIRE_GROUP, DENY_GROUP and the flags through the maps, creation) is the external-login pipeline's.
 */
@Injectable()
export class LdapLogins {
  private readonly login: DirectoryLogin;

  constructor(
    private readonly settings: SettingsService,
    private readonly users: UsersService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const get = (key: string) => this.settings.get(key);
    this.login = new DirectoryLogin(trustedCas(config.extraCaCertsFile), DirectoryConnection.open, (directory) => ldapNamedGroups(directory.name, get));
  }

  /** The directories with a SERVER_URI, in the order a login asks them. */
  directories(): DirectoryConfig[] {
    return DIRECTORY_NAMES.map((name) => this.directory(name)).filter((d) => d.uris.length > 0);
  }

  directory(name: DirectoryName): DirectoryConfig {
    return directoryConfig(name, (key) => this.settings.get(key));
  }

  configured(): boolean {
    return DIRECTORY_NAMES.some((name) => this.settings.get<string>(`${settingPrefix(name)}SERVER_URI`) !== '');
  }

  /** The login method LDAP users come in by (registered by LdapModule). */
  method(): Omit<PasswordBackend, 'strategy'> {
    return {
      account: LDAP_ACCOUNT,
      label: 'LDAP',
      provesPassword: true,
      person: true,
      remote: true,
      configured: () => this.configured(),
      managedFields: () => this.managedFields(),
      repeatTtlMs: () => this.settings.get<number>('AUTH_LDAP_CACHE_SECONDS') * 1000,
      describe: (user) => (user.ldapDn ? `LDAP directory (${user.ldapDn})` : 'LDAP directory'),
    };
  }

  /** AWX's rule: the username, the mapped attributes and flags, and (SPEC §14) the password belong to the directory. */
  managedFields(): string[] {
    const fields = new Set<string>(['username', 'password']);
    for (const config of this.directories()) {
      for (const [field, attribute] of Object.entries(config.attrMap)) if (attribute) fields.add(field);
      for (const flag of Object.keys(config.flagsByGroup)) fields.add(flag);
    }
    return [...fields];
  }

  /** The LDAP user that holds the entry `dn` (one account per directory entry, SPEC §14), or null. */
  holderOf(dn: string): Promise<User | null> {
    return this.users.findByDirectoryEntry(LDAP_ACCOUNT, dn);
  }

  /**
   * The directories' answer to an attempt: the entry the password was proven for, or why not. `server` picks
   * one directory (the explainer's); without it the directories are walked as a login walks them.
   */
  async prove(attempt: BackendAttempt, { server, note }: { server?: string; note?: (line: string) => void }): Promise<PasswordProof> {
    const { username, password } = attempt;
    const unproven = { dn: null, groups: [] };
    // Only names the users API could hold go to a directory: no filter or DN syntax ever reaches it, escaped or not.
    if (!isUsername(username)) {
      note?.(`"${username.slice(0, 160)}" is not a valid username (letters, digits and @ . + - _, at most 150): a login never asks a directory.`);
      return { refused: 'invalid_username', source: null, explained: unproven };
    }
    let directories = this.directories();
    if (server !== undefined) {
      const config = this.directory(server as DirectoryName);
      if (!config.uris.length) {
        note?.(`Directory ${server} is not configured (its SERVER_URI is empty).`);
        return { refused: 'not_configured', source: null, explained: unproven };
      }
      directories = [config];
    }
    let decision: DirectoryDecision;
    try {
      decision = await this.login.decide(directories, username, password, note);
    } catch (err) {
      if (err instanceof DirectoryUnavailable) throw new PasswordBackendUnavailable(err.directory, err.reason);
      throw err;
    }
    const explained = { dn: decision.dn, groups: decision.groups };
    if (decision.refusal) return { refused: decision.detail ? `${decision.refusal}: ${decision.detail}` : decision.refusal, source: decision.directory, explained };
    return { proven: this.identity(decision, username), source: decision.directory!, explained };
  }

  /** What a directory vouched for: its entry (the holder's key), mapped fields, groups and the attributes the maps read. */
  private identity(decision: DirectoryDecision, username: string): ProvenIdentity {
    const name = decision.directory as DirectoryName;
    const kept = ldapNamedAttributes(name, (key) => this.settings.get(key), this.directory(name).attrMap);
    const entry = Object.fromEntries(Object.entries(decision.entry).filter(([attribute]) => kept.has(attributeType(attribute))));
    return {
      account: LDAP_ACCOUNT,
      source: { family: LDAP_ACCOUNT, instance: name },
      key: decision.dn ?? undefined,
      username: username.toLowerCase(),
      fields: decision.attributes,
      owned: decision.dn ? { ldap_dn: decision.dn } : {},
      claims: { username: username.toLowerCase(), email: decision.attributes.email ?? null, groups: decision.groups, attributes: textAttributes(entry) },
      vouchedBy: { directory: name },
    };
  }
}

function isUsername(username: string): boolean {
  return username.length > 0 && username.length <= MAX_USERNAME && USERNAME.test(username);
}
