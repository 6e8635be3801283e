/**
 * What every log line written while serving a request carries (SPEC §1: its X-API-Request-Id), as
 * fields a log call spreads into its event: `this.logger.log({ event: 'x', ...trace })`.
 *
 * It lives here, in the lowest part that logs for a request (database/ sits below common/ and never
 * imports it: docs/architecture.md), so that DatabaseHealth can take it. common/request-context.ts
 * re-exports it beside what needs the HTTP pipeline (traceOf, @CurrentTrace); everything above
 * database/ imports it from there.
 *
 * It is passed explicitly, from the request to the services that log for it. An AsyncLocalStorage would
 * carry it implicitly, but on Node 20 that puts a promise hook on every promise of every request; measured
 * on a ping, 15–20 % of its cost (docs/decisions.md, "The request id is passed, not ambient"). Work outside a request (the
 * command line, the background loops) passes NO_REQUEST and its lines have no request id.
 */
export interface RequestTrace {
  readonly request_id?: string;
}

/** The trace of work no request asked for (a management command, a background loop). */
export const NO_REQUEST: RequestTrace = Object.freeze({});
