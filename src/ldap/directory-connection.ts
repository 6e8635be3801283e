import { isIP } from 'node:net';
import type { ConnectionOptions as TlsOptions, SecureContext } from 'node:tls';
import { Client, NoSuchAttributeError, NoSuchObjectError, ResultCodeError, UndefinedTypeError } from 'ldapts';
import type { DirectoryEntry, DirectoryReader } from './group-types';
import type { DirectoryConfig, SearchScope } from './ldap-settings';

/** No URI of a directory answered, or TLS with it failed (SPEC §14: a 503, never a wrong password). */
export class DirectoryUnavailable extends Error {
  constructor(readonly directory: string, readonly reason: string) {
    super(`directory ${directory} unavailable: ${reason}`);
  }
}

/** The directory answered, but refused the service account of BIND_DN: a configuration fault, not the user's. */
export class ServiceBindRefused extends Error {
  constructor(readonly directory: string, readonly uri: string) {
    super(`directory ${directory} refused the bind DN at ${uri}`);
  }
}

const SCOPE: Record<SearchScope, 'base' | 'one' | 'sub'> = { SCOPE_BASE: 'base', SCOPE_ONELEVEL: 'one', SCOPE_SUBTREE: 'sub' };

/** Errors of the network or of TLS (as opposed to an LDAP result code, which is the directory's answer). */
export function isTransportError(err: unknown): boolean {
  return !(err instanceof ResultCodeError);
}

/** A short reason for the log and the explainer: the socket's or TLS's code, or the first line of the message. */
export function describeError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; name?: string };
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0].slice(0, 200) : String(err);
  if (err instanceof ResultCodeError) return `${e.name} (result code ${err.code})${message ? `: ${message}` : ''}`;
  return typeof e?.code === 'string' ? `${e.code}: ${message}` : message;
}

/**
 * One connection to one directory, on the URI that answered first (SPEC §14: URIs are tried in order as
 * failover), over TLS when the URI is ldaps:// or START_TLS is on, trusting the system CAs plus the
 * directory's CA_CERT (`secureContext`, made once per CA list: parsing the system bundle per login would cost more than the login), and bound as BIND_DN (or anonymously) until `bindAs` proves a user's password.
 */
export class DirectoryConnection implements DirectoryReader {
  private constructor(
    private readonly client: Client,
    readonly config: DirectoryConfig,
    readonly uri: string,
  ) {}

  /**
   * Connects to the first URI that answers; `note` hears about each one tried. Throws DirectoryUnavailable
   * when none does, ServiceBindRefused when one answers but refuses BIND_DN.
   */
  static async open(config: DirectoryConfig, secureContext: SecureContext, note: (line: string) => void): Promise<DirectoryConnection> {
    const networkMs = Math.round((config.connection.OPT_NETWORK_TIMEOUT ?? 30) * 1000);
    const operationMs = Math.round((config.connection.OPT_TIMEOUT ?? config.connection.OPT_NETWORK_TIMEOUT ?? 30) * 1000);
    let last = 'no URI configured';
    for (const uri of config.uris) {
      const url = new URL(uri);
      const tls: TlsOptions = { secureContext, host: url.hostname.replace(/^\[|\]$/g, '') };
      // SNI carries host names only (RFC 6066 §3); an address is still checked against the certificate's IP names.
      if (!isIP(tls.host!)) tls.servername = tls.host;
      // ldapts speaks TLS from the start whenever tlsOptions are given: only for ldaps://.
      const secure = url.protocol === 'ldaps:';
      const client = new Client({ url: `${url.protocol}//${url.host}`, connectTimeout: networkMs, timeout: operationMs, strictDN: false, ...(secure ? { tlsOptions: tls } : {}) });
      try {
        if (config.startTls && url.protocol === 'ldap:') await client.startTLS({ ...tls });
        // Binding (as BIND_DN, or anonymously) opens the connection now, so an unreachable URI is found here.
        await client.bind(config.bindDn, config.bindDn ? config.bindPassword : '');
        note(`Connected to ${uri}${url.protocol === 'ldaps:' ? ' (TLS)' : config.startTls ? ' (StartTLS)' : ''}${config.bindDn ? `, bound as ${config.bindDn}` : ', anonymously'}.`);
        return new DirectoryConnection(client, config, uri);
      } catch (err) {
        await client.unbind().catch(() => undefined);
        if (err instanceof ResultCodeError && err.code === 49) throw new ServiceBindRefused(config.name, uri);
        // A result code here is StartTLS refused (or the bind answered oddly): as unreachable as a closed port.
        last = `${uri}: ${describeError(err)}`;
        note(`Could not use ${last}.`);
      }
    }
    throw new DirectoryUnavailable(config.name, last);
  }

  /**
   * Proves a password by binding as `dn` (the connection then acts as that user, unless BIND_DN is set, when
   * it binds back as the service account for the group queries, as django-auth-ldap does). False for wrong
   * credentials; the directory's own words for any other refusal go to `refusal`.
   */
  async bindAs(dn: string, password: string): Promise<{ ok: true } | { ok: false; code: number; message: string }> {
    try {
      await this.client.bind(dn, password);
    } catch (err) {
      if (err instanceof ResultCodeError) return { ok: false, code: err.code, message: err.message };
      throw err;
    }
    if (this.config.bindDn) await this.client.bind(this.config.bindDn, this.config.bindPassword);
    return { ok: true };
  }

  /** `sizeLimit`: more entries than this is the directory's SizeLimitExceededError. */
  async search(base: string, scope: SearchScope, filter: string, attributes: string[], sizeLimit = 1000): Promise<DirectoryEntry[]> {
    // OPT_REFERRALS 0 (AWX's default): references to other servers are not followed, and ldapts never follows them.
    const result = await this.client.search(base, { scope: SCOPE[scope], filter, attributes, sizeLimit });
    return result.searchEntries.map((entry) => {
      const attrs: Record<string, string[]> = {};
      for (const [name, value] of Object.entries(entry)) {
        if (name === 'dn') continue;
        const values = Array.isArray(value) ? value : [value];
        attrs[name.toLowerCase()] = values.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
      }
      return { dn: entry.dn, attributes: attrs };
    });
  }

  async compare(dn: string, attribute: string, value: string): Promise<boolean> {
    try {
      return await this.client.compare(dn, attribute, value);
    } catch (err) {
      // No such group or attribute: not a member (django-auth-ldap answers the same).
      if (err instanceof NoSuchObjectError || err instanceof NoSuchAttributeError || err instanceof UndefinedTypeError) return false;
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.client.unbind().catch(() => undefined);
  }
}
