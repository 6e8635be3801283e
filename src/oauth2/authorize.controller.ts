import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { Authenticator } from '../common/authenticator';
import { AuthError } from '../common/errors';
import type { Principal } from '../common/principal';
import { Public } from '../common/public.decorator';
import { CsrfService } from '../sessions/csrf.service';
import { renderAuthorizationErrorPage, renderConsentPage } from './authorize-pages';
import { AuthorizeEndpoint } from './authorize-endpoint.service';
import {
  AUTHORIZATION_PARAMETERS,
  AuthorizationErrorPage,
  AuthorizationErrorRedirect,
  AuthorizationRequest,
  redirectWith,
} from './authorization-request';
import { traceOf } from '../common/request-context';

/**
 * `/api/o/authorize/` (RFC 6749 §4.1.1, §4.2.1): public to the global guard because an anonymous
 * browser is sent to the login page rather than refused. The user is whoever a session (or a basic
 * header) says; a bearer token cannot mint itself new grants here.
 */
@Controller('api/o/authorize')
export class AuthorizeController {
  constructor(
    private readonly endpoint: AuthorizeEndpoint,
    private readonly authenticator: Authenticator,
    private readonly csrf: CsrfService,
  ) {}

  @Public()
  @Get()
  async show(@Req() req: Request, @Res() res: Response) {
    const params = req.query as Record<string, unknown>;
    await this.answer(req, res, params, async (request, user) => {
      if (request.application.skipAuthorization) return this.redirect(res, await this.endpoint.grant(request, user.user, traceOf(req)));
      const parameters: Record<string, string> = {};
      for (const name of AUTHORIZATION_PARAMETERS) if (typeof params[name] === 'string') parameters[name] = params[name] as string;
      const csrfToken = this.csrf.ensureCookie(req, res);
      res.code(200).type('text/html; charset=utf-8').send(
        renderConsentPage({ applicationName: request.application.name, username: user.user.username, scope: request.scope, csrfToken, action: '/api/o/authorize/', parameters }),
      );
    });
  }

  /** The consent form's answer: CSRF-checked for every caller, then a redirect with a code, a token or access_denied. */
  @Public()
  @Post()
  async decide(@Req() req: Request, @Res() res: Response) {
    const params = (req.body ?? {}) as Record<string, unknown>;
    await this.answer(req, res, params, async (request, user) => {
      this.csrf.enforce(req);
      const target = params.decision === 'authorize' ? await this.endpoint.grant(request, user.user, traceOf(req)) : this.endpoint.deny(request);
      this.redirect(res, target);
    });
  }

  private async answer(
    req: Request,
    res: Response,
    params: Record<string, unknown>,
    then: (request: AuthorizationRequest, user: Principal) => Promise<void>,
  ): Promise<void> {
    // The query (state, PKCE challenge) never leaves for another origin. Not `no-referrer`: under it a browser
    // posts the consent form with `Origin: null`, which the CSRF check must refuse (found by the device page's browser test).
    res.header('Referrer-Policy', 'same-origin');
    let request: AuthorizationRequest;
    try {
      request = await this.endpoint.check(params);
    } catch (err) {
      if (err instanceof AuthorizationErrorPage) {
        res.code(400).type('text/html; charset=utf-8').send(renderAuthorizationErrorPage(err.error, err.description));
        return;
      }
      if (err instanceof AuthorizationErrorRedirect) {
        const values = { error: err.error, error_description: err.description, state: err.state };
        return this.redirect(res, redirectWith(err.redirectUri, values, err.inFragment));
      }
      throw err;
    }
    const { user, endedReason } = await this.authenticate(req, res);
    if (!user) {
      // The login page tells the user why when their session was ended (SPEC §13).
      const reason = endedReason ? `&reason=${encodeURIComponent(endedReason)}` : '';
      return this.redirect(res, `/api/login/?next=${encodeURIComponent(this.authorizeUrl(req, params))}${reason}`);
    }
    await then(request, user);
  }

  /** The authorization request as a GET URL, for the login page to come back to. */
  private authorizeUrl(req: Request, params: Record<string, unknown>): string {
    if (req.method === 'GET') return req.url;
    const query = new URLSearchParams();
    for (const name of AUTHORIZATION_PARAMETERS) if (typeof params[name] === 'string') query.set(name, params[name] as string);
    return `/api/o/authorize/?${query.toString()}`;
  }

  /**
   * The front door without bearer (a token cannot mint itself new grants): session, then basic. An
   * ended session just means "log in again".
   */
  private async authenticate(req: Request, res: Response): Promise<{ user?: Principal; endedReason?: string }> {
    try {
      return { user: await this.authenticator.authenticate(req, res, { except: ['bearer'] }) };
    } catch (err) {
      if (err instanceof AuthError && err.code === 'session_ended') return { endedReason: String(err.extra.reason ?? '') || undefined };
      throw err;
    }
  }

  private redirect(res: Response, location: string): void {
    res.code(302).header('Location', location).send();
  }
}
