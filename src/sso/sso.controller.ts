import { Controller, Get, Inject, Logger, Post, Req, Res } from '@nestjs/common';
import { clientIp } from '../common/client-ip';
import type { FastifyReply as Response, FastifyRequest } from 'fastify';

/** The request as the SSO strategies read it: Fastify's, with the query as a record and a `session` shim. */
type Request = FastifyRequest<{ Querystring: Record<string, unknown> }>;
import { randomBytes } from 'node:crypto';
import { safeNext } from '../common/safe-redirect';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AuthMetrics } from '../common/auth-metrics';
import { Public } from '../common/public.decorator';
import { SessionLogin } from '../sessions/session-login.service';
import type { ExternalIdentity } from './external-identity';
import { describe, OidcProviders } from './oidc-providers.service';
import { OIDC_SESSION_KEY, OidcTransaction } from './oidc.strategy';
import { refuseDoctype } from './saml-checks';
import { SAML_REQUEST_TTL_SECONDS } from './saml-config';
import { SamlProviders } from './saml-providers.service';
import { SsoFailure } from './sso-failure';
import { SsoMethods } from './sso-methods';
import { SsoPassport, StrategyOutcome } from './sso-passport';
import { PendingStateService } from '../pending-state/pending-state.service';
import { SsoUsers } from './sso-users.service';
import { traceOf } from '../common/request-context';

/** Cookie binding a pending OIDC login to this browser; its value is a random handle, stored hashed. */
const OIDC_COOKIE = 'sso_oidc';
const OIDC_COOKIE_PATH = '/sso/';
const OIDC_TTL_SECONDS = 10 * 60;
const DEFAULT_REDIRECT = '/accounts/profile/';

interface PendingOidc {
  transaction: OidcTransaction;
  next: string;
}

interface PendingSaml {
  next: string;
}

type Kind = 'oidc' | 'saml';

/**
 * The single sign-on routes (SPEC §7). Both protocols run through Passport strategies; this
 * controller keeps the transaction state between the two legs in the database (never in process
 * memory), then logs the user in exactly as the form login does.
 */
@Controller()
export class SsoController {
  private readonly logger = new Logger('sso');

  constructor(
    private readonly oidc: OidcProviders,
    private readonly saml: SamlProviders,
    private readonly methods: SsoMethods,
    private readonly passport: SsoPassport,
    private readonly store: PendingStateService,
    private readonly users: SsoUsers,
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

  /**
   * Redirect to the provider with state, nonce and PKCE S256. The strategy's transaction goes to
   * the database under the hash of a random handle, and the handle to an HttpOnly cookie: a callback
   * replayed in another browser finds nothing.
   */
  @Public()
  @Get('sso/login/oidc')
  async oidcLogin(@Req() req: Request, @Res() res: Response) {
    const name = stringParam(req.query.idp);
    const next = this.safeNext(req.query.next);
    try {
      const strategy = await this.oidc.strategyName(name, traceOf(req));
      await this.assertRoomFor(clientIp(req));
      const shim: Record<string, unknown> = {};
      (req as Request & { session: unknown }).session = shim;
      const url = expectRedirect(await this.passport.run(strategy, req, { phase: 'login' }));
      const transaction = shim[OIDC_SESSION_KEY] as OidcTransaction | undefined;
      if (!transaction?.state || !transaction.nonce || !transaction.code_verifier) throw new SsoFailure('unavailable', 'no transaction');
      const handle = randomBytes(32).toString('base64url');
      await this.store.add<PendingOidc>(`oidc:${this.store.digest(handle)}`, `oidc:${name}`, { transaction, next }, OIDC_TTL_SECONDS, clientIp(req));
      res.setCookie(OIDC_COOKIE, handle, {
        httpOnly: true,
        sameSite: 'lax', // the provider sends the browser back with a top-level GET, which carries Lax cookies
        secure: this.config.sessionCookieSecure,
        path: OIDC_COOKIE_PATH,
        maxAge: OIDC_TTL_SECONDS,
      });
      redirect(res, url);
    } catch (err) {
      this.refuse(req, res, 'oidc', name, err, next);
    }
  }

  @Public()
  @Get('sso/complete/oidc')
  async oidcComplete(@Req() req: Request, @Res() res: Response) {
    const handle = req.cookies?.[OIDC_COOKIE];
    res.clearCookie(OIDC_COOKIE, { path: OIDC_COOKIE_PATH });
    let provider = '';
    let next = '';
    try {
      const pending = typeof handle === 'string' && handle ? await this.store.take<PendingOidc>(`oidc:${this.store.digest(handle)}`) : null;
      if (!pending) throw new SsoFailure('no_transaction', 'no pending login for this browser');
      provider = pending.provider.slice('oidc:'.length);
      next = pending.data.next;
      const strategy = await this.oidc.strategyName(provider, traceOf(req));
      (req as Request & { session: unknown }).session = { [OIDC_SESSION_KEY]: pending.data.transaction };
      const identity = expectIdentity(await this.passport.run(strategy, req));
      await this.logIn(req, res, 'oidc', identity, next);
    } catch (err) {
      this.refuse(req, res, 'oidc', provider, err, next);
    }
  }

  /** AuthnRequest by HTTP-Redirect; RelayState is a random handle to the pending login in the database. */
  @Public()
  @Get('sso/login/saml')
  async samlLogin(@Req() req: Request, @Res() res: Response) {
    const name = stringParam(req.query.idp);
    const next = this.safeNext(req.query.next);
    try {
      // passport-saml would read a SAML message in the query as a logout exchange.
      if (req.query.SAMLRequest !== undefined || req.query.SAMLResponse !== undefined) throw new SsoFailure('invalid_response', 'SAML message on the login route');
      const strategy = this.saml.strategyName(name, traceOf(req));
      await this.assertRoomFor(clientIp(req));
      const handle = randomBytes(32).toString('base64url');
      await this.store.add<PendingSaml>(`relay:${this.store.digest(handle)}`, `saml:${name}`, { next }, SAML_REQUEST_TTL_SECONDS, clientIp(req));
      redirect(res, expectRedirect(await this.passport.run(strategy, req, { additionalParams: { RelayState: handle } })));
    } catch (err) {
      this.refuse(req, res, 'saml', name, err, next);
    }
  }

  /**
   * The ACS (HTTP-POST binding). A cross-site POST: no CSRF check and no cookie is needed, because
   * the signature, InResponseTo (our database cache) and the replay cache protect it (SPEC §7).
   */
  @Public()
  @Post('sso/complete/saml')
  async samlComplete(@Req() req: Request, @Res() res: Response) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    let provider = '';
    let next = '';
    try {
      if (typeof body.SAMLResponse !== 'string' || !body.SAMLResponse || body.SAMLRequest !== undefined) {
        throw new SsoFailure('invalid_response', 'no SAMLResponse');
      }
      if (req.query.SAMLRequest !== undefined || req.query.SAMLResponse !== undefined) throw new SsoFailure('invalid_response', 'SAML message in the query');
      refuseDoctype(Buffer.from(body.SAMLResponse, 'base64').toString('utf8'));
      const relay = typeof body.RelayState === 'string' && body.RelayState ? body.RelayState : '';
      const pending = relay ? await this.store.take<PendingSaml>(`relay:${this.store.digest(relay)}`) : null;
      if (!pending) throw new SsoFailure('no_transaction', 'unknown RelayState');
      provider = pending.provider.slice('saml:'.length);
      next = pending.data.next;
      const strategy = this.saml.strategyName(provider, traceOf(req));
      const identity = expectIdentity(await this.passport.run(strategy, req));
      await this.logIn(req, res, 'saml', identity, next);
    } catch (err) {
      this.refuse(req, res, 'saml', provider, err, next);
    }
  }

  /** Success: the same session, cookies and headers as the form login (SPEC §2), then `next`. */
  private async logIn(req: Request, res: Response, kind: Kind, identity: ExternalIdentity, next: string): Promise<void> {
    const trace = traceOf(req);
    const user = await this.users.resolve(identity, trace);
    await this.sessionLogin.start(req, res, user, kind);
    this.logger.log({ event: 'sso_login', outcome: 'success', provider: identity.provider, user_id: user.id, client_ip: clientIp(req), ...trace });
    redirect(res, next || DEFAULT_REDIRECT);
  }

  /**
   * Failure: back to the login page, which shows the reason in its role="alert" element; no session.
   * Anything that is not a refusal (a database fault) is rethrown and answered as a server error.
   */
  private refuse(req: Request, res: Response, kind: Kind, name: string, err: unknown, next: string): void {
    if (!(err instanceof SsoFailure)) throw err;
    const failure = err;
    this.metrics.logins.inc({ method: kind, outcome: 'failure' });
    this.logger.warn({
      event: 'sso_login',
      outcome: 'failure',
      provider: `${kind}:${name.slice(0, 64)}`,
      reason: failure.code,
      detail: failure.detail,
      client_ip: clientIp(req),
      ...traceOf(req),
    });
    const query = new URLSearchParams({ sso_error: failure.code });
    if (next) query.set('next', next);
    redirect(res, `/api/login/?${query.toString()}`);
  }

  /** A new pending login only while this address has room for one (PendingStateService.hasRoomFor). */
  private async assertRoomFor(ip: string): Promise<void> {
    if (!(await this.store.hasRoomFor(ip))) throw new SsoFailure('too_many', 'too many pending logins from this address');
  }

  private safeNext(value: unknown): string {
    return safeNext(value, new URL(this.config.publicUrl).origin) ?? '';
  }
}

function stringParam(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function redirect(res: Response, location: string): void {
  res.code(302).header('Location', location).type('text/html; charset=utf-8').send('');
}

function expectRedirect(outcome: StrategyOutcome): string {
  if (outcome.kind === 'redirect') return outcome.url;
  if (outcome.kind === 'error') throw outcome.error instanceof SsoFailure ? outcome.error : new SsoFailure('unavailable', describe(outcome.error));
  throw new SsoFailure('unavailable', `strategy answered ${outcome.kind}`);
}

function expectIdentity(outcome: StrategyOutcome): ExternalIdentity {
  if (outcome.kind === 'success') return outcome.user as ExternalIdentity;
  if (outcome.kind === 'error') throw outcome.error instanceof SsoFailure ? outcome.error : new SsoFailure('invalid_response', describe(outcome.error));
  if (outcome.kind === 'fail' || outcome.kind === 'pass') {
    // openid-client reports an IdP's `error=access_denied` (the user cancelled or was refused) as a fail.
    const message = outcome.kind === 'fail' ? (outcome.challenge as { message?: string } | undefined)?.message : undefined;
    throw new SsoFailure('denied', message ? `provider: ${message.slice(0, 200)}` : 'refused');
  }
  throw new SsoFailure('invalid_response', 'unexpected redirect');
}

