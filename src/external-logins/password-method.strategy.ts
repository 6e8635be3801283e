import { PassportStrategy } from '@nestjs/passport';
import { Strategy as PassportLocalStrategy } from 'passport-local';
import { BackendOutcome, PasswordAttempt, passwordAttemptOf } from '../users/login-methods';

/**
 * A password method as a Passport strategy (issue 39), on passport-local, made once per method at its
 * registration (issue 55), so that no method writes one: the one password check hands it the typed name and
 * password and the attempt beside them; it answers what the method and the pipeline made of them. A method
 * out of reach throws PasswordBackendUnavailable, a 503 that the throttle does not count.
 */
export function passwordMethodStrategy(name: string, login: (attempt: PasswordAttempt) => Promise<BackendOutcome>): object {
  class PasswordMethodStrategy extends PassportStrategy(PassportLocalStrategy, name) {
    constructor() {
      super({ passReqToCallback: true });
    }

    validate(req: object): Promise<BackendOutcome> {
      return login(passwordAttemptOf(req));
    }
  }
  return new PasswordMethodStrategy();
}
