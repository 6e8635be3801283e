import type { IncomingHttpHeaders } from 'node:http';

const QUIET = Symbol('quietSession');

type Marked = { [QUIET]?: boolean };

/**
 * A request that must not slide its session (SPEC §2): one carrying `X-WS-Session-Quiet`, or one
 * on a route marked by `quietSession` (the session event stream, which a browser's EventSource
 * cannot add headers to, and which would otherwise keep an idle page signed in for ever).
 */
export function isQuietRequest(req: { headers: IncomingHttpHeaders; raw?: object }): boolean {
  return req.headers['x-ws-session-quiet'] !== undefined || (req as Marked)[QUIET] === true || (req.raw as Marked | undefined)?.[QUIET] === true;
}

/** Middleware marking every request of its routes quiet (Nest middleware sees the raw Node request). */
export function quietSession(req: object, _res: unknown, next: () => void): void {
  (req as Marked)[QUIET] = true;
  next();
}
