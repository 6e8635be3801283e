import { Injectable } from '@nestjs/common';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { LoginProviders } from '../common/login-providers';
import { CsrfService } from '../sessions/csrf.service';
import { SettingsService } from '../settings/settings.service';
import { LoginNotice, sendLoginPage } from './login-page';

/** The settings of SPEC §22's notice, as the login page shows them. */
export function loginNotice(settings: SettingsService): LoginNotice {
  return {
    text: settings.get<string>('CUSTOM_LOGIN_INFO'),
    logo: settings.get<string>('CUSTOM_LOGO'),
    consentRequired: settings.get<boolean>('LOGIN_CONSENT_REQUIRED'),
  };
}

/** Every answer that is the login page (the form, a refusal, an expired second step): one CSRF cookie, the SSO buttons, the notice. */
@Injectable()
export class LoginPages {
  constructor(
    private readonly csrf: CsrfService,
    private readonly providers: LoginProviders,
    private readonly settings: SettingsService,
  ) {}

  /** The text of an SSO failure code the page was sent back with. */
  errorMessage(code: unknown): string | undefined {
    return this.providers.errorMessage(code);
  }

  send(req: Request, res: Response, status: number, page: { next: string; message?: string }): void {
    const csrfToken = this.csrf.ensureCookie(req, res);
    sendLoginPage(res, status, { csrfToken, ...page, providers: this.providers.list(), notice: loginNotice(this.settings) });
  }
}
