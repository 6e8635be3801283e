import type { Path } from './map-contract';

/**
 * A login an allow decision refused (SPEC §21): LDAP REQUIRE_GROUP or DENY_GROUP, an `allow` rule. The
 * method answers as to a wrong password (LDAP, RADIUS) or with the login page's alert (SSO); `refusedBy`
 * goes to the log event, never to the user.
 */
export class AccessRefused extends Error {
  constructor(readonly refusedBy: Path) {
    super(`refused by ${refusedBy}`);
  }
}
