import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { authenticateWith } from '../../common/authenticator';
import type { RequestTrace } from '../../common/request-context';
import { describeError, SsoFailure } from '../sso-failure';
import type { SsoAttempt, SsoLogin, SsoProtocol, SsoRequest } from '../sso-protocol';
import { SsoStarts } from '../sso-starts';
import { AcsFault, forAcs } from './saml-acs.strategy';
import { SamlLogin } from './saml-login.service';
import { decodePostMessage, refuseDoctype } from './saml-xml';

/** The RelayState, sealed: the IdP, our AuthnRequest's id and where to go after. */
interface SamlRelay {
  provider: string;
  requestId: string;
  next: string;
}

/**
 * SAML 2.0 as a single sign-on protocol (SPEC §7): AuthnRequests by HTTP-Redirect whose RelayState is the
 * pending login itself, sealed with SECRET_KEY (the IdP echoes it back, so it survives a browser that sends no
 * cookie on the ACS's cross-site POST), and the ACS (HTTP-POST) through passport-saml (SamlAcsStrategy),
 * protected by the signature, InResponseTo (the sealed request id) and the replay caches. A start writes nothing
 * on the server. The start cookie (SameSite=None over https) binds the login to its browser where it is sent:
 * a browser that carries start cookies must carry this login's (docs/decisions.md, issue 56).
 */
@Injectable()
export class SamlProtocol implements SsoProtocol {
  readonly kind = 'saml';
  readonly label = 'SAML';
  readonly completeMethod = 'POST';

  constructor(
    private readonly saml: SamlLogin,
    private readonly starts: SsoStarts,
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

  async start(attempt: SsoAttempt, req: SsoRequest, res: FastifyReply, trace: RequestTrace): Promise<string> {
    // A SAML message belongs at the ACS or the logout service, never here.
    if (req.query.SAMLRequest !== undefined || req.query.SAMLResponse !== undefined) throw new SsoFailure('invalid_response', 'SAML message on the login route');
    const provider = await this.saml.provider(attempt.provider, trace);
    // node-saml's form of an ID (an xs:ID starts with a letter or "_"), 160 random bits.
    const requestId = `_${randomBytes(20).toString('hex')}`;
    const relayState = this.starts.seal<SamlRelay>('saml-relay', { provider: provider.name, requestId, next: attempt.next });
    const url = await this.saml.authorizeUrl(provider, relayState, requestId);
    this.starts.bind(this.kind, requestId, {}, req, res, true);
    return url;
  }

  /** The ACS: the sealed RelayState names the pending login (and so the IdP); the Response is then verified fully. */
  async complete(attempt: SsoAttempt, req: SsoRequest, res: FastifyReply, trace: RequestTrace): Promise<SsoLogin> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.SAMLResponse !== 'string' || !body.SAMLResponse || body.SAMLRequest !== undefined) throw new SsoFailure('invalid_response', 'no SAMLResponse');
    if (req.query.SAMLRequest !== undefined || req.query.SAMLResponse !== undefined) throw new SsoFailure('invalid_response', 'SAML message in the query');
    const relay = this.starts.open<SamlRelay>('saml-relay', body.RelayState);
    if (!relay) throw new SsoFailure('no_transaction', 'unknown or expired RelayState');
    attempt.provider = relay.data.provider;
    attempt.next = relay.data.next;
    const { requestId } = relay.data;
    if (this.starts.held(this.kind, requestId, req)) this.starts.unbind(this.kind, requestId, res);
    else if (this.starts.holdsAny(this.kind, req)) throw new SsoFailure('no_transaction', 'the login was started in another browser');
    if (await this.starts.used(this.kind, requestId)) throw new SsoFailure('no_transaction', 'this login was already completed');
    const provider = await this.saml.provider(attempt.provider, trace);
    // No DOCTYPE ever reaches an XML parser (entity expansion), before passport-saml parses anything.
    refuseDoctype(decodePostMessage(body.SAMLResponse));
    // Spent once the Response verified (SamlAcsStrategy.validate), before the user is provisioned.
    const spend = () => this.starts.spend(this.kind, requestId, provider.key, relay.expires);
    forAcs(req, { provider, options: this.saml.acsOptions(provider, requestId), trace, spend });
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
