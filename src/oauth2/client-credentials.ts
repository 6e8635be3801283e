import type { IncomingHttpHeaders } from 'node:http';
import { InvalidClientError, InvalidRequestError } from '@node-oauth/oauth2-server';

export interface ClientCredentials {
  clientId: string;
  clientSecret?: string;
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they are base64-encoded. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * The client's credentials at the token and revocation endpoints: HTTP Basic (which must be
 * supported) or `client_id`/`client_secret` in the body, never both (RFC 6749 §2.3). A basic
 * header here is client authentication only, never a user's.
 */
export function clientCredentials(req: { headers: IncomingHttpHeaders }, body: Record<string, string>): ClientCredentials {
  const header = req.headers.authorization;
  if (header) {
    const match = /^basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!match) throw new InvalidClientError('Invalid client: unsupported authentication scheme');
    if (body.client_secret !== undefined) throw new InvalidRequestError('Invalid request: more than one client authentication method');
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw new InvalidClientError('Invalid client: malformed credentials');
    let clientId: string;
    let clientSecret: string;
    try {
      clientId = formDecode(decoded.slice(0, colon));
      clientSecret = formDecode(decoded.slice(colon + 1));
    } catch {
      throw new InvalidClientError('Invalid client: malformed credentials');
    }
    if (body.client_id !== undefined && body.client_id !== clientId) {
      throw new InvalidRequestError('Invalid request: client_id does not match the authenticated client');
    }
    return { clientId, clientSecret: clientSecret || undefined };
  }
  if (!body.client_id) throw new InvalidClientError('Invalid client: cannot retrieve client credentials');
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

/** The client id a Basic header names, read by clientCredentials; undefined for no header, another scheme or a malformed one. */
export function basicClientId(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return clientCredentials({ headers: { authorization: header } }, {}).clientId;
  } catch {
    return undefined;
  }
}

/**
 * The form body as RFC 6749 §3.1/§3.2 reads it: a parameter sent twice is an error, and one sent
 * with an empty value counts as absent.
 */
export function formParameters(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries((raw ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(value)) throw new InvalidRequestError(`Invalid request: parameter \`${key}\` is repeated`);
    if (typeof value === 'string' && value !== '') out[key] = value;
  }
  return out;
}
