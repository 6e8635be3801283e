import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { FieldErrors } from '../common/errors';
import { RequestTrace } from '../common/request-context';
import { trustedCas } from '../common/trusted-cas';
import { isUniqueViolation } from '../database/errors';
import { SettingsService } from '../settings/settings.service';
import { BackendAttempt, BackendOutcome, LoginMethods, PasswordBackend, PasswordBackendUnavailable } from '../users/login-methods';
import type { User } from '../users/user.entity';
import { MAX_USERNAME, normalizeUsername, USERNAME } from '../users/usernames';
import { UsersService } from '../users/users.service';
import { Provisioning, ProvisioningInput } from '../users/provisioning';
import { DirectoryUnavailable } from './directory-connection';
import { DirectoryDecision, DirectoryLogin } from './directory-login';
import { DIRECTORY_NAMES, DirectoryConfig, directoryConfig, DirectoryName, settingPrefix } from './ldap-settings';

export const LDAP_ACCOUNT = 'ldap';
/** The Passport strategy that proves a directory password (LdapStrategy). */
export const LDAP_STRATEGY = 'ldap';

/** What `ldap_test` and `POST /api/v2/settings/ldap/test/` answer (SPEC §14). */
export interface LdapExplanation {
  would_login: boolean;
  dn: string | null;
  groups: string[];
  flags: { is_superuser: boolean; is_system_auditor: boolean };
  steps: string[];
}


/**
 * LDAP logins (SPEC §14): the password backend behind LocalCredentialsService (which keeps local names
 * away from it and counts every attempt), first-login creation, attributes and flags kept in step at every
 * login, and the explainer that walks the same path without changing anything.
 */
@Injectable()
export class LdapLogins {
  private readonly logger = new Logger('ldap');
  private readonly login: DirectoryLogin;

  constructor(
    private readonly settings: SettingsService,
    private readonly users: UsersService,
    private readonly provisioning: Provisioning,
    private readonly methods: LoginMethods,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.login = new DirectoryLogin(trustedCas(config.extraCaCertsFile));
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

  /** The login method LDAP users come in by (registered by LdapModule); LocalCredentialsService asks its `authenticate`. */
  method(): PasswordBackend {
    return {
      account: LDAP_ACCOUNT,
      label: 'LDAP',
      provesPassword: true,
      person: true,
      remote: true,
      configured: () => this.configured(),
      strategy: LDAP_STRATEGY,
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

  async authenticate(attempt: BackendAttempt, existing: User | null): Promise<BackendOutcome> {
    const { username, password, trace } = attempt;
    // Only names the users API could hold go to a directory: no filter or DN syntax ever reaches it, escaped or not.
    if (!isUsername(username)) return { refused: 'invalid_username', source: null };
    let decision: DirectoryDecision;
    try {
      decision = await this.login.decide(this.directories(), username, password);
    } catch (err) {
      if (err instanceof DirectoryUnavailable) throw new PasswordBackendUnavailable(err.directory, err.reason);
      throw err;
    }
    if (decision.refusal) {
      return { refused: decision.detail ? `${decision.refusal}: ${decision.detail}` : decision.refusal, source: decision.directory };
    }
    const user = await this.apply(decision, username, existing, trace);
    return user ? { user, source: decision.directory! } : { refused: 'local_account_name', source: decision.directory };
  }

  /**
   * One account per directory entry (SPEC §14): the user is the one that holds the entry the password was
   * proven for, whatever name was typed (a directory matches names more loosely than the database does:
   * Unicode case folding, a search by mail); else the user of the name; only else a new user, created at
   * the first login. Brings its attributes, flags and DN in step; null if the name was taken meanwhile.
   */
  private async apply(decision: DirectoryDecision, username: string, existing: User | null, trace: RequestTrace): Promise<User | null> {
    const known = (await this.holderOf(decision.dn)) ?? existing;
    const input = this.provisioningInput(decision);
    if (known) return this.provisioning.refresh(known, input, trace);
    try {
      return await this.provisioning.create(username.toLowerCase(), input, trace);
    } catch (err) {
      if (!(err instanceof FieldErrors && err.errors.username) && !isUniqueViolation(err)) throw err;
      // Another login of the same entry or name created it first (or a local user took the name): look again.
      const holder = (await this.holderOf(decision.dn)) ?? (await this.users.findByUsernameIgnoringCase(username));
      return holder?.externalAccount === LDAP_ACCOUNT ? this.provisioning.refresh(holder, input, trace) : null;
    }
  }

  /** The LDAP user that holds the entry `dn`, or null. */
  private holderOf(dn: string | null): Promise<User | null> {
    return dn ? this.users.findByLdapDn(LDAP_ACCOUNT, dn) : Promise.resolve(null);
  }

  /** What the directory said of the user, for the one provisioning step: mapped attributes, group flags, the entry's DN. */
  private provisioningInput(decision: DirectoryDecision): ProvisioningInput {
    return {
      account: LDAP_ACCOUNT,
      source: { directory: decision.directory ?? '' },
      event: 'ldap',
      fields: decision.attributes,
      flags: decision.flags,
      owned: decision.dn ? { ldap_dn: decision.dn } : {},
    };
  }

  /**
   * What a login would do, step by step, changing nothing (SPEC §14): the directory's answers (found DN,
   * groups, require/deny, each flag and the group behind it) and what would happen to the user. `server`
   * picks one directory; without it the directories are walked as a login walks them.
   */
  async explain(server: DirectoryName | undefined, typed: string, password: string): Promise<LdapExplanation> {
    const username = normalizeUsername(typed); // as a login reads it
    const steps: string[] = [];
    const refused = (holder?: User | null): LdapExplanation => ({
      would_login: false,
      dn: null,
      groups: [],
      flags: { is_superuser: !!holder?.isSuperuser, is_system_auditor: !!holder?.isSystemAuditor },
      steps,
    });
    if (!isUsername(username)) {
      steps.push(`"${username.slice(0, 160)}" is not a valid username (letters, digits and @ . + - _, at most 150): a login never asks a directory.`);
      return refused();
    }
    const holder = await this.users.findByUsernameIgnoringCase(username);
    if (holder && holder.externalAccount !== LDAP_ACCOUNT) {
      steps.push(`The name belongs to the ${this.methods.of(holder).label.toLowerCase()} user "${holder.username}": a login checks that account and never asks a directory (no takeover).`);
      return refused(holder);
    }
    steps.push(holder ? `"${holder.username}" is an LDAP user here (id ${holder.id}, DN ${holder.ldapDn ?? 'unknown'}).` : `No user named "${username}" exists here yet.`);
    let directories = this.directories();
    if (server) {
      const config = this.directory(server);
      if (!config.uris.length) {
        steps.push(`Directory ${server} is not configured (its SERVER_URI is empty).`);
        return refused(holder);
      }
      directories = [config];
    }
    let decision: DirectoryDecision;
    try {
      decision = await this.login.decide(directories, username, password, steps);
    } catch (err) {
      if (!(err instanceof DirectoryUnavailable)) throw err;
      steps.push(`Directory ${err.directory} is unavailable (${err.reason}): a login would answer 503 "The login directory is unavailable; try again later.".`);
      return refused(holder);
    }
    // The account a login would be: the entry's holder first (one account per entry), as apply() decides.
    const entryHolder = decision.refusal ? null : await this.holderOf(decision.dn);
    if (entryHolder && entryHolder.id !== holder?.id) {
      steps.push(`The entry ${decision.dn} is held by the LDAP user "${entryHolder.username}" (id ${entryHolder.id}): the login would be that user's.`);
    }
    const target = entryHolder ?? holder;
    const flags = {
      is_superuser: decision.flags.is_superuser ?? !!target?.isSuperuser,
      is_system_auditor: decision.flags.is_system_auditor ?? !!target?.isSystemAuditor,
    };
    const answer = { dn: decision.dn, groups: decision.groups, flags, steps };
    if (decision.refusal) {
      steps.push(`Verdict: refused (${decision.refusal}${decision.detail ? `: ${decision.detail}` : ''}); the user would see the wrong-password answer.`);
      return { would_login: false, ...answer };
    }
    if (target && !target.isActive) {
      steps.push(`Verdict: refused: the user "${target.username}" is inactive here.`);
      return { would_login: false, ...answer };
    }
    steps.push(`Verdict: the login would succeed through directory ${decision.directory}. ${this.describeChanges(target, decision, username)}`);
    return { would_login: true, ...answer };
  }

  private describeChanges(holder: User | null, decision: DirectoryDecision, username: string): string {
    const input = this.provisioningInput(decision);
    return this.provisioning.describe(holder, this.provisioning.plan(holder, input), username.toLowerCase(), LDAP_ACCOUNT);
  }
}

function isUsername(username: string): boolean {
  return username.length > 0 && username.length <= MAX_USERNAME && USERNAME.test(username);
}


