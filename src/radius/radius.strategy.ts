import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy as PassportLocalStrategy } from 'passport-local';
import { BackendOutcome, passwordAttemptOf } from '../users/login-methods';
import { RADIUS_STRATEGY, RadiusLogins } from './radius-logins.service';

/**
 * A RADIUS password as a Passport strategy (issue 41), on passport-local as LDAP's is: the one password
 * check hands it the typed name and password (passport-local refuses an empty one before it is asked) and
 * the attempt beside them, and it answers what the RADIUS server said. No valid reply in time throws
 * PasswordBackendUnavailable, a 503 that the throttle does not count.
 */
@Injectable()
export class RadiusStrategy extends PassportStrategy(PassportLocalStrategy, RADIUS_STRATEGY) {
  constructor(private readonly logins: RadiusLogins) {
    super({ passReqToCallback: true });
  }

  validate(req: object): Promise<BackendOutcome> {
    const { attempt, existing } = passwordAttemptOf(req);
    return this.logins.authenticate(attempt, existing);
  }
}
