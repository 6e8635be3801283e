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
import { AccessRefused } from '../maps/access-refused';
import { textAttributes } from '../maps/claims-record';
import { LoginAccess, MapsService } from '../maps/maps.service';
import { OutcomeView, describeOutcome } from '../maps/outcome-view';
import { DirectoryConnection } from './directory-connection';
import { ldapNamedGroups } from './ldap-map-reader';
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
  /** SPEC §21: the maps' verdict on the login the directory decided (the dry run's OUTCOME); null when it decided none. */
  maps: OutcomeView | null;
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
    private readonly maps: MapsService,
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
      if (GATE_REFUSALS.has(decision.refusal)) {
        // SPEC §21: the directory's gate said this person may no longer come in; an existing user's sessions end.
        await this.maps.refused((await this.holderOf(decision.dn)) ?? existing, ldapAccess(decision, username), gatePath(decision), trace);
      }
      return { refused: decision.detail ? `${decision.refusal}: ${decision.detail}` : decision.refusal, source: decision.directory };
    }
    try {
      const user = await this.apply(decision, username, existing, trace);
      return user ? { user, source: decision.directory! } : { refused: 'local_account_name', source: decision.directory };
    } catch (err) {
      // An `allow` rule refusing the login answers exactly as a wrong password (and is counted so).
      if (err instanceof AccessRefused) return { refused: `access_refused: ${err.refusedBy}`, source: decision.directory };
      throw err;
    }
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
    const access = ldapAccess(decision, username);
    if (known) return this.maps.refresh(known, input, access, trace);
    try {
      return await this.maps.create(username.toLowerCase(), input, access, trace);
    } catch (err) {
      if (!(err instanceof FieldErrors && err.errors.username) && !isUniqueViolation(err)) throw err;
      // Another login of the same entry or name created it first (or a local user took the name): look again.
      const holder = (await this.holderOf(decision.dn)) ?? (await this.users.findByUsernameIgnoringCase(username));
      return holder?.externalAccount === LDAP_ACCOUNT ? this.maps.refresh(holder, input, access, trace) : null;
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
      maps: null,
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
    // The maps read a login the password proved: a refusal before the bind (or by it) decides nothing for them.
    const outcome = decision.dn && (!decision.refusal || GATE_REFUSALS.has(decision.refusal)) ? await this.maps.preview(target, ldapAccess(decision, username)) : null;
    const flags = {
      is_superuser: outcome?.allowed ? outcome.flags.is_superuser.after : !!target?.isSuperuser,
      is_system_auditor: outcome?.allowed ? outcome.flags.is_system_auditor.after : !!target?.isSystemAuditor,
    };
    const answer = { dn: decision.dn, groups: decision.groups, flags, maps: outcome ? describeOutcome(outcome) : null, steps };
    if (!decision.refusal && outcome && !outcome.allowed) {
      steps.push(`Verdict: refused by ${outcome.refusedBy} (an allow decision of the maps); the user would see the wrong-password answer${target ? ', and their sessions and tokens would end' : ''}.`);
      return { would_login: false, ...answer };
    }
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

/** The directory's own gates (SPEC §14), which SPEC §21 counts as allow decisions. */
const GATE_REFUSALS = new Set(['not_in_require_group', 'in_deny_group']);

function gatePath(decision: DirectoryDecision): string {
  const prefix = settingPrefix(decision.directory as DirectoryName);
  return decision.refusal === 'in_deny_group' ? `${prefix}DENY_GROUP` : `${prefix}REQUIRE_GROUP`;
}

/** What a directory said of a login, for the maps (SPEC §21): its groups, the entry's attributes, the mapped email. */
export function ldapAccess(decision: DirectoryDecision, username: string): LoginAccess {
  return {
    source: { family: LDAP_ACCOUNT, instance: decision.directory ?? 'default' },
    claims: { username: username.toLowerCase(), email: decision.attributes.email ?? null, groups: decision.groups, attributes: textAttributes(decision.entry) },
  };
}

function isUsername(username: string): boolean {
  return username.length > 0 && username.length <= MAX_USERNAME && USERNAME.test(username);
}


