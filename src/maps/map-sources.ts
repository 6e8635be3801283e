import { Injectable } from '@nestjs/common';
import type { RuleSources } from './authentication-maps';
import type { AwxVerdicts, Claims, MapSource } from './map-contract';

/** A settings value by key: the stored one at a login, a candidate's in the dry run. */
export type SettingsView = (key: string) => unknown;

/**
 * How a family of sources reads AWX's map settings (SPEC §21): registered by the method's own module
 * (`ldap/`, `sso/`, `radius/`), so that the maps engine, the login and the dry run name no method.
 */
export interface MapSourceReader {
  /** `ldap`, `saml`, `oidc`, `radius`. */
  family: string;
  /** Whether the dry run may name this instance (`ldap:3`; any IdP name; `radius` alone has none). */
  accepts(instance: string | null): boolean;
  /** The instances in words for the errors (`ldap:default, ldap:1 … ldap:5`, `saml:<IdP>`); none: the family alone. */
  instances?: string;
  /** The AWX settings a login through `instance` reads: the dry run's candidate keys and its log. */
  keys(instance: string | null): string[];
  /**
   * What those settings say about a login with `claims`; `username` is the user's here (SPEC §21: the social
   * maps test the user's username and the email the source sent).
   */
  awxVerdicts(instance: string | null, claims: Claims, settings: SettingsView, username: string): AwxVerdicts;
  /** How groups compare (LDAP: as §14 compares DNs); exact text when absent. */
  sameGroup?(a: string, b: string): boolean;
  /** How attribute names compare (LDAP: ignoring case); exact when absent. */
  sameAttribute?(a: string, b: string): boolean;
}

/** The registry of map readers; a source tag (`ldap:1`) is parsed here. */
@Injectable()
export class MapSources implements RuleSources {
  private readonly readers = new Map<string, MapSourceReader>();

  register(reader: MapSourceReader): void {
    this.readers.set(reader.family, reader);
  }

  reader(family: string): MapSourceReader | undefined {
    return this.readers.get(family);
  }

  all(): MapSourceReader[] {
    return [...this.readers.values()];
  }

  /** `ldap:1` → its reader and source, when a registered family accepts it; else undefined. */
  parse(tag: string): { reader: MapSourceReader; source: MapSource } | undefined {
    const colon = tag.indexOf(':');
    const family = colon < 0 ? tag : tag.slice(0, colon);
    const instance = colon < 0 ? null : tag.slice(colon + 1);
    const reader = this.readers.get(family);
    if (!reader || instance === '' || !reader.accepts(instance)) return undefined;
    return { reader, source: { family, instance } };
  }

  /** An AUTHENTICATION_MAPS source: a registered family alone (all its instances), or one instance of it. */
  accepts(tag: string): boolean {
    return this.readers.has(tag) || this.parse(tag) !== undefined;
  }

  describe(): string {
    return this.all().map((r) => (r.instances ? `${r.family}, ${r.instances}` : r.family)).join(', ');
  }

  /** What the dry run takes as `source`, in words (`ldap:default, ldap:1 … ldap:5, saml:<IdP> or radius`). */
  describeInstances(): string {
    const named = this.all().map((r) => r.instances ?? r.family);
    return named.length > 1 ? `${named.slice(0, -1).join(', ')} or ${named[named.length - 1]}` : named.join('');
  }
}
