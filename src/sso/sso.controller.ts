import { Controller, Get, Inject, Logger, Post, Req, Res } from '@nestjs/common';
import { CreatesSession } from '../sessions/session-limit.interceptor';
import type { FastifyReply as Response, FastifyRequest } from 'fastify';
import { AuthMetrics } from '../common/auth-metrics';
import { clientIp } from '../common/client-ip';
import { htmlPage } from '../common/html';
import { Public } from '../common/public.decorator';
import { RequestTrace, traceOf } from '../common/request-context';
import { safeNext } from '../common/safe-redirect';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SessionLogin } from '../sessions/session-login.service';
import { SamlLogin } from './saml/saml-login.service';
import type { SamlBinding } from './saml/saml-logout.service';
import { LOGGED_OUT_PAGE, SamlLogoutAnswer, SingleLogout } from './single-logout.service';
import { LogoutRefused, SsoFailure } from './sso-failure';
import { SsoMethods } from './sso-methods';
import { OIDC_TTL_SECONDS, SsoAttempt, SsoKind, SsoLogin, SsoService } from './sso.service';

type Request = FastifyRequest<{ Querystring: Record<string, unknown> }>;

/** Cookie binding a pending OIDC login to this browser; its value is a random handle, stored as a MAC. */
const OIDC_COOKIE = 'sso_oidc';
const OIDC_COOKIE_PATH = '/sso/';
const DEFAULT_REDIRECT = '/accounts/profile/';

/**
 * The single sign-on routes (SPEC §7, §17), translating HTTP only: parameters, cookies and bodies in;
 * redirects, cookies and status codes out. The protocols are SsoService's and SingleLogout's.
 */
@Controller()
export class SsoController {
  private readonly logger = new Logger('sso');

  constructor(
    private readonly sso: SsoService,
    private readonly singleLogout: SingleLogout,
    private readonly saml: SamlLogin,
    private readonly methods: SsoMethods,
    private readonly sessionLogin: SessionLogin,
    private readonly metrics: AuthMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @Get('api/v2/auth')
  list() {
    return this.methods.describe();
  }

  @Public()
  @Get('sso/metadata/saml')
  metadata(@Res() res: Response) {
    res.code(200).type('text/xml; charset=utf-8').send(this.saml.metadata());
  }

  /** Redirect to the provider with state, nonce and PKCE S256, bound to this browser by an HttpOnly cookie. */
  @Public()
  @Get('sso/login/oidc')
  async oidcLogin(@Req() req: Request, @Res() res: Response) {
    const attempt = this.attempt('oidc', req.query.idp, req.query.next);
    try {
      const { url, handle } = await this.sso.startOidc(attempt, clientIp(req), traceOf(req));
      res.setCookie(OIDC_COOKIE, handle, {
        httpOnly: true,
        sameSite: 'lax', // the provider sends the browser back with a top-level GET, which carries Lax cookies
        secure: this.config.sessionCookieSecure,
        path: OIDC_COOKIE_PATH,
        maxAge: OIDC_TTL_SECONDS,
      });
      redirect(res, url);
    } catch (err) {
      this.refuse(req, res, attempt, err);
    }
  }

  @Public()
  @Get('sso/complete/oidc')
  @CreatesSession()
  async oidcComplete(@Req() req: Request, @Res() res: Response) {
    const handle = req.cookies?.[OIDC_COOKIE];
    res.clearCookie(OIDC_COOKIE, { path: OIDC_COOKIE_PATH });
    const attempt: SsoAttempt = { kind: 'oidc', provider: '', next: '' };
    try {
      await this.logIn(req, res, attempt, await this.sso.completeOidc(attempt, handle, new URLSearchParams(rawQuery(req)), traceOf(req)));
    } catch (err) {
      this.refuse(req, res, attempt, err);
    }
  }

  /** AuthnRequest by HTTP-Redirect; RelayState is a random handle to the pending login in the database. */
  @Public()
  @Get('sso/login/saml')
  async samlLogin(@Req() req: Request, @Res() res: Response) {
    const attempt = this.attempt('saml', req.query.idp, req.query.next);
    try {
      // A SAML message belongs at the ACS or the logout service, never here.
      if (req.query.SAMLRequest !== undefined || req.query.SAMLResponse !== undefined) throw new SsoFailure('invalid_response', 'SAML message on the login route');
      redirect(res, await this.sso.startSaml(attempt, clientIp(req), traceOf(req)));
    } catch (err) {
      this.refuse(req, res, attempt, err);
    }
  }

  /**
   * The ACS (HTTP-POST binding). A cross-site POST: no CSRF check and no cookie is needed, because
   * the signature, InResponseTo (our database cache) and the replay cache protect it (SPEC §7).
   */
  @Public()
  @Post('sso/complete/saml')
  @CreatesSession()
  async samlComplete(@Req() req: Request, @Res() res: Response) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const attempt: SsoAttempt = { kind: 'saml', provider: '', next: '' };
    try {
      if (typeof body.SAMLResponse !== 'string' || !body.SAMLResponse || body.SAMLRequest !== undefined) throw new SsoFailure('invalid_response', 'no SAMLResponse');
      if (req.query.SAMLRequest !== undefined || req.query.SAMLResponse !== undefined) throw new SsoFailure('invalid_response', 'SAML message in the query');
      await this.logIn(req, res, attempt, await this.sso.completeSaml(attempt, body.SAMLResponse, body.RelayState, traceOf(req)));
    } catch (err) {
      this.refuse(req, res, attempt, err);
    }
  }

  /** `post_logout_redirect_uri` of OpenID Connect RP-initiated logout: the provider is done, the login page follows. */
  @Public()
  @Get('sso/logout/oidc')
  oidcLoggedOut(@Res() res: Response) {
    redirect(res, LOGGED_OUT_PAGE);
  }

  /**
   * OpenID Connect Back-Channel Logout 1.0, from the provider's server: 200 when the logout token was
   * valid (whether or not a session was still live), 400 with the failed check otherwise, ending nothing.
   */
  @Public()
  @Post('sso/backchannel/oidc')
  async backchannel(@Req() req: Request, @Res() res: Response) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    try {
      await this.singleLogout.backchannel(stringParam(req.query.idp), body.logout_token, traceOf(req));
      res.code(200).send();
    } catch (err) {
      if (!(err instanceof LogoutRefused)) throw err;
      res.code(400).send({ error: 'invalid_request', error_description: err.reason });
    }
  }

  /** The SAML single logout service, HTTP-Redirect binding: the signature covers the query string exactly as sent. */
  @Public()
  @Get('sso/logout/saml')
  samlLogoutRedirect(@Req() req: Request, @Res() res: Response) {
    return this.samlLogout(res, { binding: 'redirect', query: req.query, rawQuery: rawQuery(req) }, req.query, traceOf(req));
  }

  /** The SAML single logout service, HTTP-POST binding (a cross-site POST, protected by the signature like the ACS). */
  @Public()
  @Post('sso/logout/saml')
  samlLogoutPost(@Req() req: Request, @Res() res: Response) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    return this.samlLogout(res, { binding: 'post', body }, body, traceOf(req));
  }

  private async samlLogout(res: Response, incoming: SamlBinding, params: Record<string, unknown>, trace: RequestTrace): Promise<void> {
    const relayState = stringParam(params.RelayState);
    let answer: SamlLogoutAnswer;
    try {
      if (params.SAMLResponse !== undefined && params.SAMLRequest === undefined) answer = await this.singleLogout.samlResponse(incoming, relayState, trace);
      else answer = await this.singleLogout.samlRequest(incoming, relayState, trace);
    } catch (err) {
      if (!(err instanceof LogoutRefused)) throw err;
      res.code(400).send({ detail: `The logout request was refused: ${err.reason}` });
      return;
    }
    if (answer.kind === 'redirect') return redirect(res, answer.location);
    res.code(200).type('text/html; charset=utf-8').send(
      htmlPage('Logged out', '<main class="card"><h1>Logged out</h1><p role="status">Your identity provider logged you out.</p><p><a href="/api/login/">Log in</a></p></main>'),
    );
  }

  /** Success: the same session, cookies and headers as the form login (SPEC §2), the provider's session recorded, then `next`. */
  private async logIn(req: Request, res: Response, attempt: SsoAttempt, login: SsoLogin): Promise<void> {
    const session = await this.sessionLogin.start(req, res, login.user, attempt.kind);
    await this.sso.recordSession(session.id, login, traceOf(req));
    this.logger.log({ event: 'sso_login', outcome: 'success', provider: login.providerSession.provider, user_id: login.user.id, client_ip: clientIp(req), ...traceOf(req) });
    redirect(res, attempt.next || DEFAULT_REDIRECT);
  }

  /**
   * Failure: back to the login page, which shows the reason in its role="alert" element; no session.
   * Anything that is not a refusal (a database fault) is rethrown and answered as a server error.
   */
  private refuse(req: Request, res: Response, attempt: SsoAttempt, err: unknown): void {
    if (!(err instanceof SsoFailure)) throw err;
    this.metrics.logins.inc({ method: attempt.kind, outcome: 'failure' });
    this.logger.warn({
      event: 'sso_login',
      outcome: 'failure',
      provider: `${attempt.kind}:${attempt.provider.slice(0, 64)}`,
      reason: err.code,
      detail: err.detail,
      client_ip: clientIp(req),
      ...traceOf(req),
    });
    const query = new URLSearchParams({ sso_error: err.code });
    if (attempt.next) query.set('next', attempt.next);
    redirect(res, `/api/login/?${query.toString()}`);
  }

  private attempt(kind: SsoKind, idp: unknown, next: unknown): SsoAttempt {
    return { kind, provider: stringParam(idp), next: safeNext(next, new URL(this.config.publicUrl).origin) ?? '' };
  }
}

function stringParam(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The query string exactly as the client sent it (a Redirect-binding signature covers these bytes). */
function rawQuery(req: Request): string {
  const at = req.url.indexOf('?');
  return at === -1 ? '' : req.url.slice(at + 1);
}

function redirect(res: Response, location: string): void {
  res.code(302).header('Location', location).type('text/html; charset=utf-8').send('');
}
