import { Controller, Get, Inject, Logger, Param, Post, Req, Res } from '@nestjs/common';
import { NotFound } from '../common/errors';
import { CreatesSession } from '../sessions/session-limit.interceptor';
import type { FastifyReply as Response } from 'fastify';
import { AuthMetrics } from '../common/auth-metrics';
import { clientIp, userAgentOf } from '../common/client-ip';
import { htmlPage } from '../common/html';
import { Public } from '../common/public.decorator';
import { RequestTrace, traceOf } from '../common/request-context';
import { safeNext } from '../common/safe-redirect';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SessionLogin } from '../sessions/session-login.service';
import { SettingsService } from '../settings/settings.service';
import { SamlLogin } from './saml/saml-login.service';
import type { SamlBinding } from './saml/saml-logout.service';
import { LOGGED_OUT_PAGE, SamlLogoutAnswer, SingleLogout } from './single-logout.service';
import { LogoutRefused, SsoFailure, ssoEventReason } from './sso-failure';
import { AuthenticationRecord } from '../common/authentication-record';
import { SsoMethods } from './sso-methods';
import { SsoService } from './sso.service';
import { SsoAttempt, SsoLogin, SsoProtocol, SsoProtocols, SsoRequest } from './sso-protocol';

type Request = SsoRequest;

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
    private readonly protocols: SsoProtocols,
    private readonly singleLogout: SingleLogout,
    private readonly saml: SamlLogin,
    private readonly methods: SsoMethods,
    private readonly sessionLogin: SessionLogin,
    private readonly metrics: AuthMetrics,
    private readonly settings: SettingsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly record: AuthenticationRecord,
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

  /** The first leg of any protocol (`/sso/login/oidc/`, `/sso/login/saml/`…): the redirect to the provider. */
  @Public()
  @Get('sso/login/:kind')
  async login(@Param('kind') kind: string, @Req() req: Request, @Res() res: Response) {
    const protocol = this.protocol(kind);
    const attempt = this.attempt(protocol.kind, req.query.idp, req.query.next);
    // SPEC §22: under the click-through only the login page's ticked entry starts a login; never the provider first.
    if (this.settings.get<boolean>('LOGIN_CONSENT_REQUIRED') && req.query.consent !== 'accepted') {
      return redirect(res, attempt.next ? `/api/login/?${new URLSearchParams({ next: attempt.next }).toString()}` : '/api/login/');
    }
    try {
      redirect(res, await protocol.start(attempt, req, res, traceOf(req)));
    } catch (err) {
      this.refuse(req, res, attempt, err);
    }
  }

  /** The provider's answer by a top-level GET (OIDC's callback). */
  @Public()
  @Get('sso/complete/:kind')
  @CreatesSession()
  completeByGet(@Param('kind') kind: string, @Req() req: Request, @Res() res: Response) {
    return this.complete(this.protocol(kind, 'GET'), req, res);
  }

  /** The provider's answer by a cross-site form POST (SAML's ACS, HTTP-POST binding). */
  @Public()
  @Post('sso/complete/:kind')
  @CreatesSession()
  completeByPost(@Param('kind') kind: string, @Req() req: Request, @Res() res: Response) {
    return this.complete(this.protocol(kind, 'POST'), req, res);
  }

  private async complete(protocol: SsoProtocol, req: Request, res: Response): Promise<void> {
    const attempt: SsoAttempt = { kind: protocol.kind, provider: '', next: '' };
    try {
      await this.logIn(req, res, attempt, await protocol.complete(attempt, req, res, traceOf(req)));
    } catch (err) {
      this.refuse(req, res, attempt, err);
    }
  }

  /** A registered protocol (answering by `method` when given); any other path segment is a 404. */
  private protocol(kind: string, method?: 'GET' | 'POST'): SsoProtocol {
    const protocol = this.protocols.get(kind);
    if (!protocol || (method && protocol.completeMethod !== method)) throw new NotFound();
    return protocol;
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
    const session = await this.sessionLogin.start(req, res, login.user, attempt.kind, { source: login.providerSession.provider });
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
    const said = ssoEventReason(err.code);
    if (said) {
      this.record.record({
        event: 'login_failed', user: err.user ?? null, username: err.user?.username ?? '', source: `${attempt.kind}:${attempt.provider}`.slice(0, 64), method: 'sso', reason: said.reason,
        ipAddress: clientIp(req), userAgent: userAgentOf(req), trace: traceOf(req), details: said.check ? { check: said.check } : {},
      });
    }
    const query = new URLSearchParams({ sso_error: err.code });
    if (attempt.next) query.set('next', attempt.next);
    redirect(res, `/api/login/?${query.toString()}`);
  }

  private attempt(kind: string, idp: unknown, next: unknown): SsoAttempt {
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
