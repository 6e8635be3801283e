import type { FastifyReply as Response } from 'fastify';
import { OAuthError, ServerError } from '@node-oauth/oauth2-server';
import { DomainError } from '../common/errors';

/** RFC 6749 §5.1: token responses are never stored by caches. */
export function noStore(res: Response): void {
  res.header('Cache-Control', 'no-store');
  res.header('Pragma', 'no-cache');
}

/**
 * Writes an OAuth error as RFC 6749 §5.2 JSON. A failed client authentication is always 401 with a
 * Basic challenge (oauthlib, which AWX used, answers the same); anything that is not an OAuth error
 * is rethrown so the one exception filter decides (a 429 from throttling, or a 500 with its stack logged).
 */
export function sendOAuthError(res: Response, err: unknown): void {
  const inner = err instanceof ServerError ? (err as ServerError & { inner?: unknown }).inner : undefined;
  if (inner instanceof DomainError) throw inner;
  if (!(err instanceof OAuthError) || err instanceof ServerError) throw inner ?? err;
  const error = err as OAuthError & { name: string; code: number };
  noStore(res);
  let status = error.code;
  if (error.name === 'invalid_client') {
    status = 401;
    res.header('WWW-Authenticate', 'Basic realm="api"');
  }
  res.code(status).send({ error: error.name, error_description: error.message });
}
