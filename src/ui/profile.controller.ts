import { Controller, Get, Inject, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { CurrentPrincipal, Principal } from '../common/principal';
import { Clock } from '../common/clock';
import { CsrfService } from '../sessions/csrf.service';
import { SettingsService } from '../settings/settings.service';
import { AccountPolicy } from '../users/account-policy';
import { LoginMethods } from '../users/login-methods';
import { LoginRedirectFilter } from './login-redirect.filter';
import { renderProfilePage } from './profile-page';
import { AuthenticationEventsService } from '../authentication-events/authentication-events.service';

/** `/accounts/profile/`, where a successful login lands (Django's default LOGIN_REDIRECT_URL). */
@Controller('accounts')
export class ProfileController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly policy: AccountPolicy,
    private readonly methods: LoginMethods,
    private readonly csrf: CsrfService,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly events: AuthenticationEventsService,
  ) {}

  @Get('profile')
  @UseFilters(LoginRedirectFilter)
  async profile(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response) {
    const user = principal.user;
    // SPEC §6 and §13: no Tokens tab without OAuth 2, nor for external users unless they may hold tokens.
    const showTokens = this.config.oauth2ProviderEnabled && this.policy.mayHoldTokens(user);
    // The session strategy has just slid the session and said for how long; the idle warning starts from it.
    const timeout = principal.method === 'session' ? Number(res.getHeader('Session-Timeout')) : NaN;
    const notice = principal.method === 'session' ? await this.events.loginNotice(principal) : undefined;
    const previous = notice?.previous_login as { timestamp: string; ip_address: string | null } | null | undefined;
    const html = renderProfilePage({
      user,
      account: this.methods.describe(user),
      csrfToken: this.csrf.ensureCookie(req, res),
      showTokens,
      showSecurity: this.methods.of(user).provesPassword,
      sessionTimeout: Number.isFinite(timeout) ? timeout : undefined,
      tokenExpiryWarning: this.settings.get('TOKEN_EXPIRY_WARNING_SECONDS'),
      now: this.clock.now(),
      previousLogin: notice === undefined ? undefined : previous ? { at: previous.timestamp, address: previous.ip_address } : null,
      failedSincePrevious: notice?.failed_since_previous as number | undefined,
    });
    res.code(200).type('text/html; charset=utf-8').send(html);
  }
}
