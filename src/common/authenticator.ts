import { Injectable } from '@nestjs/common';
import passport from 'passport';
import type { Principal } from './principal';

/**
 * The front door's Passport strategies, by the names their modules register them under
 * (`PassportStrategy(Lib, name)`), in AWX's order (SPEC §1): a bearer header decides when present, else a
 * session cookie naming a live session, else a basic header. `session-cookie`, not `session`: passport
 * reserves that name for its own `req.session` strategy.
 */
export const FRONT_DOOR = ['bearer', 'session-cookie', 'basic'] as const;
export type FrontDoorStrategy = (typeof FRONT_DOOR)[number];

/**
 * What the front door's strategies receive as Passport options (AuthGuard's `getAuthenticateOptions`):
 * the reply, for a session's sliding cookie. Passport hands strategies the request only.
 */
export interface CredentialOptions {
  session: false;
  response: unknown;
}

/**
 * Runs passport's chain of the named strategies on a request outside a guard (the login form, the authorize
 * and device pages, introspection), with the same callback AuthGuard gives: what the deciding strategy
 * proved, undefined when no strategy found its credential, or the refusal as a rejection. Strategies are given by name, never as instances
 * (an instance would be augmented in place, so concurrent requests would overwrite its callbacks).
 */
export function authenticateWith<T = Principal>(names: readonly string[], req: unknown, response: unknown): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const options: CredentialOptions = { session: false, response };
    const middleware = passport.authenticate([...names], options, (err: unknown, user: unknown) => (err ? reject(err) : resolve(user ? (user as T) : undefined)));
    middleware(req as never, response as never, (err?: unknown) => (err ? reject(err) : resolve(undefined)));
  });
}

/**
 * The actions passport gives each attempt of a strategy (`success`, `fail`, `error`; lib/middleware/authenticate.js),
 * which the libraries' type definitions leave off their classes: an `authenticate()` override calls them.
 */
export interface PassportActions {
  success(user: unknown): void;
  fail(status?: number): void;
  error(err: unknown): void;
}

export function actionsOf(strategy: object): PassportActions {
  return strategy as PassportActions;
}

/** The front door for pages that are not the API: the same strategies, in the same order, but those named in `except`. */
@Injectable()
export class Authenticator {
  authenticate(req: unknown, response: unknown, options: { except?: FrontDoorStrategy[] } = {}): Promise<Principal | undefined> {
    const names = options.except ? FRONT_DOOR.filter((name) => !options.except!.includes(name)) : FRONT_DOOR;
    return authenticateWith(names, req, response);
  }
}
