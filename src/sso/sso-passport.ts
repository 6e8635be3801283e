import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import passport from 'passport';

export type StrategyOutcome =
  | { kind: 'redirect'; url: string }
  | { kind: 'success'; user: unknown }
  | { kind: 'fail'; info?: unknown }
  | { kind: 'error'; error: unknown };

/**
 * A Passport instance of its own for the single sign-on strategies (one per configured provider,
 * named "oidc:<name>" / "saml:<name>"), so the global guard can never try them, and `run` turns
 * Passport's callbacks into one awaited outcome.
 *
 * The redirect to the identity provider is captured rather than written: the transaction state
 * the strategy produced (PKCE verifier, nonce, state, RelayState) is stored in the database first,
 * and only then does the controller answer the browser.
 */
@Injectable()
export class SsoPassport {
  private readonly authenticator = new passport.Passport();

  /** Takes any Passport strategy; passport-saml's typings pin another copy of @types/express. */
  use(name: string, strategy: object): void {
    this.authenticator.use(name, strategy as passport.Strategy);
  }

  unuse(name: string): void {
    this.authenticator.unuse(name);
  }

  run(name: string, req: Request, options: Record<string, unknown> = {}): Promise<StrategyOutcome> {
    return new Promise((resolve) => {
      const capture = {
        statusCode: 200,
        location: '',
        setHeader(header: string, value: string) {
          if (header.toLowerCase() === 'location') this.location = value;
        },
        end() {
          resolve(this.location ? { kind: 'redirect', url: this.location } : { kind: 'fail', info: { status: this.statusCode } });
        },
      };
      const callback = (err: unknown, user: unknown, info: unknown) => {
        if (err) resolve({ kind: 'error', error: err });
        else if (!user) resolve({ kind: 'fail', info });
        else resolve({ kind: 'success', user });
      };
      const middleware = this.authenticator.authenticate(name, { session: false, ...options }, callback);
      try {
        middleware(req, capture, (err?: unknown) => resolve(err ? { kind: 'error', error: err } : { kind: 'fail' }));
      } catch (error) {
        resolve({ kind: 'error', error });
      }
    });
  }
}
