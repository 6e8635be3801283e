import { Strategy } from 'passport-strategy';
import type { CredentialRequest } from '../common/principal';

type Verified = (err: unknown, user?: unknown) => void;
type Verify = (req: CredentialRequest, token: string, options: object, done: Verified) => void;

/**
 * A Passport strategy for a credential carried in a cookie (no package on the card reads one): the cookie
 * absent or empty is no credential (`fail`, so the next strategy decides), its value otherwise goes to the
 * verify callback with the request and passport's options, as passport-http's strategies do with headers.
 * The verdict: a user is success, none is no credential, an error is the answer.
 */
export class CookieStrategyBase extends Strategy {
  constructor(
    private readonly cookieName: string,
    private readonly verifyToken: Verify,
  ) {
    super();
  }

  authenticate(req: CredentialRequest, options: object = {}): void {
    const token = req.cookies?.[this.cookieName];
    if (typeof token !== 'string' || !token) return this.fail(401);
    this.verifyToken(req, token, options, (err, user) => {
      if (err) return this.error(err as Error);
      if (!user) return this.fail(401);
      this.success(user);
    });
  }
}
