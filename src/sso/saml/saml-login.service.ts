import { Inject, Injectable, Logger } from '@nestjs/common';
import { generateServiceProviderMetadata, Profile, SAML, SamlConfig } from '@node-saml/node-saml';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { RequestTrace } from '../../common/request-context';
import { sha256Hex } from '../../common/secret-box';
import { PendingStateService } from '../../pending-state/pending-state.service';
import { SettingsService } from '../../settings/settings.service';
import type { ExternalIdentity } from '../external-identity';
import { ProviderCache } from '../provider-cache';
import { describeError, SsoFailure } from '../sso-failure';
import type { SamlIdpConfig } from '../sso-settings';
import { SamlRequestCache, SealedRequestCache } from './saml-cache';
import { checkAssertion, samlIdentity } from './saml-checks';
import { NAMEID_UNSPECIFIED, SAML_REQUEST_TTL_SECONDS, samlLogoutOptions, samlOptions, ServiceProvider } from './saml-config';

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/**
 * One enabled IdP as node-saml sees it: the instance of the logout exchanges. A login's AuthnRequest is built by
 * an instance of its own, since its id is chosen by the start (`authorizeUrl`).
 */
export interface SamlProvider {
  name: string;
  /** "saml:<name>" */
  key: string;
  idp: SamlIdpConfig;
  logout: SAML;
}

/** The subject of a SAML login as the IdP named it, which its LogoutRequests name again (SPEC §17). */
export interface SamlSubject {
  nameID: string;
  nameIDFormat?: string;
  nameQualifier?: string;
  spNameQualifier?: string;
  sessionIndex?: string;
}

export interface SamlLoginResult {
  identity: ExternalIdentity;
  subject: SamlSubject;
}

/**
 * SAML 2.0 logins on node-saml's public `SAML` class: AuthnRequests by HTTP-Redirect, the ACS's
 * signed Response checked by node-saml and then by the checks it leaves out (saml-checks.ts), the
 * replay cache of assertion ids, and our SP metadata.
 */
@Injectable()
export class SamlLogin {
  private readonly logger = new Logger('sso');
  private readonly providers = new ProviderCache<SamlProvider>();

  constructor(
    private readonly settings: SettingsService,
    private readonly store: PendingStateService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  configured(): Record<string, SamlIdpConfig> {
    return this.settings.get<Record<string, SamlIdpConfig>>('SOCIAL_AUTH_SAML_ENABLED_IDPS') ?? {};
  }

  serviceProvider(): ServiceProvider {
    return {
      entityId: this.settings.get<string>('SOCIAL_AUTH_SAML_SP_ENTITY_ID') || this.config.publicUrl,
      acsUrl: `${this.config.publicUrl}/sso/complete/saml/`,
      sloUrl: `${this.config.publicUrl}/sso/logout/saml/`,
      publicCert: this.settings.get<string>('SOCIAL_AUTH_SAML_SP_PUBLIC_CERT'),
      privateKey: this.settings.get<string>('SOCIAL_AUTH_SAML_SP_PRIVATE_KEY'),
    };
  }

  /**
   * The SP metadata IdPs import: entity id, ACS (HTTP-POST), the single logout service on both bindings
   * (node-saml writes the POST one; the Redirect one is added beside it), signing certificate when configured.
   */
  metadata(): string {
    const sp = this.serviceProvider();
    const xml = generateServiceProviderMetadata({
      issuer: sp.entityId,
      callbackUrl: sp.acsUrl,
      logoutCallbackUrl: sp.sloUrl,
      // node-saml lists the signing certificate only when it is given the key that goes with it.
      ...(sp.privateKey && sp.publicCert ? { privateKey: sp.privateKey, publicCerts: sp.publicCert } : {}),
      identifierFormat: NAMEID_UNSPECIFIED,
      wantAssertionsSigned: true,
      signMetadata: false,
    });
    const location = sp.sloUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    return xml.replace(/(<SingleLogoutService\b[^>]*\/>)/, `$1\n    <SingleLogoutService Binding="${REDIRECT_BINDING}" Location="${location}"/>`);
  }

  /** An enabled IdP, its node-saml instances (re)built when its or the SP's settings changed. */
  async provider(name: string, trace: RequestTrace): Promise<SamlProvider> {
    const configured = this.configured();
    const idp = Object.hasOwn(configured, name) ? configured[name] : undefined;
    if (!idp) throw new SsoFailure('unknown_provider');
    const sp = this.serviceProvider();
    return this.providers.get(name, JSON.stringify([idp, sp]), Object.keys(configured), async () => this.build(name, idp, sp, trace));
  }

  /** The names of the enabled IdPs whose entity id is `issuer` (a logout message names its sender only so). */
  namesOf(issuer: string | undefined): string[] {
    return Object.entries(this.configured())
      .filter(([, idp]) => issuer !== undefined && idp.entity_id === issuer)
      .map(([name]) => name)
      .sort();
  }

  /**
   * The AuthnRequest (HTTP-Redirect, signed when the SP has a key) with RelayState, its ID `requestId`: chosen by
   * the start and sealed into the RelayState, so no node keeps it (node-saml's cache is SealedRequestCache).
   */
  async authorizeUrl(provider: SamlProvider, relayState: string, requestId: string): Promise<string> {
    try {
      const options = samlOptions(provider.idp, this.serviceProvider(), new SealedRequestCache(requestId));
      return await new SAML({ ...options, generateUniqueId: () => requestId }).getAuthorizeUrlAsync(relayState, undefined, {});
    } catch (err) {
      throw new SsoFailure('unavailable', describeError(err));
    }
  }

  /**
   * The node-saml options of the ACS for one IdP: what `MultiSamlStrategy` (@node-saml/passport-saml) builds
   * its SAML from, the same as the AuthnRequest's, with the one request the sealed RelayState names as pending.
   */
  acsOptions(provider: SamlProvider, requestId: string): SamlConfig {
    return samlOptions(provider.idp, this.serviceProvider(), new SealedRequestCache(requestId));
  }

  /**
   * The ACS after node-saml's checks (signature, audience, InResponseTo, time), which passport-saml ran:
   * ours (saml-checks.ts), then the replay cache.
   */
  async acceptProfile(provider: SamlProvider, profile: Profile | null): Promise<SamlLoginResult> {
    if (!profile) throw new SsoFailure('invalid_response', 'no profile');
    const now = this.clock.now();
    const checked = checkAssertion(profile, { idp: provider.idp, acsUrl: this.serviceProvider().acsUrl, now });
    // The flags of SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR are the maps' (SPEC §21): the identity carries the claims.
    const identity = samlIdentity(provider.key, profile, provider.idp);
    // SAML Profiles 4.1.4.5: a bearer assertion is used once. The insert is the check, so two nodes
    // receiving the same assertion at the same moment cannot both accept it.
    const ttlSeconds = Math.max(60, Math.ceil((checked.usableUntil - now.getTime()) / 1000));
    const id = checked.id.length <= 128 ? checked.id : sha256Hex(checked.id);
    if (!(await this.store.add(`assertion:${provider.name}:${id}`, provider.key, null, ttlSeconds))) throw new SsoFailure('replayed', 'assertion id already used');
    return {
      identity,
      subject: {
        nameID: profile.nameID,
        nameIDFormat: profile.nameIDFormat || undefined,
        nameQualifier: profile.nameQualifier || undefined,
        spNameQualifier: profile.spNameQualifier || undefined,
        sessionIndex: profile.sessionIndex || undefined,
      },
    };
  }

  /** Settings are validated when saved; a configuration node-saml still refuses is a broken provider, not a crash. */
  private build(name: string, idp: SamlIdpConfig, sp: ServiceProvider, trace: RequestTrace): SamlProvider {
    const key = `saml:${name}`;
    const cache = new SamlRequestCache(this.store, name, SAML_REQUEST_TTL_SECONDS);
    let built: SamlProvider;
    try {
      // The logout options are the login's and more: node-saml refusing them refuses the login's too.
      built = { name, key, idp, logout: new SAML(samlLogoutOptions(idp, sp, cache)) };
    } catch (err) {
      throw new SsoFailure('unavailable', `SAML configuration refused: ${(err as Error).message}`.slice(0, 300));
    }
    this.logger.log({ event: 'sso_provider_ready', provider: key, entity_id: idp.entity_id, ...trace });
    return built;
  }
}
