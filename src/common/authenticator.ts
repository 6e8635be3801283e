import { Injectable } from '@nestjs/common';
import { Strategy } from 'passport-strategy';
import { Awaitable, isPromiseLike } from './awaitable';
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
 * Runs one Passport strategy on a request and turns its callbacks into one outcome: what
 * `passport.authenticate` does for a strategy (the augmented success/fail/redirect/pass/error), without
 * its middleware, its sessions or its response writing. The single sign-on strategies and the API
 * strategies both run through here. A strategy that decides synchronously (most often: no credential of
 * its kind, `pass`) gives its outcome synchronously; one that decides later gives a promise.
 */
export function runStrategy(strategy: Strategy, req: unknown, options: object = {}): Awaitable<StrategyOutcome> {
  let outcome: StrategyOutcome | undefined;
  let later: ((o: StrategyOutcome) => void) | undefined;
  const settle = (o: StrategyOutcome) => {
    if (outcome) return;
    outcome = o;
    later?.(o);
  };
  const attempt = Object.create(strategy) as Strategy;
  attempt.success = (user: unknown, info?: unknown) => settle({ kind: 'success', user, info });
  attempt.pass = () => settle({ kind: 'pass' });
  attempt.fail = ((challenge?: unknown, status?: number) => settle({ kind: 'fail', challenge, status })) as Strategy['fail'];
  attempt.redirect = (url: string, status?: number) => settle({ kind: 'redirect', url, status });
  attempt.error = (error: unknown) => settle({ kind: 'error', error });
  try {
    attempt.authenticate(req as never, options);
  } catch (error) {
    settle({ kind: 'error', error });
  }
  return outcome ?? new Promise<StrategyOutcome>((resolve) => (later = resolve));
}

/** A strategy of the API front door: reads its credential from the request, or passes. */
export interface CredentialStrategy extends Strategy {
  readonly name: string;
}

/**
 * Hands a credential strategy's verdict to Passport: at once when it is there, when it settles otherwise. A principal is success, undefined passes to the next strategy, a throw or rejection is the
 * refusal.
 */
export function report(strategy: Strategy, verdict: () => Awaitable<Principal | undefined>): void {
  const decide = (principal: Principal | undefined) => (principal ? strategy.success(principal) : strategy.pass());
  try {
    const result = verdict();
    if (!isPromiseLike(result)) return decide(result);
    Promise.resolve(result).then(decide, (err) => strategy.error(err));
  } catch (err) {
    strategy.error(err);
  }
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

  /**
   * The principal the request proves, undefined when it presents no credential; throws (or rejects
   * with) the refusal of a bad one. Synchronous for as long as the strategies answer synchronously.
   */
  authenticate(req: unknown, response: unknown, options: { except?: string[] } = {}): Awaitable<Principal | undefined> {
    return this.from(0, req, { response }, options.except);
  }

  private from(index: number, req: unknown, strategyOptions: CredentialOptions, except?: string[]): Awaitable<Principal | undefined> {
    for (let i = index; i < this.entries.length; i++) {
      const { strategy } = this.entries[i];
      if (except?.includes(strategy.name)) continue;
      const outcome = runStrategy(strategy, req, strategyOptions);
      if (isPromiseLike(outcome)) {
        return Promise.resolve(outcome).then((later) => {
          const decided = this.decide(later);
          return decided ? decided.principal : this.from(i + 1, req, strategyOptions, except);
        });
      }
      const decided = this.decide(outcome);
      if (decided) return decided.principal;
    }
    return undefined;
  }

  /** The first strategy that finds its credential decides: success gives the principal, an error is the answer. */
  private decide(outcome: StrategyOutcome): { principal: Principal } | undefined {
    if (outcome.kind === 'success') return { principal: outcome.user as Principal };
    if (outcome.kind === 'error') throw outcome.error;
    return undefined;
  }
}
