import { ArgumentsHost, Catch, ExceptionFilter, Inject, Logger } from '@nestjs/common';
import { SampledLog } from './sampled-log';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DatabaseHealth } from '../database/database-health';
import { ServiceUnavailable } from './errors';
import { httpAnswer } from './http-errors';
import { traceOf } from './request-context';

/**
 * The single place where exceptions become JSON answers (`http-errors.ts` decides status and
 * headers); anything that is not a domain or framework error is a bug: a generic 500 whose stack
 * stays in the log.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly errors = new SampledLog(new Logger('http'), 'error');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly health: DatabaseHealth,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<FastifyReply>();
    const req = host.switchToHttp().getRequest<FastifyRequest>();
    if (res.sent || res.raw.headersSent) return;
    // An unreachable database is a 503 without SQL or stack, logged once per interval (database-health.ts).
    const failure = this.health.noteFailure(exception, traceOf(req)) ? new ServiceUnavailable() : exception;
    const answer = httpAnswer(failure, this.config.oauth2ProviderEnabled);
    if (!answer) {
      // The same failure on every request is one line (with its stack) a minute and a count, not a flood.
      const error = String((exception as Error)?.message ?? exception);
      const path = req.url.split('?')[0];
      this.errors.log(`${req.method} ${path} ${error}`, () => ({ event: 'unhandled_error', path, method: req.method, error, ...traceOf(req) }), Date.now(), (exception as Error)?.stack);
      res.code(500).send({ detail: 'A server error has occurred.' });
      return;
    }
    res.code(answer.status).headers(answer.headers).send(answer.body);
  }
}
