import { createParamDecorator, ExecutionContext } from '@nestjs/common';

// The trace type and NO_REQUEST are defined in database/ (the lowest part that logs for a request) and
// re-exported here, where the rest of the service imports them; see database/request-trace.ts.
import { NO_REQUEST, type RequestTrace } from '../database/request-trace';

export { NO_REQUEST, type RequestTrace };

/** The trace of a request: its id as the pipeline set it (Fastify's `request.id`, from `requestIdOf`). */
export function traceOf(req: { id?: string }): RequestTrace {
  return req.id ? { request_id: req.id } : NO_REQUEST;
}

/** A route parameter: the trace of the request being served (`@CurrentTrace() trace: RequestTrace`). */
export const CurrentTrace = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestTrace => traceOf(ctx.switchToHttp().getRequest()));
