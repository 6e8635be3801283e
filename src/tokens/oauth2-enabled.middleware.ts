import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { APP_CONFIG, AppConfig } from '../config/app-config';

/**
 * The release without OAuth 2 (SPEC §6): the token, application and `/api/o/` routes answer 404 to
 * everyone, before authentication runs, exactly as routes that do not exist.
 */
@Injectable()
export class OAuth2EnabledMiddleware implements NestMiddleware {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  use(_req: Request, res: Response, next: NextFunction): void {
    if (this.config.oauth2ProviderEnabled) return next();
    res.status(404).json({ detail: 'Not found.' });
  }
}
