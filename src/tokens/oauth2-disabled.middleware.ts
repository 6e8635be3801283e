import { Injectable, MiddlewareConsumer, NestMiddleware, Type } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppConfig } from '../config/app-config';

/**
 * The release without OAuth 2 (SPEC §6): the token, application and `/api/o/` routes answer 404 to
 * everyone, before authentication runs, exactly as routes that do not exist. Nest middleware sees the
 * raw Node request and response; the pipeline's headers are already on the response.
 */
@Injectable()
export class OAuth2DisabledMiddleware implements NestMiddleware {
  use(_req: IncomingMessage, res: ServerResponse): void {
    const body = JSON.stringify({ detail: 'Not found.' });
    res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }
}

/**
 * Puts the 404 in front of the given controllers in the release without OAuth 2 only. With the provider
 * on (the default) no Nest middleware is registered at all, so @fastify/middie has nothing to match and
 * no request pays for it (docs/decisions.md, "What every request pays, measured").
 */
export function refuseWhenOAuth2Disabled(consumer: MiddlewareConsumer, config: AppConfig, ...controllers: Type[]): void {
  if (!config.oauth2ProviderEnabled) consumer.apply(OAuth2DisabledMiddleware).forRoutes(...controllers);
}
