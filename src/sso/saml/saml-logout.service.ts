import { Injectable } from '@nestjs/common';
import type { Profile } from '@node-saml/node-saml';
import { Clock } from '../../common/clock';
import { RequestTrace } from '../../common/request-context';
import { sha256Hex } from '../../common/secret-box';
import { PendingStateService } from '../../pending-state/pending-state.service';
import { describeError, LogoutRefused, SsoFailure } from '../sso-failure';
import { SAML_CLOCK_SKEW_MS } from './saml-config';
import { SamlLogin, SamlProvider, SamlSubject } from './saml-login.service';
import { decodePostMessage, inflateRedirectMessage, readSamlMessage, SamlMessage } from './saml-xml';

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
/** How old an IdP's LogoutRequest may be (IssueInstant): the browser carries it at once. */
export const LOGOUT_REQUEST_MAX_AGE_MS = 5 * 60 * 1000;
/** Query-string signatures of the HTTP-Redirect binding we accept (node-saml would take SHA-1 too). */
const REDIRECT_SIGNATURE_ALGORITHMS = new Set([
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
]);

/** A SAML message as it arrived at our single logout service, by either binding. */
export type SamlBinding = { binding: 'redirect'; query: Record<string, unknown>; rawQuery: string } | { binding: 'post'; body: Record<string, unknown> };

/** An IdP's LogoutRequest that passed every check: whom it names, and what to answer it with. */
export interface VerifiedLogoutRequest {
  provider: SamlProvider;
  /** node-saml's reading of the signed request: ID, Issuer, NameID (with format), SessionIndex. */
  request: Profile;
}

/** An IdP's LogoutResponse to our LogoutRequest, verified; `inResponseTo` is matched by the caller. */
export interface VerifiedLogoutResponse {
  provider: SamlProvider;
  inResponseTo?: string;
}

/**
 * The SAML side of single logout (SPEC §17) on node-saml's public `SAML` class: our LogoutRequest
 * (`getLogoutUrlAsync`, signed when the SP has a key), the IdP's LogoutRequests on both bindings
 * (`validateRedirectAsync` with the raw query string the signature covers, `validatePostRequestAsync`)
 * and its LogoutResponses, and our LogoutResponse (`getLogoutResponseUrlAsync`). Added to node-saml,
 * which takes an unsigned Redirect message, a SHA-1 signature, and any Destination, age or replay:
 * a signature is required on both bindings, the Destination must be ours, the request recent and used
 * once (its ID goes to the shared replay cache, only after the signature verified).
 */
@Injectable()
export class SamlLogout {
  constructor(
    private readonly saml: SamlLogin,
    private readonly store: PendingStateService,
    private readonly clock: Clock,
  ) {}

  /** Our LogoutRequest to the IdP's `slo_url` by HTTP-Redirect, and its ID (the answer must name it); null without `slo_url`. */
  async requestUrl(provider: SamlProvider, subject: SamlSubject, relayState: string): Promise<{ url: string; requestId: string } | null> {
    if (!provider.idp.slo_url) return null;
    const user: Profile = {
      issuer: provider.idp.entity_id,
      nameID: subject.nameID,
      nameIDFormat: subject.nameIDFormat ?? '',
      nameQualifier: subject.nameQualifier,
      spNameQualifier: subject.spNameQualifier,
      sessionIndex: subject.sessionIndex,
    };
    let url: string;
    try {
      url = await provider.logout.getLogoutUrlAsync(user, relayState, {});
    } catch (err) {
      throw new SsoFailure('unavailable', `LogoutRequest not built: ${describeError(err)}`);
    }
    const sent = readSamlMessage(inflateRedirectMessage(new URL(url).searchParams.get('SAMLRequest') ?? ''));
    if (!sent.id) throw new SsoFailure('unavailable', 'LogoutRequest without an ID');
    return { url, requestId: sent.id };
  }

  /** An IdP's LogoutRequest, verified (signature, issuer, destination, age, once), or LogoutRefused. */
  async verifyRequest(incoming: SamlBinding, trace: RequestTrace): Promise<VerifiedLogoutRequest> {
    const encoded = field(incoming, 'SAMLRequest');
    const message = read(incoming, encoded);
    if (message.kind !== 'LogoutRequest') throw new LogoutRefused(`a ${message.kind} where a LogoutRequest was expected`);
    if (incoming.binding === 'redirect') requireRedirectSignature(incoming.query);
    const { provider, profile } = await this.verifiedBySender(message, trace, (p) =>
      incoming.binding === 'redirect'
        ? p.logout.validateRedirectAsync(strings(incoming.query), incoming.rawQuery)
        : p.logout.validatePostRequestAsync({ SAMLRequest: encoded }),
    );
    if (!profile?.nameID || !profile.ID) throw new LogoutRefused('LogoutRequest without NameID or ID');
    this.checkDestination(message);
    const issued = Date.parse(message.issueInstant ?? '');
    const now = this.clock.now().getTime();
    if (Number.isNaN(issued)) throw new LogoutRefused('LogoutRequest without a readable IssueInstant');
    if (issued - SAML_CLOCK_SKEW_MS > now) throw new LogoutRefused('LogoutRequest issued in the future');
    if (issued + LOGOUT_REQUEST_MAX_AGE_MS + SAML_CLOCK_SKEW_MS < now) throw new LogoutRefused('LogoutRequest too old');
    // Used once: a replay after the user logged in again would end the new session. Signed, so only the IdP can add rows.
    const id = profile.ID.length <= 128 ? profile.ID : sha256Hex(profile.ID);
    const ttlSeconds = Math.max(60, Math.ceil((issued + LOGOUT_REQUEST_MAX_AGE_MS + 2 * SAML_CLOCK_SKEW_MS - now) / 1000));
    if (!(await this.store.add(`samllogout:${provider.name}:${id}`, provider.key, null, ttlSeconds))) throw new LogoutRefused('LogoutRequest already used');
    return { provider, request: profile };
  }

  /** Our LogoutResponse (Success) to the IdP's `slo_url`, with the request's RelayState; null without `slo_url`. */
  async responseUrl(verified: VerifiedLogoutRequest, relayState: string): Promise<string | null> {
    if (!verified.provider.idp.slo_url) return null;
    try {
      return await verified.provider.logout.getLogoutResponseUrlAsync(verified.request, relayState, {}, true);
    } catch (err) {
      throw new SsoFailure('unavailable', `LogoutResponse not built: ${describeError(err)}`);
    }
  }

  /**
   * The IdP's LogoutResponse to our LogoutRequest: signed on either binding, from the IdP, to us, Success.
   * `expected` is the IdP our pending logout went to (from the RelayState), else the sender by its Issuer.
   */
  async verifyResponse(incoming: SamlBinding, expected: string | undefined, trace: RequestTrace): Promise<VerifiedLogoutResponse> {
    const encoded = field(incoming, 'SAMLResponse');
    const message = read(incoming, encoded);
    if (message.kind !== 'LogoutResponse') throw new LogoutRefused(`a ${message.kind} where a LogoutResponse was expected`);
    if (incoming.binding === 'redirect') requireRedirectSignature(incoming.query);
    if (expected !== undefined && !this.saml.namesOf(message.issuer).includes(expected)) throw new LogoutRefused('LogoutResponse from another IdP');
    const { provider } = await this.verifiedBySender(message, trace, (p) =>
      incoming.binding === 'redirect'
        ? p.logout.validateRedirectAsync(strings(incoming.query), incoming.rawQuery)
        : p.logout.validatePostResponseAsync({ SAMLResponse: encoded }),
    );
    this.checkDestination(message);
    if (message.status !== SUCCESS) throw new LogoutRefused(`LogoutResponse status ${message.status ?? 'missing'}`);
    return { provider, inResponseTo: message.inResponseTo };
  }

  private checkDestination(message: SamlMessage): void {
    if (message.destination !== undefined && message.destination !== this.saml.serviceProvider().sloUrl) throw new LogoutRefused('Destination is not our single logout service');
  }

  /** Verifies a message with each enabled IdP that has its Issuer as entity id, until one accepts it. */
  private async verifiedBySender<T extends { profile?: Profile | null }>(
    message: SamlMessage,
    trace: RequestTrace,
    verify: (provider: SamlProvider) => Promise<T>,
  ): Promise<{ provider: SamlProvider; profile?: Profile | null }> {
    const names = this.saml.namesOf(message.issuer);
    if (!names.length) throw new LogoutRefused('Issuer is no enabled IdP');
    let refusal = '';
    for (const name of names) {
      const provider = await this.saml.provider(name, trace);
      try {
        const { profile } = await verify(provider);
        return { provider, profile };
      } catch (err) {
        refusal ||= describeError(err);
      }
    }
    throw new LogoutRefused(`refused by node-saml: ${refusal}`);
  }
}

function field(incoming: SamlBinding, name: 'SAMLRequest' | 'SAMLResponse'): string {
  const value = (incoming.binding === 'redirect' ? incoming.query : incoming.body)[name];
  if (typeof value !== 'string' || !value) throw new LogoutRefused(`no ${name}`);
  return value;
}

/** The message's XML read before any check, to find its sender: size-capped, no DTD. */
function read(incoming: SamlBinding, encoded: string): SamlMessage {
  try {
    return readSamlMessage(incoming.binding === 'redirect' ? inflateRedirectMessage(encoded) : decodePostMessage(encoded));
  } catch (err) {
    throw new LogoutRefused(err instanceof SsoFailure ? (err.detail ?? err.code) : 'unreadable message');
  }
}

/**
 * SAML Profiles 4.4.3.5 and 4.4.4.2: logout messages on a front-channel binding must be signed. node-saml
 * checks a Redirect signature only when one is present, and with any hash: both are required here.
 */
function requireRedirectSignature(query: Record<string, unknown>): void {
  if (typeof query.Signature !== 'string' || !query.Signature) throw new LogoutRefused('unsigned logout message');
  if (typeof query.SigAlg !== 'string' || !REDIRECT_SIGNATURE_ALGORITHMS.has(query.SigAlg)) throw new LogoutRefused('signature algorithm not accepted');
}

/** The query as node-saml reads it: each parameter once (a repeated one is refused, not guessed at). */
function strings(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string') throw new LogoutRefused(`parameter ${name.slice(0, 40)} repeated`);
    out[name] = value;
  }
  return out;
}
