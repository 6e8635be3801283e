import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import type { AppConfig } from '../config/app-config';
import { BadRequest, UnsupportedMediaType } from './errors';

export const NO_CACHE = 'max-age=0, no-cache, no-store, must-revalidate, private';
export const BODY_LIMIT = 1024 * 1024;
const REQUEST_ID = /^[0-9a-f]{32}$/;

/** Paths served as API/auth responses: never cached, always slash-terminated. */
export function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path.startsWith('/sso/') || path.startsWith('/accounts/');
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The request's id (Fastify's `genReqId`): a valid incoming X-API-Request-Id is kept (lowercased), else a new one. */
export function requestIdOf(raw: IncomingMessage): string {
  const incoming = raw.headers['x-api-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming.toLowerCase()) ? incoming.toLowerCase() : randomUUID().replace(/-/g, '');
}

/**
 * Request id, timing and the headers every response carries (SPEC §1), as the first hook of every
 * request. They are set on the raw response, so they are on every answer whoever writes it (a route,
 * the error handler, a stream). X-API-Total-Time is written at the last moment, by wrapping writeHead.
 */
export function requestHeaders(config: AppConfig) {
  const fixed: [string, string][] = [
    ...securityHeaders(),
    ['Access-Control-Expose-Headers', 'X-API-Request-Id'],
    ['X-API-Node', config.nodeName],
    // What AWX sends: its clients (the awx.awx collection, the awx CLI) compare it with their own version.
    ['X-API-Product-Name', 'AWX'],
    ['X-API-Product-Version', config.productVersion],
    ['Content-Language', 'en'],
    ['Vary', 'Cookie, Accept-Language, Origin'],
  ];
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const res = reply.raw;
    const startedAt = process.hrtime.bigint();
    res.setHeader('X-API-Request-Id', request.id);
    for (const [name, value] of fixed) res.setHeader(name, value);
    if (isApiPath(pathOf(request.url))) res.setHeader('Cache-Control', NO_CACHE);
    const writeHead = res.writeHead;
    res.writeHead = function timedWriteHead(this: ServerResponse, ...args: unknown[]) {
      if (!this.headersSent) this.setHeader('X-API-Total-Time', `${(Number(process.hrtime.bigint() - startedAt) / 1e9).toFixed(3)}s`);
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof res.writeHead;
    done();
  };
}

/**
 * helmet's security headers (HSTS, X-Frame-Options DENY, nosniff, the Content-Security-Policy of the
 * pages, …). They depend on nothing in the request, so helmet runs once, at start-up, and every
 * response gets the same list: running its middleware per request cost several per cent of a request.
 */
export function securityHeaders(): [string, string][] {
  const headers: [string, string][] = [];
  const collector = { setHeader: (name: string, value: unknown) => headers.push([name, String(value)]), removeHeader: () => undefined };
  helmet({
    strictTransportSecurity: { maxAge: 15768000, includeSubDomains: false },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        formAction: ["'self'", 'http:', 'https:'],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
  })({} as IncomingMessage, collector as unknown as ServerResponse, () => undefined);
  return headers;
}

/** Every API path ends in "/": GET/HEAD get 301 (as Django's APPEND_SLASH), other methods 308 to keep the body. */
export function trailingSlash(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const path = pathOf(request.url);
  // The OpenAPI page's own assets (swagger-ui.css, …) are files, not API paths.
  if (!isApiPath(path) || path.endsWith('/') || path.startsWith('/api/swagger/')) return done();
  const status = request.method === 'GET' || request.method === 'HEAD' ? 301 : 308;
  const location = `${path}/${request.url.slice(path.length)}`;
  // The body says where it points: plain curl (no -L) shows it instead of nothing (issue 34).
  reply.code(status).header('Location', location).send({ detail: `Moved to ${location} (API paths end in a slash).` });
}

/** Requests with no body see `{}`, as the routes expect (the seed's body-less POST is a validation error, not a crash). */
export function emptyBody(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (request.body === undefined || request.body === null) request.body = {};
  done();
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const FORM_PATHS = [/^\/api\/login\/$/, /^\/api\/logout\/$/, /^\/api\/o\//, /^\/sso\//];

/**
 * Body parsing with the content-type rules of SPEC §1: JSON for the API, form-encoded for the login,
 * OAuth and SSO endpoints, 415 for anything else. Bodies over BODY_LIMIT are 413 (Fastify's limit).
 */
export function bodyParsers(fastify: FastifyInstance): void {
  const isFormPath = (request: FastifyRequest) => FORM_PATHS.some((re) => re.test(pathOf(request.url)));
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (isFormPath(request)) return done(new UnsupportedMediaType('application/json'), undefined);
    if (!(body as Buffer).length) return done(null, {});
    let parsed: unknown;
    try {
      // SPEC §1: a body that is not valid UTF-8 is malformed, not silently repaired.
      parsed = JSON.parse(UTF8.decode(body as Buffer));
    } catch (err) {
      return done(new BadRequest(`JSON parse error - ${(err as Error).message}`), undefined);
    }
    const tooDeep = fieldNestedTooDeep(parsed);
    if (tooDeep !== null) return done(new BadRequest(`${tooDeep}: nested deeper than ${MAX_BODY_DEPTH} levels of objects and arrays.`), undefined);
    done(null, parsed);
  });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    if (!isFormPath(request)) return done(new UnsupportedMediaType('application/x-www-form-urlencoded'), undefined);
    done(null, { ...parseQuery(body as string, '&', '=', { maxKeys: 100 }) });
  });
  fastify.addContentTypeParser('*', (request: FastifyRequest, _payload: IncomingMessage, done: (err: Error | null, body?: unknown) => void) => {
    if (request.headers['content-length'] === '0') return done(null, {});
    const type = String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    done(new UnsupportedMediaType(type || 'none'));
  });
}

/**
 * How deep a JSON body may nest objects and arrays, the body itself being level 1 (issue 28). V8 parses
 * any depth that fits in BODY_LIMIT, but every recursive step after it (validation, JSON.stringify) would
 * overflow the stack at some depth: a body is refused here, once, instead.
 */
export const MAX_BODY_DEPTH = 64;

/** The top-level field (or "body") whose value nests deeper than MAX_BODY_DEPTH, or null; no recursion. */
export function fieldNestedTooDeep(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: [unknown, number, string][] = Array.isArray(value)
    ? [[value, 1, 'body']]
    : Object.entries(value).map(([key, v]) => [v, 2, key] as [unknown, number, string]);
  while (stack.length) {
    const [node, depth, field] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > MAX_BODY_DEPTH) return field;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1, field]);
    }
  }
  return null;
}

/** Request latency by route pattern (never the concrete path, so ids do not explode the label set). */
export function requestMetrics(metrics: { requestDuration: { observe(labels: Record<string, string>, v: number): void } }) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    // A server-sent event stream lasts as long as the page stays open: not a latency worth a bucket.
    if (!String(reply.raw.getHeader('Content-Type') ?? '').startsWith('text/event-stream')) {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.requestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    }
    done();
  };
}
