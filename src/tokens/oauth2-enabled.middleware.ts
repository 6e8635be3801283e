import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { APP_CONFIG, AppConfig } from '../config/app-config';

/**
 * The release without OAuth 2 (SPEC §6): the token, application and `/api/o/` routes answer 404 to
 * everyone, before authentication runs, exactly as routes that do not exist. Nest middleware sees the
 * raw Node request and response; the pipeline's headers are already on the response.
 */
@Injectable()
export class OAuth2EnabledMiddleware implements NestMiddleware {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  use(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
    if (this.config.oauth2ProviderEnabled) return next();
    const body = JSON.stringify({ detail: 'Not found.' });
    res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }
}
