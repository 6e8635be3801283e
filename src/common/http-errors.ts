import { HttpException } from '@nestjs/common';
import { AuthError, DomainError, ErrorCode, Throttled } from './errors';

/** The one table from error codes to HTTP statuses (SPEC §1). */
const STATUS: Record<ErrorCode, number> = {
  invalid: 400,
  not_authenticated: 401,
  invalid_credentials: 401,
  basic_disabled: 401,
  local_auth_disabled: 401,
  invalid_token: 401,
  token_expired: 401,
  session_ended: 401,
  mfa_required: 401,
  account_expired: 401,
  user_disabled: 401,
  permission_denied: 403,
  insufficient_scope: 403,
  not_found: 404,
  not_acceptable: 406,
  too_large: 413,
  unsupported_media_type: 415,
  throttled: 429,
  unavailable: 503,
};

const TOO_LARGE = { detail: 'Request body is too large.' };

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * How an error is answered over HTTP: its status, the headers that go with it (the 401 challenge,
 * which is never `Basic` so browsers cache nothing; insufficient_scope; Retry-After) and its JSON body.
 * Returns undefined for an error that is a bug, not an answer (the caller logs it and sends a 500).
 */
export function httpAnswer(error: unknown, oauth2Enabled: boolean): HttpAnswer | undefined {
  if (error instanceof DomainError) {
    const status = STATUS[error.code];
    const headers: Record<string, string> = {};
    if (status === 401) headers['WWW-Authenticate'] = challenge(error, oauth2Enabled);
    if (error.code === 'insufficient_scope') headers['WWW-Authenticate'] = 'Bearer realm="api", error="insufficient_scope", scope="write"';
    if (error instanceof Throttled && error.retryAfter !== null) headers['Retry-After'] = String(error.retryAfter);
    return { status, headers, body: error.body() };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    return { status, headers: {}, body: status === 413 ? TOO_LARGE : frameworkBody(error) };
  }
  return serverErrorOf(error);
}

function challenge(error: DomainError, oauth2Enabled: boolean): string {
  if (!oauth2Enabled) return 'Session realm="api"';
  if (error instanceof AuthError && (error.code === 'invalid_token' || error.code === 'token_expired')) {
    const description = error.code === 'token_expired' ? 'The access token expired' : 'The access token is invalid';
    return `Bearer realm="api", error="invalid_token", error_description="${description}"`;
  }
  return 'Bearer realm="api"';
}

/** Nest's own exceptions (an unmatched route, a body too large): `{statusCode, message}` becomes `{detail}`. */
function frameworkBody(exception: HttpException): Record<string, unknown> {
  const body = exception.getResponse();
  if (typeof body === 'string') return { detail: body };
  const obj = body as Record<string, unknown>;
  if ('detail' in obj || !('statusCode' in obj)) return obj;
  const message = Array.isArray(obj.message) ? obj.message.join(' ') : obj.message;
  // Unmatched routes: Nest says "Cannot GET /x"; answer like every other 404.
  if (obj.statusCode === 404 && typeof message === 'string' && message.startsWith('Cannot ')) return { detail: 'Not found.' };
  return { detail: typeof message === 'string' ? message : exception.message };
}

/** Errors the HTTP server itself raises before a route runs (a body over the limit, a malformed request line). */
function serverErrorOf(error: unknown): HttpAnswer | undefined {
  const e = error as { statusCode?: unknown; code?: unknown };
  if (typeof e?.code !== 'string' || !e.code.startsWith('FST_') || typeof e.statusCode !== 'number') return undefined;
  if (e.statusCode < 400 || e.statusCode >= 500) return undefined;
  if (e.statusCode === 413) return { status: 413, headers: {}, body: TOO_LARGE };
  return { status: e.statusCode, headers: {}, body: { detail: 'Bad request.' } };
}
