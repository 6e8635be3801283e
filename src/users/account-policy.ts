import { Injectable } from '@nestjs/common';
import { AuthMetrics } from '../common/auth-metrics';
import { Clock } from '../common/clock';
import { PermissionDenied } from '../common/errors';
import { SettingsService } from '../settings/settings.service';
import type { User } from './user.entity';

/** Why an account may not act at all right now, whatever credential it presents. */
export type AccountRefusal = 'user_disabled' | 'local_auth_disabled' | 'service_account' | 'account_expired';

/** `external_account` of an application's service account (SPEC §15): client credentials are its only way in. */
export const SERVICE_ACCOUNT = 'service';

/**
 * Every kind of credential the service accepts; each has one validity rule, and each rule asks the
 * account policy (issue 29): sessions, bearer tokens, refresh tokens, authorization codes, approved
 * device codes (RFC 8628), a password (HTTP basic and the login form) and an SSO login.
 */
export type CredentialKind = 'session' | 'bearer' | 'refresh_token' | 'authorization_code' | 'device_code' | 'password' | 'sso' | 'client_credentials';

/**
 * The logins that prove a person: a service account may use none of them (SPEC §15). Sessions and
 * authorization codes are made only by these, so a service account never holds one.
 */
type PersonLogin = 'password' | 'sso';
const PERSON_LOGINS: ReadonlySet<CredentialKind> = new Set<PersonLogin>(['password', 'sso']);

/** What a credential of kind K may be refused for: `service_account` only at a person's login. */
export type RefusalOf<K extends CredentialKind> = K extends PersonLogin ? AccountRefusal : Exclude<AccountRefusal, 'service_account'>;

/** The settings the account policy reads. */
export interface AccountPolicySettings {
  DISABLE_LOCAL_AUTH: boolean;
  ALLOW_OAUTH2_FOR_EXTERNAL_USERS: boolean;
}

type Account = Pick<User, 'isActive' | 'externalAccount'> & Partial<Pick<User, 'accountExpires'>>;

/**
 * The account rules every credential kind shares (SPEC §1, §5, §8): the account is active, and
 * local accounts only while local authentication is on. While DISABLE_LOCAL_AUTH is on, local users'
 * sessions end and their tokens are refused (AWX deleted the tokens outright, which surprised its
 * users, #14030); they work again when it is switched back on. External (SSO, LDAP) users are unaffected.
 */
export function accountRefusal(
  user: Account,
  settings: Pick<AccountPolicySettings, 'DISABLE_LOCAL_AUTH'>,
  kind?: CredentialKind,
  now?: Date,
): AccountRefusal | null {
  if (!user.isActive) return 'user_disabled';
  if (user.externalAccount === SERVICE_ACCOUNT && kind && PERSON_LOGINS.has(kind)) return 'service_account';
  if (settings.DISABLE_LOCAL_AUTH && !user.externalAccount) return 'local_auth_disabled';
  // SPEC §22 `account_expires`: a comparison on the row the request already loaded, no query (the hot path).
  if (user.accountExpires && now && user.accountExpires.getTime() <= now.getTime()) return 'account_expired';
  return null;
}

/**
 * ALLOW_OAUTH2_FOR_EXTERNAL_USERS false: users of an external provider may not create tokens (AWX PR #5499).
 * A service account holds tokens whatever it says: they are its only credential.
 */
export function mayHoldTokens(user: Account, settings: Pick<AccountPolicySettings, 'ALLOW_OAUTH2_FOR_EXTERNAL_USERS'>): boolean {
  return !user.externalAccount || user.externalAccount === SERVICE_ACCOUNT || settings.ALLOW_OAUTH2_FOR_EXTERNAL_USERS;
}

/** AWX's refusal (ALLOW_OAUTH2_FOR_EXTERNAL_USERS false): 403 with the reason in `detail`. */
export class ExternalUserRefused extends PermissionDenied {
  constructor(readonly externalAccount: string) {
    super(`(access_denied) OAuth2 Tokens cannot be created by users associated with an external authentication provider (${externalAccount})`);
  }
}

/** The account policy with the live settings. */
@Injectable()
export class AccountPolicy {
  constructor(
    private readonly settings: SettingsService,
    private readonly metrics?: AuthMetrics,
    private readonly clock?: Clock,
  ) {}

  /** Why `user` may not act with a credential of `kind` now, or null; every validity rule asks this. */
  refusal<K extends CredentialKind>(user: Account, kind: K, now?: Date): RefusalOf<K> | null {
    const at = user.accountExpires ? (now ?? this.clock?.now() ?? new Date()) : undefined;
    const refused = accountRefusal(user, { DISABLE_LOCAL_AUTH: this.settings.get('DISABLE_LOCAL_AUTH') }, kind, at);
    if (refused) this.metrics?.accountRefusals.inc({ kind, reason: refused });
    return refused as RefusalOf<K> | null;
  }

  mayHoldTokens(user: Account): boolean {
    return mayHoldTokens(user, { ALLOW_OAUTH2_FOR_EXTERNAL_USERS: this.settings.get('ALLOW_OAUTH2_FOR_EXTERNAL_USERS') });
  }

  /** Checked when a token is first created, as AWX does: existing tokens keep working. */
  assertMayHoldTokens(user: Account): void {
    if (!this.mayHoldTokens(user)) throw new ExternalUserRefused(user.externalAccount ?? '');
  }
}
