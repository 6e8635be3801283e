import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/**
 * What every log line written while serving a request carries (SPEC §1: its X-API-Request-Id), as
 * fields a log call spreads into its event: `this.logger.log({ event: 'x', ...trace })`.
 *
 * It is passed explicitly, from the request to the services that log for it. An AsyncLocalStorage would
 * carry it implicitly, but on Node 20 that puts a promise hook on every promise of every request; measured
 * on a ping, 15–20 % of its cost (docs/decisions.md, "The request id is passed, not ambient"). Work outside a request (the
 * command line, the background loops) passes NO_REQUEST and its lines have no request id.
 */
export interface RequestTrace {
  readonly request_id?: string;
}

/** The trace of a request: its id as the pipeline set it (Fastify's `request.id`, from `requestIdOf`). */
export function traceOf(req: { id?: string }): RequestTrace {
  return req.id ? { request_id: req.id } : NO_REQUEST;
}

/** The trace of work no request asked for (a management command, a background loop). */
export const NO_REQUEST: RequestTrace = Object.freeze({});

/** A route parameter: the trace of the request being served (`@CurrentTrace() trace: RequestTrace`). */
export const CurrentTrace = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestTrace => traceOf(ctx.switchToHttp().getRequest()));
