import { randomUUID } from 'node:crypto';
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppConfig } from '../config/app-config';
import { requestContext } from './request-context';

export const NO_CACHE = 'max-age=0, no-cache, no-store, must-revalidate, private';
const REQUEST_ID = /^[0-9a-f]{32}$/;

/** Paths served as API/auth responses: never cached, always slash-terminated. */
function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path.startsWith('/sso/') || path.startsWith('/accounts/');
}

/**
 * Request id, timing and the headers every response carries (SPEC §1). Headers that depend on the
 * end of the request are written at the last moment, by wrapping writeHead.
 */
export function requestHeaders(config: AppConfig): RequestHandler {
  return (req, res, next) => {
    const incoming = String(req.headers['x-api-request-id'] ?? '').toLowerCase();
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID().replace(/-/g, '');
    const startedAt = process.hrtime.bigint();
    res.setHeader('X-API-Request-Id', requestId);
    res.setHeader('Access-Control-Expose-Headers', 'X-API-Request-Id');
    res.setHeader('X-API-Node', config.nodeName);
    res.setHeader('X-API-Product-Name', config.productName);
    res.setHeader('Content-Language', 'en');
    res.setHeader('Vary', 'Cookie, Accept-Language, Origin');
    if (isApiPath(req.path)) res.setHeader('Cache-Control', NO_CACHE);
    const writeHead = res.writeHead;
    res.writeHead = function patchedWriteHead(this: Response, ...args: unknown[]) {
      if (!this.headersSent) {
        const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
        this.setHeader('X-API-Total-Time', `${seconds.toFixed(3)}s`);
      }
      return (writeHead as (...a: unknown[]) => Response).apply(this, args);
    } as typeof res.writeHead;
    requestContext.run({ requestId, startedAt }, next);
  };
}

/** Every API path ends in "/": GET/HEAD get 301 (as Django's APPEND_SLASH), other methods 308 to keep the body. */
export function trailingSlash(): RequestHandler {
  return (req, res, next) => {
    // The OpenAPI page's own assets (swagger-ui.css, …) are files, not API paths.
    if (!isApiPath(req.path) || req.path.endsWith('/') || req.path.startsWith('/api/swagger/')) return next();
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    const status = req.method === 'GET' || req.method === 'HEAD' ? 301 : 308;
    res.status(status).setHeader('Location', `${req.path}/${query}`);
    res.end();
  };
}

const FORM_PATHS = [/^\/api\/login\/$/, /^\/api\/logout\/$/, /^\/api\/o\//, /^\/sso\//];
const BODY_LIMIT = '1mb';

/**
 * Body parsing with the content-type rules of SPEC §1: JSON for the API, form-encoded for the
 * login, OAuth and SSO endpoints, 415 for anything else; parse errors and oversized bodies are 4xx JSON.
 */
export function bodyParsing(): RequestHandler[] {
  const json = express.json({ limit: BODY_LIMIT, type: () => true });
  const form = express.urlencoded({ limit: BODY_LIMIT, extended: false, parameterLimit: 100, type: () => true });
  const chooser: RequestHandler = (req, res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody) {
      req.body = {};
      return next();
    }
    const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    const formPath = FORM_PATHS.some((re) => re.test(req.path));
    if (type === 'application/json' && !formPath) return json(req, res, next);
    if (type === 'application/x-www-form-urlencoded' && formPath) return form(req, res, next);
    res.status(415).json({ detail: `Unsupported media type "${type || 'none'}" in request.` });
  };
  return [chooser];
}

/** Errors raised by the body parsers above, which run before Nest's exception filter can see them. */
export function bodyErrors() {
  return (err: { type?: string; status?: number; message?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (!err || res.headersSent) return next(err);
    if (err.type === 'entity.too.large') return res.status(413).json({ detail: 'Request body is too large.' });
    if (err.type === 'entity.parse.failed') return res.status(400).json({ detail: `JSON parse error - ${err.message}` });
    if (err.status && err.status >= 400 && err.status < 500) {
      return res.status(err.status).json({ detail: err.message || 'Bad request.' });
    }
    return next(err);
  };
}

/** Request latency by route pattern (never the concrete path, so ids do not explode the label set). */
export function requestMetrics(metrics: { requestDuration: { observe(labels: Record<string, string>, v: number): void } }): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // A server-sent event stream lasts as long as the page stays open: not a latency worth a bucket.
      if (String(res.getHeader('Content-Type') ?? '').startsWith('text/event-stream')) return;
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      metrics.requestDuration.observe({ method: req.method, route, status: String(res.statusCode) }, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
