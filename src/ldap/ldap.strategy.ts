import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy as PassportLocalStrategy } from 'passport-local';
import { BackendOutcome, passwordAttemptOf } from '../users/login-methods';
import { LDAP_STRATEGY, LdapLogins } from './ldap-logins.service';

/**
 * A directory password as a Passport strategy (issue 39), on passport-local: the one password check hands it
 * the typed name and password and the attempt beside them, and it answers what the directories said
 * (LdapLogins: bind, groups, one account per entry, provisioning). A directory out of reach throws
 * PasswordBackendUnavailable, a 503 that the throttle does not count.
 */
@Injectable()
export class LdapStrategy extends PassportStrategy(PassportLocalStrategy, LDAP_STRATEGY) {
  constructor(private readonly logins: LdapLogins) {
    super({ passReqToCallback: true });
  }

  validate(req: object): Promise<BackendOutcome> {
    const { attempt, existing } = passwordAttemptOf(req);
    return this.logins.authenticate(attempt, existing);
  }
}
