/**
 * What a protocol service builds for each configured provider (discovery, keys, a node-saml instance),
 * built on the first use after the provider's settings changed, on whichever node serves it, and reused
 * until they change again: never per request. A provider removed from the settings is dropped at the
 * next use of any provider; a build that failed is forgotten, so the next use tries again.
 */
export class ProviderCache<T> {
  private readonly entries = new Map<string, { fingerprint: string; value: Promise<T> }>();

  /** The value for `name` under the provider's current settings (`fingerprint`); `configured` lists every provider that still exists. */
  get(name: string, fingerprint: string, configured: Iterable<string>, build: () => Promise<T>): Promise<T> {
    this.dropAllBut(new Set(configured));
    const entry = this.entries.get(name);
    if (entry && entry.fingerprint === fingerprint) return entry.value;
    const created = { fingerprint, value: build() };
    this.entries.set(name, created);
    created.value.catch(() => this.entries.get(name) === created && this.entries.delete(name));
    return created.value;
  }

  /** The providers held now (a test reads it to see a removed provider dropped). */
  names(): string[] {
    return [...this.entries.keys()];
  }

  private dropAllBut(keep: Set<string>): void {
    for (const name of this.entries.keys()) if (!keep.has(name)) this.entries.delete(name);
  }
}
