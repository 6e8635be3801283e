import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { clearCookie, setCookie } from '../common/cookies';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { clientIp } from '../common/client-ip';
import { traceOf } from '../common/request-context';
import { MfaService } from '../mfa/mfa.service';
import { PENDING_LOGIN_SECONDS, PendingLogin, PendingLogins } from '../mfa/pending-logins.service';
import { CsrfService } from '../sessions/csrf.service';
import { SessionLogin } from '../sessions/session-login.service';
import type { User } from '../users/user.entity';
import { renderSetupPage, renderVerifyPage } from './second-step-pages';

/** The browser's handle on its pending login: HttpOnly, sent only to the second step's routes. */
export const PENDING_COOKIE = 'mfa_pending';
const PENDING_PATH = '/api/login/mfa/';

/**
 * What the login form and the second step's routes share (SPEC §16): starting a pending login in place
 * of a session, the pages, and completing the login exactly as the password form does.
 */
@Injectable()
export class SecondStep {
  private readonly logger = new Logger('auth');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly csrf: CsrfService,
    private readonly pending: PendingLogins,
    private readonly mfa: MfaService,
    private readonly sessionLogin: SessionLogin,
  ) {}

  /** The password was right and a second step is owed: a pending cookie and a page, no session. */
  async begin(req: Request, res: Response, user: User, next: string, stage: NonNullable<PendingLogin['stage']>, source: string): Promise<void> {
    const { handle, login } = await this.pending.begin(user, next, stage, clientIp(req), source);
    setCookie(res, PENDING_COOKIE, handle, { httpOnly: true, path: PENDING_PATH, maxAge: PENDING_LOGIN_SECONDS, sameSite: 'lax', secure: this.config.sessionCookieSecure });
    this.logger.log({ event: 'login_second_step', stage, user_id: user.id, username: user.username, client_ip: clientIp(req), ...traceOf(req) });
    if (stage === 'setup') return this.setupPage(req, res, user, 200);
    this.verifyPage(req, res, login, 200);
  }

  verifyPage(req: Request, res: Response, login: PendingLogin, status: number, message?: string): void {
    send(res, status, renderVerifyPage({ csrfToken: this.csrf.ensureCookie(req, res), keyOptions: login.options, message }));
  }

  /** The forced set-up: the pending secret (made now if there is none), as a QR code and as text. */
  async setupPage(req: Request, res: Response, user: User, status: number, message?: string): Promise<void> {
    const totp = (await this.mfa.pendingTotp(user)) ?? (await this.mfa.startTotp(user, traceOf(req)));
    send(res, status, renderSetupPage({ csrfToken: this.csrf.ensureCookie(req, res), secret: totp.secret, qrDataUrl: totp.qr_code, message }));
  }

  /** Ends the pending login (once, on any node) and starts the session as the form does; false when it was already used. */
  async complete(req: Request, res: Response, handle: string, user: User, login: PendingLogin): Promise<boolean> {
    if (!(await this.pending.finish(handle))) return false;
    clearCookie(res, PENDING_COOKIE, { path: PENDING_PATH });
    // The session remembers the second step: for five minutes it may change factors without a code.
    await this.sessionLogin.start(req, res, user, 'session', { secondStep: true, source: login.source ?? 'local' });
    return true;
  }
}

export function send(res: Response, status: number, html: string): void {
  res.code(status).type('text/html; charset=utf-8').send(html);
}
