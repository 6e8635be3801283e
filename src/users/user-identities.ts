import { Injectable } from '@nestjs/common';

export type LinkedIdentity = { provider: string; uid: string };
type Lookup = (userIds: number[]) => Promise<Map<number, LinkedIdentity[]>>;

/**
 * The external identities linked to users (the `auth` field of the users API). The SSO module
 * registers the lookup at start-up, so `users` shows them without importing `sso`.
 */
@Injectable()
export class UserIdentities {
  private lookup?: Lookup;

  register(lookup: Lookup): void {
    this.lookup = lookup;
  }

  async of(userIds: number[]): Promise<Map<number, LinkedIdentity[]>> {
    return this.lookup ? this.lookup(userIds) : new Map();
  }
}
