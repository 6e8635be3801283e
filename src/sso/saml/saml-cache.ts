import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { PendingStateService } from '../../pending-state/pending-state.service';

/**
 * node-saml's request-id cache (InResponseTo) on the shared database, one namespace per IdP: for the ids of
 * our LogoutRequests (single logout, SPEC §17). A login's AuthnRequest id travels sealed instead (SealedRequestCache).
 */
export class SamlRequestCache implements CacheProvider {
  constructor(
    private readonly store: PendingStateService,
    private readonly idp: string,
    private readonly ttlSeconds: number,
  ) {}

  private key(id: string): string | null {
    // Ids come from the (not yet verified) response: anything unlike ours cannot be pending.
    return id && id.length <= 128 ? `samlreq:${this.idp}:${id}` : null;
  }

  async saveAsync(id: string, value: string): Promise<CacheItem | null> {
    const key = this.key(id);
    if (!key || !(await this.store.add(key, `saml:${this.idp}`, value, this.ttlSeconds))) return null;
    return { value, createdAt: Date.now() };
  }

  async getAsync(id: string): Promise<string | null> {
    const key = this.key(id);
    const found = key ? await this.store.peek<string>(key) : null;
    return found ? found.data : null;
  }

  async removeAsync(id: string | null): Promise<string | null> {
    const key = id ? this.key(id) : null;
    return key && (await this.store.remove(key)) ? id : null;
  }
}

/**
 * node-saml's request-id cache for one login, storing nothing (issue 56): the AuthnRequest id is ours, chosen
 * before the request is built and sealed into the RelayState (SamlProtocol), so at the start `saveAsync` has
 * nothing to keep, and at the ACS the one pending request is the id the sealed RelayState names. Its lifetime is
 * the sealed state's (checked against the service clock when the RelayState was opened), so node-saml's own age
 * check is handed the moment of the check. Single use is SsoStarts' replay record, written after verification.
 */
export class SealedRequestCache implements CacheProvider {
  constructor(private readonly requestId: string) {}

  saveAsync(_id: string, value: string): Promise<CacheItem | null> {
    return Promise.resolve({ value, createdAt: Date.now() });
  }

  getAsync(id: string): Promise<string | null> {
    return Promise.resolve(id === this.requestId ? new Date().toISOString() : null);
  }

  removeAsync(id: string | null): Promise<string | null> {
    return Promise.resolve(id);
  }
}
