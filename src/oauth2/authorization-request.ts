import type { Application } from '../tokens/application.entity';
import { redirectUriList } from '../tokens/redirect-uris';
import { DEFAULT_SCOPE, parseScope } from '../tokens/scopes';

export type ResponseType = 'code' | 'token';

/** What a valid authorization request asks for, once client and redirect URI are trusted. */
export interface AuthorizationRequest {
  application: Application;
  redirectUri: string;
  redirectUriGiven: boolean;
  responseType: ResponseType;
  scope: string;
  state?: string;
  codeChallenge?: string;
}

/** The parameters carried through the consent form, exactly as the client sent them. */
export const AUTHORIZATION_PARAMETERS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

/**
 * The client or the redirect URI cannot be trusted: RFC 6749 §4.1.2.1 forbids redirecting, so the
 * error is shown to the user as a page.
 */
export class AuthorizationErrorPage extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

/** Any other error: sent back to the client's redirect URI (query for code, fragment for implicit). */
export class AuthorizationErrorRedirect extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly redirectUri: string,
    readonly inFragment: boolean,
    readonly state?: string,
  ) {
    super(description);
  }
}

/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is always 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function single(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Validates an authorization request in the order RFC 6749 §4.1.2.1 implies: first what decides
 * whether we may redirect at all (client, redirect URI), then everything else as a redirect.
 */
export function checkAuthorizationRequest(params: Record<string, unknown>, application: Application | null): AuthorizationRequest {
  for (const name of ['client_id', 'redirect_uri']) {
    if (Array.isArray(params[name])) throw new AuthorizationErrorPage('invalid_request', `The ${name} parameter is repeated.`);
  }
  if (!single(params, 'client_id')) throw new AuthorizationErrorPage('invalid_request', 'The client_id parameter is missing.');
  if (!application) throw new AuthorizationErrorPage('invalid_client', 'The client_id does not name a registered application.');
  const registered = redirectUriList(application.redirectUris);
  const given = single(params, 'redirect_uri');
  // Exact string comparison (RFC 9700 §2.1): no normalisation, no prefix or pattern matching.
  if (given !== undefined && !registered.includes(given)) {
    throw new AuthorizationErrorPage('invalid_request', 'The redirect_uri does not match any URI registered for this application.');
  }
  if (given === undefined && registered.length !== 1) {
    throw new AuthorizationErrorPage('invalid_request', 'The redirect_uri parameter is required for this application.');
  }
  const redirectUri = given ?? registered[0];
  const rawType = single(params, 'response_type');
  const state = typeof params.state === 'string' ? params.state : undefined;
  const fail = (error: string, description: string): never => {
    throw new AuthorizationErrorRedirect(error, description, redirectUri, rawType === 'token', state);
  };
  const repeated = Object.keys(params).find((name) => Array.isArray(params[name]));
  if (repeated) fail('invalid_request', `The ${repeated} parameter is repeated.`);
  if (!rawType) fail('invalid_request', 'The response_type parameter is missing.');
  if (rawType !== 'code' && rawType !== 'token') fail('unsupported_response_type', 'The response_type must be code or token.');
  const responseType = rawType as ResponseType;
  const expected = responseType === 'code' ? 'authorization-code' : 'implicit';
  if (application.authorizationGrantType !== expected) fail('unauthorized_client', `This application may not use response_type ${responseType}.`);
  const rawScope = single(params, 'scope');
  const scope = rawScope === undefined ? DEFAULT_SCOPE : parseScope(rawScope);
  if (!scope) fail('invalid_scope', "The scope must be 'read', 'write' or 'read write'.");
  let codeChallenge: string | undefined;
  if (responseType === 'code') {
    codeChallenge = single(params, 'code_challenge');
    const method = single(params, 'code_challenge_method');
    if (codeChallenge === undefined && application.clientType === 'public') fail('invalid_request', 'Public clients must use PKCE (code_challenge).');
    // A challenge without a method means "plain" (RFC 7636 §4.3), which we refuse like an explicit plain.
    if (codeChallenge !== undefined && method !== 'S256') fail('invalid_request', 'The code_challenge_method must be S256.');
    if (codeChallenge !== undefined && !S256_CHALLENGE.test(codeChallenge)) fail('invalid_request', 'The code_challenge is not a valid S256 challenge.');
  }
  return { application, redirectUri, redirectUriGiven: given !== undefined, responseType, scope: scope!, state, codeChallenge };
}

/** Adds the response parameters to the redirect URI: in the query (code) or the fragment (implicit). */
export function redirectWith(redirectUri: string, values: Record<string, string | undefined>, inFragment: boolean): string {
  const url = new URL(redirectUri);
  const entries = Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined);
  if (inFragment) url.hash = new URLSearchParams(entries).toString();
  else for (const [name, value] of entries) url.searchParams.append(name, value);
  return url.toString();
}
