import { Injectable } from '@nestjs/common';
import type { Strategy } from 'passport-strategy';
import { runStrategy, StrategyOutcome } from '../common/authenticator';

export type { StrategyOutcome };

/**
 * The single sign-on strategies (one per configured provider, named "oidc:<name>" / "saml:<name>"),
 * kept apart from the API front door so the global guard can never try them. They run through the
 * same `runStrategy` as the API strategies.
 *
 * A strategy's redirect to the identity provider comes back as an outcome rather than being written:
 * the transaction state the strategy produced (PKCE verifier, nonce, state, RelayState) is stored in
 * the database first, and only then does the controller answer the browser.
 */
@Injectable()
export class SsoPassport {
  private readonly strategies = new Map<string, Strategy>();

  /** Takes any Passport strategy; passport-saml's typings pin another copy of @types/express. */
  use(name: string, strategy: object): void {
    this.strategies.set(name, strategy as Strategy);
  }

  unuse(name: string): void {
    this.strategies.delete(name);
  }

  run(name: string, req: unknown, options: Record<string, unknown> = {}): Promise<StrategyOutcome> {
    const strategy = this.strategies.get(name);
    if (!strategy) return Promise.resolve({ kind: 'error', error: new Error(`unknown single sign-on strategy ${name}`) });
    return Promise.resolve(runStrategy(strategy, req, { session: false, ...options }));
  }
}
