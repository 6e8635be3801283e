import { ArgumentsHost, Catch, ExceptionFilter, Inject, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { httpAnswer } from './http-errors';

/**
 * The single place where exceptions become JSON answers (`http-errors.ts` decides status and
 * headers); anything that is not a domain or framework error is a bug: a generic 500 whose stack
 * stays in the log.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    if (res.headersSent) return;
    const answer = httpAnswer(exception, this.config.oauth2ProviderEnabled);
    if (!answer) {
      this.logger.error(
        { event: 'unhandled_error', path: req.path, method: req.method, error: String((exception as Error)?.message ?? exception) },
        (exception as Error)?.stack,
      );
      res.status(500).json({ detail: 'A server error has occurred.' });
      return;
    }
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    res.status(answer.status).json(answer.body);
  }
}
