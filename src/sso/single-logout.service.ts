import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '../common/clock';
import type { EndedLogin } from '../common/logout-redirects';
import { RequestTrace } from '../common/request-context';
import { sha256Hex } from '../common/secret-box';
import { PendingStateService } from '../pending-state/pending-state.service';
import { logoutTokenAlgorithms, verifyLogoutToken } from './oidc/logout-token';
import { CLOCK_TOLERANCE_SECONDS, OidcLogin } from './oidc/oidc-login.service';
import { SAML_REQUEST_TTL_SECONDS } from './saml/saml-config';
import { SamlLogin } from './saml/saml-login.service';
import { SamlBinding, SamlLogout, VerifiedLogoutRequest } from './saml/saml-logout.service';
import { LogoutRefused, SsoFailure } from './sso-failure';
import { SsoSessionFacts, SsoSessions } from './sso-sessions.service';

/** Where a browser goes once a logout is over: `next` when it gave one, else the login page saying so. */
export const LOGGED_OUT_PAGE = '/api/login/?reason=logged_out';

/** The login page's notice (`?sso_error=`) when an IdP's answer to our LogoutRequest does not verify. */
export const LOGOUT_UNCONFIRMED = 'logout_unconfirmed';
export const SSO_LOGOUT_MESSAGES = {
  [LOGOUT_UNCONFIRMED]: 'You were logged out here, but the identity provider did not confirm that it ended your session there. Close the browser to be sure.',
};

/** Our pending SAML logout, under its RelayState: where the browser goes back to, and the request the answer must name. */
interface PendingSamlLogout {
  next: string;
  requestId: string;
}

/** How an IdP's SAML logout message is answered. */
export type SamlLogoutAnswer =
  /** A LogoutResponse by redirect to the IdP, or (after its LogoutResponse) `next` or the login page. */
  | { kind: 'redirect'; location: string }
  /** The IdP's LogoutRequest was honoured but the IdP has no `slo_url` to answer to. */
  | { kind: 'logged_out' };

/**
 * Single logout (SPEC §17). Outgoing: after the local logout ended a session an identity provider made,
 * the browser is sent on to that provider (OIDC RP-initiated logout, SAML LogoutRequest). Incoming: the
 * provider's own logout (OIDC back-channel logout token, SAML LogoutRequest) ends exactly the sessions
 * of that provider session or subject, with reason `idp_logout`, after every check passed.
 */
@Injectable()
export class SingleLogout {
  private readonly logger = new Logger('sso');

  constructor(
    private readonly oidc: OidcLogin,
    private readonly saml: SamlLogin,
    private readonly samlLogout: SamlLogout,
    private readonly ssoSessions: SsoSessions,
    private readonly store: PendingStateService,
    private readonly clock: Clock,
  ) {}

  /**
   * The hook of the logout route (LogoutRedirects): the provider's logout URL for a session it made, or
   * null (not an SSO session, provider gone or without a logout endpoint, or out of reach: the local
   * logout stands either way).
   */
  async afterLocalLogout(ended: EndedLogin, trace: RequestTrace): Promise<string | null> {
    const facts = await this.ssoSessions.take(ended.sessionId);
    if (!facts) return null;
    try {
      const location = facts.provider.startsWith('oidc:') ? await this.oidcRedirect(facts, trace) : await this.samlRedirect(facts, ended.next ?? '', trace);
      this.logger.log({ event: 'sso_logout', direction: 'to_provider', provider: facts.provider, outcome: location ? 'redirect' : 'local_only', session_id: ended.sessionId, ...trace });
      return location;
    } catch (err) {
      if (!(err instanceof SsoFailure)) throw err;
      this.logger.warn({ event: 'sso_logout', direction: 'to_provider', provider: facts.provider, outcome: 'local_only', reason: err.code, detail: err.detail, ...trace });
      return null;
    }
  }

  /** OpenID Connect Back-Channel Logout 1.0: a verified, unseen logout token ends its sessions; returns how many. */
  async backchannel(name: string, token: unknown, trace: RequestTrace): Promise<number> {
    const key = `oidc:${name.slice(0, 64)}`;
    try {
      if (typeof token !== 'string' || !token) throw new LogoutRefused('no logout_token');
      const provider = await this.oidc.provider(name, trace);
      const metadata = provider.configuration.serverMetadata();
      const now = this.clock.now();
      const claims = await verifyLogoutToken(token, {
        issuer: metadata.issuer,
        clientId: provider.settings.client_id,
        keys: this.oidc.keysOf(provider),
        algorithms: logoutTokenAlgorithms(metadata.id_token_signing_alg_values_supported),
        now,
        clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS,
      });
      // The replay cache (shared by every node) takes the jti only now: an unverified token adds no row.
      const jti = claims.jti.length <= 128 ? claims.jti : sha256Hex(claims.jti);
      const ttlSeconds = Math.max(60, Math.ceil((claims.usableUntil - now.getTime()) / 1000));
      if (!(await this.store.add(`jti:${name}:${jti}`, provider.key, null, ttlSeconds))) throw new LogoutRefused('logout token already used (jti)');
      const ended = await this.ssoSessions.endMatching(provider.key, claims.sid ? { providerSession: claims.sid, subject: claims.sub } : { subject: claims.sub }, trace);
      this.logger.log({ event: 'sso_logout', direction: 'from_provider', binding: 'backchannel', provider: key, outcome: 'ended', by: claims.sid ? 'sid' : 'sub', count: ended, ...trace });
      return ended;
    } catch (err) {
      throw this.refused(err, key, 'backchannel', trace);
    }
  }

  /** A LogoutRequest from an IdP (either binding): its sessions end, and the IdP gets its LogoutResponse. */
  async samlRequest(incoming: SamlBinding, relayState: string, trace: RequestTrace): Promise<SamlLogoutAnswer> {
    let verified: VerifiedLogoutRequest;
    try {
      verified = await this.samlLogout.verifyRequest(incoming, trace);
    } catch (err) {
      throw this.refused(err, 'saml', incoming.binding, trace);
    }
    const { request, provider } = verified;
    const match = request.sessionIndex ? { subject: request.nameID, providerSession: request.sessionIndex } : { subject: request.nameID };
    const ended = await this.ssoSessions.endMatching(provider.key, match, trace);
    this.logger.log({ event: 'sso_logout', direction: 'from_provider', binding: incoming.binding, provider: provider.key, outcome: 'ended', by: request.sessionIndex ? 'session_index' : 'name_id', count: ended, ...trace });
    try {
      const location = await this.samlLogout.responseUrl(verified, relayState);
      return location ? { kind: 'redirect', location } : { kind: 'logged_out' };
    } catch (err) {
      // The sessions are ended; only the answer to the IdP could not be built: the browser is told it is logged out.
      if (!(err instanceof SsoFailure)) throw err;
      this.logger.warn({ event: 'sso_logout', direction: 'from_provider', provider: provider.key, outcome: 'unanswered', reason: err.code, detail: err.detail, ...trace });
      return { kind: 'logged_out' };
    }
  }

  /**
   * The IdP's LogoutResponse to ours: the browser goes on to `next` (kept under the RelayState) when the
   * response is verified and answers our request, else to the login page saying the IdP did not confirm.
   * Either way the local session ended before the browser left for the IdP.
   */
  async samlResponse(incoming: SamlBinding, relayState: string, trace: RequestTrace): Promise<SamlLogoutAnswer> {
    const pending = relayState ? await this.store.take<PendingSamlLogout>(`slo:${this.store.digest(relayState)}`) : null;
    try {
      if (!pending) throw new LogoutRefused('no pending logout for this RelayState');
      const verified = await this.samlLogout.verifyResponse(incoming, pending.provider.slice('saml:'.length), trace);
      if (verified.inResponseTo !== pending.data.requestId) throw new LogoutRefused('LogoutResponse answers another request');
      this.logger.log({ event: 'sso_logout', direction: 'to_provider', binding: incoming.binding, provider: verified.provider.key, outcome: 'confirmed', ...trace });
      return { kind: 'redirect', location: pending.data.next || LOGGED_OUT_PAGE };
    } catch (err) {
      this.refused(err, pending?.provider ?? 'saml', incoming.binding, trace, 'to_provider');
      return { kind: 'redirect', location: `/api/login/?sso_error=${LOGOUT_UNCONFIRMED}` };
    }
  }

  private async oidcRedirect(facts: SsoSessionFacts, trace: RequestTrace): Promise<string | null> {
    if (!facts.idToken || !Object.hasOwn(this.oidc.configured(), facts.provider.slice('oidc:'.length))) return null;
    const provider = await this.oidc.provider(facts.provider.slice('oidc:'.length), trace);
    return this.oidc.endSessionUrl(provider, facts.idToken);
  }

  private async samlRedirect(facts: SsoSessionFacts, next: string, trace: RequestTrace): Promise<string | null> {
    const name = facts.provider.slice('saml:'.length);
    const idp = Object.hasOwn(this.saml.configured(), name) ? this.saml.configured()[name] : undefined;
    if (!facts.saml || !idp?.slo_url) return null;
    const provider = await this.saml.provider(name, trace);
    const handle = randomBytes(32).toString('base64url');
    const request = await this.samlLogout.requestUrl(provider, facts.saml, handle);
    if (!request) return null;
    await this.store.add<PendingSamlLogout>(`slo:${this.store.digest(handle)}`, provider.key, { next, requestId: request.requestId }, SAML_REQUEST_TTL_SECONDS);
    return request.url;
  }

  /** A refused logout message, logged with the check that failed; anything but a refusal (a database fault) is rethrown. */
  private refused(err: unknown, provider: string, binding: string, trace: RequestTrace, direction = 'from_provider'): LogoutRefused {
    const refusal = err instanceof LogoutRefused ? err : err instanceof SsoFailure ? new LogoutRefused(`${err.code}: ${err.detail ?? ''}`) : null;
    if (!refusal) throw err;
    this.logger.warn({ event: 'sso_logout', direction, binding, provider, outcome: 'refused', reason: refusal.reason.slice(0, 300), ...trace });
    return refusal;
  }
}
