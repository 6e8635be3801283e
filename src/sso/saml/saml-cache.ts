import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { PendingStateService } from '../../pending-state/pending-state.service';

/** node-saml's request-id cache (InResponseTo) on the shared database, one namespace per IdP. */
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
