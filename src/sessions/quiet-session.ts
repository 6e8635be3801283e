import type { IncomingHttpHeaders } from 'node:http';
import { SESSION_EVENTS_PATH } from './session-events.controller';

/** The session event stream, with and without its trailing slash (the latter is redirected first). */
const QUIET_PATHS = new Set([`/${SESSION_EVENTS_PATH}/`, `/${SESSION_EVENTS_PATH}`]);

/**
 * A request that must not slide its session (SPEC §2): one carrying `X-WS-Session-Quiet`, or a GET of
 * the session event stream (which a browser's EventSource cannot add headers to, and which would
 * otherwise keep an idle page signed in for ever). Decided from the request itself, so no middleware
 * runs on every request to mark the stream's.
 */
export function isQuietRequest(req: { headers: IncomingHttpHeaders; method?: string; url?: string }): boolean {
  if (req.headers['x-ws-session-quiet'] !== undefined) return true;
  if (req.method !== 'GET' || !req.url) return false;
  const query = req.url.indexOf('?');
  return QUIET_PATHS.has(query === -1 ? req.url : req.url.slice(0, query));
}
