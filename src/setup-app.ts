import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import helmet from 'helmet';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { setupOpenApi } from './api/openapi';
import { AuthMetrics } from './common/auth-metrics';
import { bodyErrors, bodyParsing, requestHeaders, requestMetrics, trailingSlash } from './common/http-pipeline';
import { HttpExceptionFilter } from './common/http-exception.filter';

/**
 * The production HTTP pipeline, shared by main.ts and every e2e test so tests exercise exactly
 * what users get. The app must be created with `bodyParser: false`.
 */
export function setupApp(nestApp: INestApplication): INestApplication {
  const app = nestApp as NestExpressApplication;
  const config = app.get<AppConfig>(APP_CONFIG);
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustedProxies.length ? config.trustedProxies : false);
  app.use(requestHeaders(config));
  app.use(requestMetrics(app.get(AuthMetrics)));
  app.use(
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
    }),
  );
  app.use(trailingSlash());
  app.use(cookieParser());
  for (const handler of bodyParsing()) app.use(handler);
  app.use(bodyErrors());
  app.useGlobalFilters(new HttpExceptionFilter(config));
  setupOpenApi(app, config);
  app.enableShutdownHooks();
  return app;
}
