import { Injectable } from '@nestjs/common';
import { Strategy } from 'passport-strategy';
import type { Principal } from './principal';

/** What one Passport strategy made of a request. */
export type StrategyOutcome =
  | { kind: 'success'; user: unknown; info?: unknown }
  /** Its credential is not in the request: the next strategy decides. */
  | { kind: 'pass' }
  | { kind: 'fail'; challenge?: unknown; status?: number }
  | { kind: 'redirect'; url: string; status?: number }
  | { kind: 'error'; error: unknown };

/**
 * Runs one Passport strategy on a request and turns its callbacks into one awaited outcome: what
 * `passport.authenticate` does for a strategy (the augmented success/fail/redirect/pass/error), without
 * its middleware, its sessions or its response writing. The single sign-on strategies and the API
 * strategies both run through here.
 */
export function runStrategy(strategy: Strategy, req: unknown, options: object = {}): Promise<StrategyOutcome> {
  return new Promise((resolve) => {
    const attempt = Object.create(strategy) as Strategy;
    attempt.success = (user: unknown, info?: unknown) => resolve({ kind: 'success', user, info });
    attempt.pass = () => resolve({ kind: 'pass' });
    attempt.fail = ((challenge?: unknown, status?: number) => resolve({ kind: 'fail', challenge, status })) as Strategy['fail'];
    attempt.redirect = (url: string, status?: number) => resolve({ kind: 'redirect', url, status });
    attempt.error = (error: unknown) => resolve({ kind: 'error', error });
    try {
      attempt.authenticate(req as never, options);
    } catch (error) {
      resolve({ kind: 'error', error });
    }
  });
}

/** A strategy of the API front door: reads its credential from the request, or passes. */
export interface CredentialStrategy extends Strategy {
  readonly name: string;
}

/** What the API strategies receive as Passport options: the response, for a session's sliding cookie. */
export interface CredentialOptions {
  response: unknown;
}

/**
 * The one front door (SPEC §1): the registered strategies in AWX's order, bearer (10), session (20),
 * basic (30). The first strategy that finds its credential decides: success gives the principal, an
 * error (an invalid token, an ended session, wrong credentials) is the answer. Feature modules register
 * theirs at start-up, so nothing here imports them, and the release without OAuth 2 simply never
 * registers "bearer". New credential kinds (LDAP-backed basic, machine identities) register here too.
 */
@Injectable()
export class Authenticator {
  private entries: { strategy: CredentialStrategy; priority: number }[] = [];

  register(strategy: CredentialStrategy, priority: number): void {
    if (this.entries.some((e) => e.strategy.name === strategy.name)) return;
    this.entries = [...this.entries, { strategy, priority }].sort((a, b) => a.priority - b.priority);
  }

  /** The principal the request proves, undefined when it presents no credential; throws the refusal of a bad one. */
  async authenticate(req: unknown, response: unknown, options: { except?: string[] } = {}): Promise<Principal | undefined> {
    const strategyOptions: CredentialOptions = { response };
    for (const { strategy } of this.entries) {
      if (options.except?.includes(strategy.name)) continue;
      const outcome = await runStrategy(strategy, req, strategyOptions);
      if (outcome.kind === 'success') return outcome.user as Principal;
      if (outcome.kind === 'error') throw outcome.error;
    }
    return undefined;
  }
}
