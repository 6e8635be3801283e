import { LdapModule } from './ldap/ldap.module';
import { RadiusModule } from './radius/radius.module';

/**
 * The password methods, each one folder and one registration (issue 55): the service and the management
 * commands load this one list, so a new method is its folder and one line here (docs/architecture.md, "A new
 * login method"). Their order among themselves is each registration's `order`, not this list's.
 */
export const LOGIN_METHOD_MODULES = [LdapModule, RadiusModule];
