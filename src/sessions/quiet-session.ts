import type { IncomingHttpHeaders } from 'node:http';

/** The session event stream's path (its controller's route). */
export const SESSION_EVENTS_PATH = 'api/v2/me/session/events';

/** The session event stream's route, as the router matched it (whatever the request's spelling). */
const QUIET_ROUTES = new Set([`/${SESSION_EVENTS_PATH}`, `/${SESSION_EVENTS_PATH}/`]);

/**
 * A request that must not slide its session (SPEC §2): one carrying `X-WS-Session-Quiet`, or a GET (or
 * HEAD) of the session event stream, which a browser's EventSource cannot add headers to and which would
 * otherwise keep an idle page signed in for ever. Decided from the route the router matched (so an
 * encoded path or a query string is the same route), without a middleware running on every request.
 */
export function isQuietRequest(req: { headers: IncomingHttpHeaders; method?: string; routeOptions?: { url?: string } }): boolean {
  if (req.headers['x-ws-session-quiet'] !== undefined) return true;
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const route = req.routeOptions?.url;
  return route !== undefined && QUIET_ROUTES.has(route);
}
