import { CacheProvider, SamlConfig, ValidateInResponseTo } from '@node-saml/node-saml';
import type { SamlIdpConfig } from '../sso-settings';

/** Tolerated clock difference with an IdP for NotBefore/NotOnOrAfter (node-saml's default is none). */
export const SAML_CLOCK_SKEW_MS = 60 * 1000;
/** How long an AuthnRequest (and its RelayState) waits for its answer. */
export const SAML_REQUEST_TTL_SECONDS = 10 * 60;
export const NAMEID_UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';

export interface ServiceProvider {
  entityId: string;
  acsUrl: string;
  /** Our single logout service (SPEC §17), for both bindings. */
  sloUrl: string;
  publicCert: string;
  privateKey: string;
}

/**
 * node-saml options for one IdP, with the defaults changed where SAML's profiles or SPEC §7 ask for
 * more than node-saml does by itself (security checklist §3.1):
 * - the assertion must be signed by the configured certificate (the Response may be signed too);
 * - InResponseTo is required and checked against our AuthnRequest (the one the sealed RelayState names);
 * - a small clock skew instead of none;
 * - AuthnRequests (HTTP-Redirect) carry Issuer = SP entity id and are signed with sha256 when the SP
 *   has a key (node-saml defaults to sha1).
 * Recipient, Destination, Issuer and the replay cache, which node-saml leaves out, are SamlChecks.
 */
export function samlOptions(idp: SamlIdpConfig, sp: ServiceProvider, cacheProvider: CacheProvider): SamlConfig {
  return {
    issuer: sp.entityId,
    audience: sp.entityId,
    callbackUrl: sp.acsUrl,
    entryPoint: idp.url,
    idpCert: idp.x509cert,
    idpIssuer: idp.entity_id,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SAML_REQUEST_TTL_SECONDS * 1000,
    cacheProvider,
    identifierFormat: NAMEID_UNSPECIFIED,
    // Requesting PasswordProtectedTransport (node-saml's default) makes IdPs with MFA or Kerberos refuse.
    disableRequestedAuthnContext: true,
    authnRequestBinding: 'HTTP-Redirect',
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    ...(sp.privateKey ? { privateKey: sp.privateKey, publicCert: sp.publicCert } : {}),
  };
}

/**
 * node-saml options for the logout exchanges with one IdP (SPEC §17): the login's, with the IdP's
 * `slo_url` as the destination of our LogoutRequests and LogoutResponses, and InResponseTo checked when
 * present instead of always: an IdP's own LogoutRequest answers nothing of ours, and the answer to our
 * LogoutRequest is matched against the request id kept with its RelayState (SingleLogout).
 */
export function samlLogoutOptions(idp: SamlIdpConfig, sp: ServiceProvider, cacheProvider: CacheProvider): SamlConfig {
  return { ...samlOptions(idp, sp, cacheProvider), validateInResponseTo: ValidateInResponseTo.ifPresent, logoutUrl: idp.slo_url || idp.url };
}
