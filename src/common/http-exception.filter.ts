import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AuthError, PermissionDenied } from './errors';

/**
 * The single place where exceptions become HTTP answers: JSON `{"detail": ...}` or field errors,
 * the 401 challenge of SPEC §1, and a generic 500 whose stack stays in the log.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    if (res.headersSent) return;
    if (!(exception instanceof HttpException)) {
      this.logger.error(
        { event: 'unhandled_error', path: req.path, method: req.method, error: String((exception as Error)?.message ?? exception) },
        (exception as Error)?.stack,
      );
      res.status(500).json({ detail: 'A server error has occurred.' });
      return;
    }
    const status = exception.getStatus();
    if (status === 401) res.setHeader('WWW-Authenticate', this.challengeFor(exception));
    const retryAfter = (exception as { retryAfter?: number }).retryAfter;
    if (status === 429 && retryAfter) res.setHeader('Retry-After', String(retryAfter));
    if (exception instanceof PermissionDenied) {
      for (const [k, v] of Object.entries(exception.headers)) res.setHeader(k, v);
    }
    res.status(status).json(normaliseBody(exception));
  }

  private challengeFor(exception: HttpException): string {
    const preset = (exception as { challenge?: string }).challenge;
    if (preset) return preset;
    if (!this.config.oauth2ProviderEnabled) return 'Session realm="api"';
    if (exception instanceof AuthError && (exception.code === 'invalid_token' || exception.code === 'token_expired')) {
      return `Bearer realm="api", error="invalid_token", error_description="${exception.code === 'token_expired' ? 'The access token expired' : 'The access token is invalid'}"`;
    }
    return 'Bearer realm="api"';
  }
}

function normaliseBody(exception: HttpException): object {
  const body = exception.getResponse();
  if (typeof body === 'string') return { detail: body };
  const obj = body as Record<string, unknown>;
  if ('detail' in obj || !('statusCode' in obj)) return obj;
  // Nest's built-in exceptions: {statusCode, message, error}
  const message = Array.isArray(obj.message) ? obj.message.join(' ') : obj.message;
  // Unmatched routes: Nest says "Cannot GET /x"; answer like every other 404.
  if (obj.statusCode === 404 && typeof message === 'string' && message.startsWith('Cannot ')) return { detail: 'Not found.' };
  return { detail: typeof message === 'string' ? message : exception.message };
}
