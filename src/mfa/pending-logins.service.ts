import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { MFA_PROVIDER } from '../pending-state/pending-state.entity';
import { PendingStateService } from '../pending-state/pending-state.service';
import type { User } from '../users/user.entity';
import { SecurityKeys } from './security-keys.service';

/** The second step must be taken within five minutes of the password (SPEC §16). */
export const PENDING_LOGIN_SECONDS = 300;

/** What the browser's pending cookie stands for: no session exists yet, only this. */
export interface PendingLogin {
  userId: number;
  next: string;
  /** `verify` a factor, or `setup` one first (MFA_REQUIRED_FOR). */
  stage: 'verify' | 'setup';
  /** The source that proved the password (SPEC §22: the session it makes says so). */
  source?: string;
  /**
   * The WebAuthn options the page carries when the user has a key; their challenge holds until the login
   * completes (a failed attempt spends nothing, and the state is taken once).
   */
  options?: PublicKeyCredentialRequestOptionsJSON;
}

/**
 * Logins between the password and the second step. The browser holds a random handle in an HttpOnly
 * cookie; the store (encrypted, swept, capped per address: only a right password makes one) holds only a
 * keyed digest of it, so the state works on every node and a stolen database row is no cookie.
 */
@Injectable()
export class PendingLogins {
  constructor(
    private readonly store: PendingStateService,
    private readonly keys: SecurityKeys,
  ) {}

  /** A new pending login; the handle goes into the browser's cookie, the options onto the page. */
  async begin(user: User, next: string, stage: PendingLogin['stage'], clientIp: string, source?: string) {
    const options = stage === 'verify' ? await this.keys.authenticationOptions(user.id) : null;
    const handle = randomBytes(32).toString('base64url');
    const login: PendingLogin = { userId: user.id, next, stage, ...(source ? { source } : {}), ...(options ? { options } : {}) };
    await this.store.add(this.key(handle), MFA_PROVIDER, login, PENDING_LOGIN_SECONDS, clientIp);
    return { handle, login };
  }

  /** The pending login a cookie names, if it is still live; not consumed (a wrong code may be retried). */
  async find(handle: unknown): Promise<PendingLogin | null> {
    if (typeof handle !== 'string' || !handle) return null;
    return (await this.store.peek<PendingLogin>(this.key(handle)))?.data ?? null;
  }

  /** Consumes it when the second step succeeded: of two concurrent successes, one completes the login. */
  async finish(handle: string): Promise<boolean> {
    return !!(await this.store.take<PendingLogin>(this.key(handle)));
  }

  private key(handle: string): string {
    return `mfa:${this.store.digest(handle)}`;
  }
}
