import { createParamDecorator, ExecutionContext } from '@nestjs/common';

// The trace type and NO_REQUEST are defined in database/ (the lowest part that logs for a request) and
// re-exported here, where the rest of the service imports them; see database/request-trace.ts.
import { NO_REQUEST, type RequestTrace } from '../database/request-trace';
import type { Account, Principal } from './principal';

export { NO_REQUEST, type RequestTrace };

/** The authenticated user of the request a trace was made for (SPEC §23's actor), beside the trace, not in it. */
const actors = new WeakMap<RequestTrace, Account>();

/**
 * The trace of a request: its id as the pipeline set it (Fastify's `request.id`, from `requestIdOf`). It also
 * carries, out of sight of the log lines it is spread into, the user the request was authenticated as, except
 * on `/api/o/*` (AWX records no actor for changes made there).
 */
export function traceOf(req: { id?: string; user?: unknown; url?: string }): RequestTrace {
  if (!req.id) return NO_REQUEST;
  const trace = { request_id: req.id };
  const principal = req.user as Principal | undefined;
  if (principal?.user && !req.url?.startsWith('/api/o/')) actors.set(trace, principal.user);
  return trace;
}

/** The user who made the change a trace's request made, or undefined (anonymous, `/api/o/*`, a command, a sweep). */
export function actorOf(trace: RequestTrace): Account | undefined {
  return actors.get(trace);
}

/** A route parameter: the trace of the request being served (`@CurrentTrace() trace: RequestTrace`). */
export const CurrentTrace = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestTrace => traceOf(ctx.switchToHttp().getRequest()));
