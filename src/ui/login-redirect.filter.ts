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
    // Back to the page that was asked for (the profile, the admin page), never to anything a URL could name.
    const page = host.switchToHttp().getRequest<{ url: string }>().url.split('?')[0] === '/accounts/admin/' ? '/accounts/admin/' : '/accounts/profile/';
    const override = this.settings.get('LOGIN_REDIRECT_OVERRIDE');
    const reason = typeof exception.extra.reason === 'string' ? `&reason=${encodeURIComponent(exception.extra.reason)}` : '';
    res.redirect(override || `/api/login/?next=${encodeURIComponent(page)}${reason}`, 302);
  }
}
