import type { LoginMethod } from '../users/login-methods';

/** `external_account` of the users single sign-on creates (AWX's "social" accounts). */
export const SSO_ACCOUNT = 'social';

/**
 * Single sign-on as a login method (issue 39): its users prove themselves at an identity provider, so no
 * second step here and no Security tab (SPEC §16); a configured provider is a remote method for
 * DISABLE_LOCAL_AUTH; the API may change everything of theirs (AWX keeps SSO users editable).
 */
export function ssoLoginMethod(configured: () => boolean): LoginMethod {
  return {
    account: SSO_ACCOUNT,
    label: 'Single sign-on',
    provesPassword: false,
    person: true,
    remote: true,
    configured,
    managedFields: () => [],
    repeatTtlMs: () => 0,
    describe: (user) => `Single sign-on (${user.externalAccount})`,
  };
}
