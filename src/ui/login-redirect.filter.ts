import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply as Response } from 'fastify';
import { AuthError } from '../common/errors';
import { SettingsService } from '../settings/settings.service';

/** Browsers that are not logged in are sent to the login page (or LOGIN_REDIRECT_OVERRIDE) instead of a 401. */
@Catch(AuthError)
export class LoginRedirectFilter implements ExceptionFilter {
  constructor(private readonly settings: SettingsService) {}

  catch(exception: AuthError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    // Back to the page that was asked for: the path of a route of this controller's pages, never a query a URL could add.
    const path = host.switchToHttp().getRequest<{ url: string }>().url.split('?')[0];
    const page = path.startsWith('/accounts/') ? path : '/accounts/profile/';
    const override = this.settings.get('LOGIN_REDIRECT_OVERRIDE');
    const reason = typeof exception.extra.reason === 'string' ? `&reason=${encodeURIComponent(exception.extra.reason)}` : '';
    res.redirect(override || `/api/login/?next=${encodeURIComponent(page)}${reason}`, 302);
  }
}
