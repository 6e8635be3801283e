import { Injectable } from '@nestjs/common';
import { RequestTrace } from '../common/request-context';

/** An account change, with the trace of the request that made it (the listeners' log lines carry it). */
export type UserEvent = { trace: RequestTrace } & (
  | { type: 'password_changed'; userId: number; keepSessionId?: number }
  | { type: 'deactivated'; userId: number }
  /** An identity source refused the user's login (SPEC §21): sessions and tokens end, the account stays active. */
  | { type: 'access_revoked'; userId: number }
  | { type: 'deleted'; userId: number }
);

type Listener = (event: UserEvent) => Promise<void>;

/**
 * Lets sessions and tokens react to account changes without `users` importing them
 * (dependencies point one way). Listeners are awaited, so revocation is done before the answer.
 */
@Injectable()
export class UserEvents {
  private readonly listeners: Listener[] = [];

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
  }

  async emit(event: UserEvent): Promise<void> {
    for (const listener of this.listeners) await listener(event);
  }
}
