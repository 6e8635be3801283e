import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { authenticateWith } from '../../common/authenticator';
import { clientIp } from '../../common/client-ip';
import type { RequestTrace } from '../../common/request-context';
import { PendingStateService } from '../../pending-state/pending-state.service';
import { describeError, SsoFailure } from '../sso-failure';
import type { SsoAttempt, SsoLogin, SsoProtocol, SsoRequest } from '../sso-protocol';
import { AcsFault, forAcs } from './saml-acs.strategy';
import { SAML_REQUEST_TTL_SECONDS } from './saml-config';
import { SamlLogin } from './saml-login.service';
import { decodePostMessage, refuseDoctype } from './saml-xml';

interface PendingSaml {
  next: string;
}

/**
 * SAML 2.0 as a single sign-on protocol (SPEC §7): AuthnRequests by HTTP-Redirect with a RelayState that is a
 * random handle to the pending login in the shared database, and the ACS (HTTP-POST) through passport-saml
 * (SamlAcsStrategy). A cross-site POST: no CSRF check and no cookie is needed, because the signature,
 * InResponseTo (our database cache) and the replay cache protect it.
 */
@Injectable()
export class SamlProtocol implements SsoProtocol {
  readonly kind = 'saml';
  readonly label = 'SAML';
  readonly completeMethod = 'POST';

  constructor(
    private readonly saml: SamlLogin,
    private readonly store: PendingStateService,
  ) {}

  names(): string[] {
    return Object.keys(this.saml.configured());
  }

  describe(): Record<string, string> {
    return { metadata_url: '/sso/metadata/saml/', slo_url: this.logoutUrl() };
  }

  logoutUrl(): string {
    return this.saml.serviceProvider().sloUrl;
  }

  async start(attempt: SsoAttempt, req: SsoRequest, _res: FastifyReply, trace: RequestTrace): Promise<string> {
    // A SAML message belongs at the ACS or the logout service, never here.
    if (req.query.SAMLRequest !== undefined || req.query.SAMLResponse !== undefined) throw new SsoFailure('invalid_response', 'SAML message on the login route');
    const provider = await this.saml.provider(attempt.provider, trace);
    const handle = randomBytes(32).toString('base64url');
    await this.store.add<PendingSaml>(`relay:${this.store.digest(handle)}`, provider.key, { next: attempt.next }, SAML_REQUEST_TTL_SECONDS, clientIp(req));
    return this.saml.authorizeUrl(provider, handle);
  }

  /** The ACS: the RelayState names the pending login (and so the IdP); the Response is then verified fully. */
  async complete(attempt: SsoAttempt, req: SsoRequest, res: FastifyReply, trace: RequestTrace): Promise<SsoLogin> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.SAMLResponse !== 'string' || !body.SAMLResponse || body.SAMLRequest !== undefined) throw new SsoFailure('invalid_response', 'no SAMLResponse');
    if (req.query.SAMLRequest !== undefined || req.query.SAMLResponse !== undefined) throw new SsoFailure('invalid_response', 'SAML message in the query');
    const relayState = body.RelayState;
    const pending = typeof relayState === 'string' && relayState ? await this.store.take<PendingSaml>(`relay:${this.store.digest(relayState)}`) : null;
    if (!pending) throw new SsoFailure('no_transaction', 'unknown RelayState');
    attempt.provider = pending.provider.slice('saml:'.length);
    attempt.next = pending.data.next;
    const provider = await this.saml.provider(attempt.provider, trace);
    // No DOCTYPE ever reaches an XML parser (entity expansion), before passport-saml parses anything.
    refuseDoctype(decodePostMessage(body.SAMLResponse));
    forAcs(req, { provider, options: this.saml.acsOptions(provider), trace });
    let login: SsoLogin | undefined;
    try {
      login = await authenticateWith<SsoLogin>(['saml'], req, res);
    } catch (err) {
      if (err instanceof AcsFault) throw err.cause;
      throw err instanceof SsoFailure ? err : new SsoFailure('invalid_response', describeError(err));
    }
    // passport-saml passes a LogoutResponse through (no user): not a login.
    if (!login) throw new SsoFailure('invalid_response', 'a LogoutResponse at the ACS');
    return login;
  }
}
