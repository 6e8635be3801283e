import { Injectable } from '@nestjs/common';
import { authenticateWith } from '../common/authenticator';
import type { RequestTrace } from '../common/request-context';
import { SettingsService } from '../settings/settings.service';
import { SERVICE_ACCOUNT } from './account-policy';
import type { WithoutVerdict } from './login-throttle.service';
import type { User } from './user.entity';

/** SPEC §14: the answer while a directory cannot be reached (or TLS with it fails). */
export const DIRECTORY_UNAVAILABLE = 'The login directory is unavailable; try again later.';

/** What a password method is told of an attempt (the password only to prove it, never to keep or log). */
export interface BackendAttempt {
  username: string;
  password: string;
  clientIp: string;
  trace: RequestTrace;
}

/**
 * A password method's verdict. `source` names what decided (an LDAP directory: "default", "1"…), null when
 * no source knew the name (the next method may). `reason` is for the log event only: every refusal answers
 * like a wrong password.
 */
export type BackendOutcome = { user: User; source: string; sourceName?: string } | { refused: string; source: null | string };

/** No source of the method could be asked (an outage, a TLS failure): a 503, not counted by the throttle. */
export class PasswordBackendUnavailable extends Error implements WithoutVerdict {
  readonly withoutVerdict = true;
  constructor(
    readonly source: string,
    readonly reason: string,
    /** The 503's detail (DIRECTORY_UNAVAILABLE unless the method says otherwise). */
    readonly detail: string = DIRECTORY_UNAVAILABLE,
  ) {
    super(`${source}: ${reason}`);
  }
}

/**
 * One way users get in, declared once (issue 39): what its users' `external_account` is, what it is
 * called, and which of the rules of the other modules apply to its users. `mfa/`, `ui/`, `users/` and the
 * explainers read these facts; none of them names a method. Local accounts (`external_account` null) are
 * LOCAL_ACCOUNTS below; every other method is registered by its own module at start-up.
 */
export interface LoginMethod {
  /** The `external_account` of its users ("ldap"). */
  readonly account: string;
  /** What the API and the pages call it ("LDAP"). */
  readonly label: string;
  /**
   * Whether its users prove a password here: then the second step, MFA_REQUIRED_FOR, the refusals of basic
   * and the password grant and the Security tab apply to them (SPEC §16). False for a method whose users
   * prove themselves elsewhere (an identity provider) or never log in as a person.
   */
  readonly provesPassword: boolean;
  /** False for an account no person logs in as (a service account): it may not approve a device, for one. */
  readonly person: boolean;
  /** Whether it counts as a remote method for DISABLE_LOCAL_AUTH while configured (SPEC §9: local logins may be switched off). */
  readonly remote: boolean;
  /** Whether it is set up: a configured remote method keeps its users logging in while DISABLE_LOCAL_AUTH is on. */
  configured(): boolean;
  /** The user fields it owns for `user`: the API refuses to change them (SPEC §14). */
  managedFields(user: User): string[];
  /** How long basic auth may trust a repeat of a proven credential before asking again (ms; 0 = never). */
  repeatTtlMs(): number;
  /** How the profile page names a user's account ("LDAP directory (uid=…)"); the label when absent. */
  describe?(user: User): string;
  /**
   * For a method that proves passwords itself (a directory, a RADIUS server): the name of its Passport
   * strategy (`PassportStrategy(Strategy, name)`), which the one password check runs with the typed
   * username and password as passport-local reads them (`body.username`, `body.password`) and the attempt
   * beside them (`passwordAttemptOf(req)`). Its validate() answers a BackendOutcome: it creates or updates the
   * user on success (Provisioning), and throws PasswordBackendUnavailable when it cannot decide.
   */
  readonly strategy?: string;
}

/** A method that proves passwords itself (LDAP, RADIUS): asked for a name no local account holds. */
export type PasswordBackend = LoginMethod & Required<Pick<LoginMethod, 'strategy'>>;

const PASSWORD_ATTEMPT = Symbol('passwordAttempt');

/** What a password method's strategy is handed: the attempt, and the method's own user of that name (or null). */
export interface PasswordAttempt {
  attempt: BackendAttempt;
  existing: User | null;
}

/** In a password method's validate(): the attempt the password check handed it. */
export function passwordAttemptOf(req: object): PasswordAttempt {
  const found = (req as { [PASSWORD_ATTEMPT]?: PasswordAttempt })[PASSWORD_ATTEMPT];
  if (!found) throw new Error('a password method strategy runs only inside the password check');
  return found;
}

/**
 * Asks a password method through its Passport strategy: a request carrying the typed credentials where
 * passport-local looks for them, and the attempt beside them. A strategy that finds no credential (passport-
 * local's verdict on an empty password: no method is ever asked to bind one) refuses like a wrong password;
 * its error (PasswordBackendUnavailable, a fault) is thrown as is.
 */
export async function askPasswordMethod(method: PasswordBackend, attempt: BackendAttempt, existing: User | null): Promise<BackendOutcome> {
  const req = { headers: {}, query: {}, body: { username: attempt.username, password: attempt.password }, [PASSWORD_ATTEMPT]: { attempt, existing } };
  return (await authenticateWith<BackendOutcome>([method.strategy], req, undefined)) ?? { refused: 'empty_password', source: null };
}

/** Local accounts: a password hash of ours, the second step, nothing managed elsewhere. */
export const LOCAL_ACCOUNTS: LoginMethod = {
  account: '',
  label: 'Local',
  provesPassword: true,
  person: true,
  remote: false,
  configured: () => true,
  managedFields: () => [],
  repeatTtlMs: () => Infinity,
};

/** Service accounts (SPEC §15): made for a client-credentials application, no password, never a person's login. */
export const SERVICE_ACCOUNTS: LoginMethod = {
  account: SERVICE_ACCOUNT,
  label: 'Service account',
  provesPassword: false,
  person: false,
  remote: false,
  configured: () => false,
  managedFields: () => [],
  repeatTtlMs: () => 0,
};

/** An `external_account` no registered method claims (a module switched off): trusted with nothing. */
const UNKNOWN_METHOD: LoginMethod = {
  account: '?',
  label: 'External',
  provesPassword: false,
  person: true,
  remote: false,
  configured: () => false,
  managedFields: () => [],
  repeatTtlMs: () => 0,
};

@Injectable()
export class LoginMethods {
  private readonly methods = new Map<string, LoginMethod>();
  private backends: PasswordBackend[] = [];
  private readonly orders = new Map<string, number>();

  constructor(private readonly settings: SettingsService) {
    this.methods.set(SERVICE_ACCOUNTS.account, SERVICE_ACCOUNTS);
  }

  /**
   * A module declares its method once, at start-up; password methods are asked by `order` (local accounts
   * first, then LDAP 10, RADIUS 20, TACACS+ 30), those of one order as they register.
   */
  register(method: LoginMethod, order = 100): void {
    if (this.methods.has(method.account)) throw new Error(`login method "${method.account}" is registered twice`);
    this.methods.set(method.account, method);
    this.orders.set(method.account, order);
    if (method.remote) this.settings.addRemoteMethod(() => method.configured());
    if (method.strategy) this.backends = [...this.backends, method as PasswordBackend].sort((a, b) => this.orders.get(a.account)! - this.orders.get(b.account)!);
  }

  /** The registered method of an `external_account`, if any. */
  named(account: string): LoginMethod | undefined {
    return this.methods.get(account);
  }

  /** The method a user came in by (LOCAL_ACCOUNTS for a local account). */
  of(user: Pick<User, 'externalAccount'>): LoginMethod {
    return user.externalAccount ? (this.methods.get(user.externalAccount) ?? UNKNOWN_METHOD) : LOCAL_ACCOUNTS;
  }

  /** How the pages name the account `user` logs in with. */
  describe(user: User): string {
    const method = this.of(user);
    if (method.describe) return method.describe(user);
    return method === UNKNOWN_METHOD ? `${method.label} (${user.externalAccount})` : method.label;
  }

  /** Every registered method, local accounts first (the explainers' and the docs' list). */
  all(): LoginMethod[] {
    return [LOCAL_ACCOUNTS, ...this.methods.values()];
  }

  /** The configured password methods, in the order they are asked. */
  configured(): PasswordBackend[] {
    return this.backends.filter((b) => b.configured());
  }

  /** The password method whose users carry this `external_account`, configured or not. */
  forAccount(account: string | null): PasswordBackend | undefined {
    return account ? this.backends.find((b) => b.account === account) : undefined;
  }
}
