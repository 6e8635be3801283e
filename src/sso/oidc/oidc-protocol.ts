import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { clearCookie, setCookie } from '../../common/cookies';
import { clientIp } from '../../common/client-ip';
import type { RequestTrace } from '../../common/request-context';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { PendingStateService } from '../../pending-state/pending-state.service';
import { SsoFailure } from '../sso-failure';
import type { SsoAttempt, SsoLogin, SsoProtocol, SsoRequest } from '../sso-protocol';
import { SsoUsers } from '../sso-users.service';
import { OidcLogin, OidcTransaction } from './oidc-login.service';

/** How long a started OIDC login waits for its callback (the binding cookie lives as long). */
export const OIDC_TTL_SECONDS = 10 * 60;
/** Cookie binding a pending OIDC login to this browser; its value is a random handle, stored as a MAC. */
const OIDC_COOKIE = 'sso_oidc';
const OIDC_COOKIE_PATH = '/sso/';

interface PendingOidc {
  transaction: OidcTransaction;
  next: string;
}

/**
 * OpenID Connect as a single sign-on protocol (SPEC §7) on openid-client's public API (OidcLogin): state,
 * nonce and PKCE S256 kept in the shared database (a login started on one node completes on another) and
 * bound to this browser by an HttpOnly cookie whose handle the database keeps only as a MAC.
 */
@Injectable()
export class OidcProtocol implements SsoProtocol {
  readonly kind = 'oidc';
  readonly label = 'OpenID Connect';
  readonly completeMethod = 'GET';

  constructor(
    private readonly oidc: OidcLogin,
    private readonly store: PendingStateService,
    private readonly users: SsoUsers,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  names(): string[] {
    return Object.keys(this.oidc.configured());
  }

  describe(name: string): Record<string, string> {
    return { backchannel_logout_url: this.logoutUrl(name) };
  }

  logoutUrl(name: string): string {
    return this.oidc.backchannelUrl(name);
  }

  async start(attempt: SsoAttempt, req: SsoRequest, res: FastifyReply, trace: RequestTrace): Promise<string> {
    const provider = await this.oidc.provider(attempt.provider, trace);
    const { url, transaction } = await this.oidc.authorizationRequest(provider);
    const handle = randomBytes(32).toString('base64url');
    await this.store.add<PendingOidc>(`oidc:${this.store.digest(handle)}`, provider.key, { transaction, next: attempt.next }, OIDC_TTL_SECONDS, clientIp(req));
    setCookie(res, OIDC_COOKIE, handle, {
      httpOnly: true,
      sameSite: 'lax', // the provider sends the browser back with a top-level GET, which carries Lax cookies
      secure: this.config.sessionCookieSecure,
      path: OIDC_COOKIE_PATH,
      maxAge: OIDC_TTL_SECONDS,
    });
    return url;
  }

  /** The callback: only the browser holding the handle finds its transaction, once. */
  async complete(attempt: SsoAttempt, req: SsoRequest, res: FastifyReply, trace: RequestTrace): Promise<SsoLogin> {
    const handle = req.cookies?.[OIDC_COOKIE];
    clearCookie(res, OIDC_COOKIE, { path: OIDC_COOKIE_PATH });
    const pending = typeof handle === 'string' && handle ? await this.store.take<PendingOidc>(`oidc:${this.store.digest(handle)}`) : null;
    if (!pending) throw new SsoFailure('no_transaction', 'no pending login for this browser');
    attempt.provider = pending.provider.slice('oidc:'.length);
    attempt.next = pending.data.next;
    const provider = await this.oidc.provider(attempt.provider, trace);
    const result = await this.oidc.complete(provider, pending.data.transaction, new URLSearchParams(rawQuery(req)));
    const user = await this.users.resolve(result.identity, trace);
    return { user, providerSession: { provider: provider.key, subject: result.identity.uid, providerSession: result.sid, idToken: result.idToken } };
  }
}

/** The query string exactly as the client sent it. */
function rawQuery(req: SsoRequest): string {
  const at = req.url.indexOf('?');
  return at === -1 ? '' : req.url.slice(at + 1);
}
