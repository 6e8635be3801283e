import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { RequestTrace } from '../../common/request-context';
import { SsoFailure } from '../sso-failure';
import type { SsoAttempt, SsoLogin, SsoProtocol, SsoRequest } from '../sso-protocol';
import { SsoStarts } from '../sso-starts';
import { SsoUsers } from '../sso-users.service';
import { OidcLogin, OidcTransaction } from './oidc-login.service';

/** What the browser's start cookie holds, sealed: the transaction, its provider and where to go after. */
interface PendingOidc {
  provider: string;
  transaction: OidcTransaction;
  next: string;
}

/**
 * OpenID Connect as a single sign-on protocol (SPEC §7) on openid-client's public API (OidcLogin): state,
 * nonce and PKCE S256 sealed with SECRET_KEY into an HttpOnly cookie of the browser that started the login,
 * named by the state (SsoStarts), so a start writes nothing on the server, completes on any node, and only
 * in that browser; the completion's replay record makes it single-use.
 */
@Injectable()
export class OidcProtocol implements SsoProtocol {
  readonly kind = 'oidc';
  readonly label = 'OpenID Connect';
  readonly completeMethod = 'GET';

  constructor(
    private readonly oidc: OidcLogin,
    private readonly starts: SsoStarts,
    private readonly users: SsoUsers,
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
    this.starts.bind<PendingOidc>(this.kind, transaction.state, { provider: provider.name, transaction, next: attempt.next }, req, res);
    return url;
  }

  /** The callback: the returned state names this browser's start cookie; its transaction is checked, then spent. */
  async complete(attempt: SsoAttempt, req: SsoRequest, res: FastifyReply, trace: RequestTrace): Promise<SsoLogin> {
    const state = typeof req.query.state === 'string' ? req.query.state : '';
    const pending = state ? this.starts.held<PendingOidc>(this.kind, state, req) : null;
    if (pending) this.starts.unbind(this.kind, state, res);
    if (!pending) throw new SsoFailure('no_transaction', 'no pending login for this state in this browser');
    attempt.provider = pending.data.provider;
    attempt.next = pending.data.next;
    if (await this.starts.used(this.kind, state)) throw new SsoFailure('no_transaction', 'this login was already completed');
    const provider = await this.oidc.provider(attempt.provider, trace);
    const result = await this.oidc.complete(provider, pending.data.transaction, new URLSearchParams(rawQuery(req)));
    // Spent only once the provider's answer verified: a forged callback writes nothing.
    await this.starts.spend(this.kind, state, provider.key, pending.expires);
    const user = await this.users.resolve(result.identity, trace);
    return { user, providerSession: { provider: provider.key, subject: result.identity.uid, providerSession: result.sid, idToken: result.idToken } };
  }
}

/** The query string exactly as the client sent it. */
function rawQuery(req: SsoRequest): string {
  const at = req.url.indexOf('?');
  return at === -1 ? '' : req.url.slice(at + 1);
}
