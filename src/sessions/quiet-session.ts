import type { NextFunction, Request, Response } from 'express';

const QUIET = Symbol('quietSession');

/**
 * A request that must not slide its session (SPEC §2): one carrying `X-WS-Session-Quiet`, or one
 * on a route marked by `quietSession` (the session event stream, which a browser's EventSource
 * cannot add headers to, and which would otherwise keep an idle page signed in for ever).
 */
export function isQuietRequest(req: Request): boolean {
  return req.headers['x-ws-session-quiet'] !== undefined || (req as Request & { [QUIET]?: boolean })[QUIET] === true;
}

/** Middleware marking every request of its routes quiet. */
export function quietSession(req: Request, _res: Response, next: NextFunction): void {
  (req as Request & { [QUIET]?: boolean })[QUIET] = true;
  next();
}
