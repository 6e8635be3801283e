import { Injectable } from '@nestjs/common';
import type { RequestTrace } from '../common/request-context';
import type { User } from './user.entity';

/** SPEC §14: the answer while a directory cannot be reached (or TLS with it fails). */
export const DIRECTORY_UNAVAILABLE = 'The login directory is unavailable; try again later.';

/** What a backend is told of an attempt (the password only to prove it, never to keep or log). */
export interface BackendAttempt {
  username: string;
  password: string;
  clientIp: string;
  trace: RequestTrace;
}

/**
 * A backend's verdict. `source` names what decided (an LDAP directory: "default", "1"…), null when no
 * source knew the name (the next backend may). `reason` is for the log event only: every refusal answers
 * like a wrong password.
 */
export type BackendOutcome = { user: User; source: string } | { refused: string; source: string | null };

/** No source of the backend could be asked (an outage, a TLS failure, a refused service account). */
export class PasswordBackendUnavailable extends Error {
  constructor(
    readonly source: string,
    readonly reason: string,
  ) {
    super(`${source}: ${reason}`);
  }
}

/**
 * A password backend other than the local password hash (an LDAP directory): registered by its module at
 * start-up, so that `users` asks it without importing it (the dependency rules of docs/architecture.md).
 */
export interface PasswordBackend {
  /** The `external_account` of the users it creates and proves ("ldap"). */
  readonly account: string;
  /** The name the API's refusals use ("LDAP"). */
  readonly label: string;
  /** Whether any source is configured: a remote method for DISABLE_LOCAL_AUTH, and worth asking at all. */
  configured(): boolean;
  /**
   * Proves the password. `existing` is the backend's own user of that name (found without case), or null.
   * Creates or updates the user on success; throws PasswordBackendUnavailable when it cannot decide.
   */
  authenticate(attempt: BackendAttempt, existing: User | null): Promise<BackendOutcome>;
  /** The user fields the backend owns for `user`: the API refuses to change them (SPEC §14). */
  managedFields(user: User): string[];
  /** How long basic auth may trust a repeat of a proven credential before asking again (ms; 0 = never). */
  repeatTtlMs(): number;
}

@Injectable()
export class PasswordBackends {
  private readonly backends: PasswordBackend[] = [];

  register(backend: PasswordBackend): void {
    this.backends.push(backend);
  }

  /** The configured backends, in the order they are asked. */
  configured(): PasswordBackend[] {
    return this.backends.filter((b) => b.configured());
  }

  /** The backend whose users carry this `external_account`, configured or not. */
  forAccount(account: string | null): PasswordBackend | undefined {
    return account ? this.backends.find((b) => b.account === account) : undefined;
  }
}
