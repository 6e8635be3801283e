import type { ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { setupOpenApi } from './api/openapi';
import { AuthMetrics } from './common/auth-metrics';
import { registerCookies } from './common/cookies';
import { ApiRequest, apiResponseClass, sendHeldEndsOn } from './common/api-response';
import { BODY_LIMIT, bodyParsers, emptyBody, requestIdOf, requestMetrics, responseHeaderSets, trailingSlash } from './common/http-pipeline';
import { HttpExceptionFilter } from './common/http-exception.filter';
import { DatabaseHealth } from './database/database-health';

/**
 * The HTTP server: Nest on Fastify. Measured on this service (docs/decisions.md, "The front door"),
 * the Express adapter's own pipeline capped a public ping at about a tenth of a bare node:http route;
 * Fastify's routing and reply path cost several times less, and every authenticated route inherits it.
 */
export function httpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    trustProxy: config.trustedProxies.length ? config.trustedProxies : false,
    bodyLimit: BODY_LIMIT,
    // "/api/v2/me/" reaches the route Nest registers as "/api/v2/me"; slash-less paths are redirected first.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    return503OnClosing: true,
    genReqId: requestIdOf,
    // Every answer's headers are added by the response class when its head is written (common/api-response.ts).
    http: { IncomingMessage: ApiRequest, ServerResponse: apiResponseClass(responseHeaderSets(config)) as typeof ServerResponse },
  });
}

/**
 * The production HTTP pipeline, shared by main.ts and every e2e test so tests exercise exactly
 * what users get. The app must be created on `httpAdapter(config)` with `bodyParser: false`.
 */
export async function setupApp(nestApp: INestApplication): Promise<NestFastifyApplication> {
  const app = nestApp as NestFastifyApplication;
  const config = app.get<AppConfig>(APP_CONFIG);
  const fastify = app.getHttpAdapter().getInstance();
  sendHeldEndsOn(fastify.server);
  fastify.addHook('onRequest', trailingSlash);
  fastify.addHook('preHandler', emptyBody);
  fastify.addHook('onResponse', requestMetrics(app.get(AuthMetrics)));
  bodyParsers(fastify);
  registerCookies(fastify);
  app.useGlobalFilters(new HttpExceptionFilter(config, app.get(DatabaseHealth)));
  setupOpenApi(app, config);
  return app;
}
