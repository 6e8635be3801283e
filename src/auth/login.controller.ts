import { Controller, Get, Inject, Logger, Post, Req, Res } from '@nestjs/common';
import { CreatesSession } from '../sessions/session-limit.interceptor';
import { clientIp } from '../common/client-ip';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AuthError, ServiceUnavailable, Throttled } from '../common/errors';
import { LogoutRedirects } from '../common/logout-redirects';
import { Public } from '../common/public.decorator';
import { SESSION_END_MESSAGES, isSessionEndReason } from '../sessions/session-end-reason';
import { SessionCookies } from '../sessions/session-cookies';
import { SessionsService } from '../sessions/sessions.service';
import type { FormProof } from './local.strategy';
import { authenticateWith } from '../common/authenticator';
import { SessionLogin } from '../sessions/session-login.service';
import { CsrfService } from '../sessions/csrf.service';
import { CONSENT_ACCEPTED, CONSENT_FIELD, CONSENT_MISSING } from './login-page';
import { LoginPages } from './login-pages';
import { SettingsService } from '../settings/settings.service';
import { safeNext } from '../common/safe-redirect';
import { LOGIN_FAILED, loginTarget } from './login-outcome';
import { SecondStep } from './second-step.service';
import { traceOf } from '../common/request-context';


/** `/api/login/` and `/api/logout/` (seed §5.1, SPEC §2): plain HTML and redirects, not JSON. */
@Controller('api')
export class LoginController {
  private readonly logger = new Logger('auth');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly csrf: CsrfService,
    private readonly sessionLogin: SessionLogin,
    private readonly sessions: SessionsService,
    private readonly cookies: SessionCookies,
    private readonly pages: LoginPages,
    private readonly settings: SettingsService,
    private readonly logoutRedirects: LogoutRedirects,
    private readonly secondStep: SecondStep,
  ) {}

  @Public()
  @Get('login')
  async form(@Req() req: Request, @Res() res: Response) {
    if (!acceptsHtml(req)) return res.code(406).send();
    const query = req.query as Record<string, unknown>;
    const message =
      (await this.endedSessionMessage(req)) ?? reasonFromQuery(query.reason) ?? this.pages.errorMessage(query.sso_error);
    const next = typeof query.next === 'string' ? query.next : '';
    this.pages.send(req, res, 200, { next, message });
  }

  @Public()
  @Post('login')
  @CreatesSession()
  async login(@Req() req: Request, @Res() res: Response) {
    this.csrf.enforce(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = typeof body.next === 'string' ? body.next : '';
    // SPEC §22's click-through, before any password is read: nothing counted, nothing recorded.
    if (this.settings.get<boolean>('LOGIN_CONSENT_REQUIRED') && body[CONSENT_FIELD] !== CONSENT_ACCEPTED) {
      return this.pages.send(req, res, 400, { next, message: CONSENT_MISSING });
    }
    let proof: FormProof;
    try {
      // passport-local (LocalStrategy): no field, or a field that is not text, is no credential: a wrong password.
      if (typeof body.username !== 'string' || typeof body.password !== 'string') throw new AuthError('invalid_credentials');
      proof = (await authenticateWith<FormProof>(['local'], req, res)) ?? failed();
    } catch (err) {
      if (!(err instanceof AuthError) && !(err instanceof Throttled) && !(err instanceof ServiceUnavailable)) throw err;
      const again = (status: number, message: string) => this.pages.send(req, res, status, { next, message });
      // A directory that cannot be reached (SPEC §14): the page again, its detail in the alert, 503.
      if (err instanceof ServiceUnavailable) return again(503, err.detail);
      if (err instanceof Throttled) {
        if (err.retryAfter !== null) res.header('Retry-After', String(err.retryAfter));
        return again(429, err.detail);
      }
      return again(401, FORM_REFUSALS[err.code] ?? LOGIN_FAILED);
    }
    // A user with a second factor, or one MFA_REQUIRED_FOR names, gets no session yet (SPEC §16).
    const { user, secondStep, source } = proof;
    if (secondStep) return this.secondStep.begin(req, res, user, next, secondStep, source);
    await this.sessionLogin.start(req, res, user, 'session', { source });
    res.code(302).header('Location', loginTarget(next, this.config)).type('text/html; charset=utf-8').send('');
  }

  @Public()
  @Get('logout')
  logoutByGet(@Req() req: Request, @Res() res: Response) {
    return this.logout(req, res, false);
  }

  @Public()
  @Post('logout')
  logoutByPost(@Req() req: Request, @Res() res: Response) {
    return this.logout(req, res, true);
  }

  private async logout(req: Request, res: Response, checkCsrf: boolean): Promise<void> {
    // A logged-in browser must prove the POST is its own; GET stays a plain link, as in AWX.
    if (checkCsrf && (await this.presentsLiveSession(req))) this.csrf.enforce(req);
    const ended = await this.sessionLogin.endPresented(req, 'logged_out', { logout: true });
    const { user } = ended ?? {};
    if (user) this.logger.log({ event: 'logout', user_id: user.id, username: user.username, client_ip: clientIp(req), ...traceOf(req) });
    this.cookies.clear(res);
    const next = safeNext((req.query as Record<string, unknown>).next ?? (req.body as Record<string, unknown> | undefined)?.next, this.ownOrigin());
    // Single logout (SPEC §17): a session an identity provider made ends here first, then at the provider.
    const provider = ended ? await this.logoutRedirects.after({ sessionId: ended.session.id, userId: ended.user.id, next: next ?? undefined }, traceOf(req)) : null;
    res.code(302).header('Location', provider ?? next ?? '/api/').send('');
  }

  private async presentsLiveSession(req: Request): Promise<boolean> {
    const token = req.cookies?.[this.cookies.name];
    if (typeof token !== 'string' || !token) return false;
    const found = await this.sessions.resolve(token);
    return !!found && !this.sessions.validate(found.session, found.user);
  }

  /** The login page tells a browser whose session was ended why (SPEC §13). */
  private async endedSessionMessage(req: Request): Promise<string | undefined> {
    const token = req.cookies?.[this.cookies.name];
    if (typeof token !== 'string' || !token) return undefined;
    const found = await this.sessions.resolve(token);
    if (!found) return undefined;
    const reason = this.sessions.validate(found.session, found.user);
    return reason ? SESSION_END_MESSAGES[reason] : undefined;
  }

  private ownOrigin(): string {
    return new URL(this.config.publicUrl).origin;
  }
}

/** The form's alert for a refusal that may say more than §2's one message (SPEC §22: only after the password proved the user). */
const FORM_REFUSALS: Partial<Record<string, string>> = {
  local_auth_disabled: 'Local authentication is disabled.',
  account_expired: 'Your account has expired. Contact your administrator.',
  user_disabled: 'Your account is disabled. Contact your administrator.',
};

function failed(): never {
  throw new AuthError('invalid_credentials');
}

function reasonFromQuery(reason: unknown): string | undefined {
  return isSessionEndReason(reason) ? SESSION_END_MESSAGES[reason] : undefined;
}

/** No Accept header, or one that allows HTML, gets the page; anything else is 406 (AWX). */
function acceptsHtml(req: Request): boolean {
  const accept = req.headers.accept;
  if (!accept) return true;
  return accept.split(',').some((part) => {
    const type = part.split(';')[0].trim().toLowerCase();
    return type === '*/*' || type === 'text/*' || type === 'text/html';
  });
}
