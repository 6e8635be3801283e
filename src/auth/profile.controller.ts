import { ArgumentsHost, Catch, Controller, ExceptionFilter, Get, Res, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import { AuthError } from '../common/errors';
import { escapeHtml, htmlPage } from '../common/html';
import { CurrentPrincipal, Principal } from '../common/principal';
import { SettingsService } from '../settings/settings.service';

/** Browsers that are not logged in are sent to the login page (or LOGIN_REDIRECT_OVERRIDE) instead of a 401. */
@Catch(AuthError)
export class LoginRedirectFilter implements ExceptionFilter {
  constructor(private readonly settings: SettingsService) {}

  catch(exception: AuthError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const override = this.settings.get('LOGIN_REDIRECT_OVERRIDE');
    const reason = typeof exception.extra.reason === 'string' ? `&reason=${encodeURIComponent(exception.extra.reason)}` : '';
    res.redirect(302, override || `/api/login/?next=${encodeURIComponent('/accounts/profile/')}${reason}`);
  }
}

/** `/accounts/profile/`, where a successful login lands (Django's default LOGIN_REDIRECT_URL). */
@Controller('accounts')
export class ProfileController {
  @Get('profile')
  @UseFilters(LoginRedirectFilter)
  profile(@CurrentPrincipal() principal: Principal, @Res() res: Response) {
    const user = principal.user;
    const body =
      `<main class="profile"><h1>${escapeHtml(user.username)}</h1>` +
      `<p>Logged in as <strong>${escapeHtml(user.username)}</strong>.</p>` +
      '<form method="get" action="/api/logout/"><input type="hidden" name="next" value="/api/login/"><button type="submit">Log out</button></form>' +
      '</main>';
    res.status(200).type('text/html; charset=utf-8').send(htmlPage('Profile · Automation Service', body));
  }
}
