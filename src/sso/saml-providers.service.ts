import { Inject, Injectable, Logger } from '@nestjs/common';
import { generateServiceProviderMetadata, Profile } from '@node-saml/node-saml';
import { Strategy as SamlStrategy, VerifiedCallback } from '@node-saml/passport-saml';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { sha256Hex } from '../common/secret-box';
import { SettingsService } from '../settings/settings.service';
import type { ExternalIdentity } from './external-identity';
import { SamlRequestCache } from './saml-cache';
import { checkAssertion, samlIdentity } from './saml-checks';
import { NAMEID_UNSPECIFIED, SAML_REQUEST_TTL_SECONDS, samlOptions, ServiceProvider } from './saml-config';
import { SsoFailure } from './sso-failure';
import { SsoPassport } from './sso-passport';
import type { SamlIdpConfig, SamlUserFlags } from './sso-settings';
import { PendingStateService } from '../pending-state/pending-state.service';
import { RequestTrace } from '../common/request-context';

/**
 * One @node-saml/passport-saml strategy per enabled IdP, registered as "saml:<name>" and rebuilt only
 * when the IdP's or the SP's settings change. Its verify step adds the checks node-saml leaves out
 * and the replay cache of assertion ids.
 */
@Injectable()
export class SamlProviders {
  private readonly logger = new Logger('sso');
  private readonly built = new Map<string, string>();

  constructor(
    private readonly settings: SettingsService,
    private readonly passport: SsoPassport,
    private readonly store: PendingStateService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  configured(): Record<string, SamlIdpConfig> {
    return this.settings.get<Record<string, SamlIdpConfig>>('SOCIAL_AUTH_SAML_ENABLED_IDPS') ?? {};
  }

  get acsUrl(): string {
    return `${this.config.publicUrl}/sso/complete/saml/`;
  }

  serviceProvider(): ServiceProvider {
    return {
      entityId: this.settings.get<string>('SOCIAL_AUTH_SAML_SP_ENTITY_ID') || this.config.publicUrl,
      acsUrl: this.acsUrl,
      publicCert: this.settings.get<string>('SOCIAL_AUTH_SAML_SP_PUBLIC_CERT'),
      privateKey: this.settings.get<string>('SOCIAL_AUTH_SAML_SP_PRIVATE_KEY'),
    };
  }

  /** The SP metadata IdPs import: entity id, ACS (HTTP-POST), signing certificate when configured. */
  metadata(): string {
    const sp = this.serviceProvider();
    return generateServiceProviderMetadata({
      issuer: sp.entityId,
      callbackUrl: sp.acsUrl,
      // node-saml lists the signing certificate only when it is given the key that goes with it.
      ...(sp.privateKey && sp.publicCert ? { privateKey: sp.privateKey, publicCerts: sp.publicCert } : {}),
      identifierFormat: NAMEID_UNSPECIFIED,
      wantAssertionsSigned: true,
      signMetadata: false,
    });
  }

  /** The Passport name of an enabled IdP's strategy, (re)built when its settings changed. */
  strategyName(name: string, trace: RequestTrace): string {
    const idp = Object.hasOwn(this.configured(), name) ? this.configured()[name] : undefined;
    if (!idp) throw new SsoFailure('unknown_provider');
    const sp = this.serviceProvider();
    const key = `saml:${name}`;
    const fingerprint = JSON.stringify([idp, sp]);
    if (this.built.get(name) !== fingerprint) {
      const cache = new SamlRequestCache(this.store, name, SAML_REQUEST_TTL_SECONDS);
      const strategy = this.construct(() => new SamlStrategy(
        { ...samlOptions(idp, sp, cache), name: key },
        (profile: Profile | null, done: VerifiedCallback) => {
          this.verify(key, idp, profile).then(
            (identity) => done(null, identity as unknown as Record<string, unknown>),
            (err) => done(err),
          );
        },
        // No SAML single logout (AWX has none either): logout messages are refused.
        (_profile: Profile | null, done: VerifiedCallback) => done(new Error('SAML logout is not supported')),
      ));
      this.passport.use(key, strategy);
      this.built.set(name, fingerprint);
      this.logger.log({ event: 'sso_provider_ready', provider: key, entity_id: idp.entity_id, ...trace });
    }
    return key;
  }

  /** Settings are validated when saved; a strategy node-saml still refuses is a broken provider, not a crash. */
  private construct(build: () => SamlStrategy): SamlStrategy {
    try {
      return build();
    } catch (err) {
      throw new SsoFailure('unavailable', `SAML configuration refused: ${(err as Error).message}`.slice(0, 300));
    }
  }

  private async verify(key: string, idp: SamlIdpConfig, profile: Profile | null): Promise<ExternalIdentity> {
    if (!profile) throw new SsoFailure('invalid_response', 'no profile');
    const now = this.clock.now();
    const checked = await checkAssertion(profile, { idp, acsUrl: this.acsUrl, now });
    const flags = this.settings.get<SamlUserFlags>('SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR') ?? {};
    const identity = samlIdentity(key, profile, idp, flags);
    // SAML Profiles 4.1.4.5: a bearer assertion is used once. The insert is the check, so two nodes
    // receiving the same assertion at the same moment cannot both accept it.
    const ttlSeconds = Math.max(60, Math.ceil((checked.usableUntil - now.getTime()) / 1000));
    const id = checked.id.length <= 128 ? checked.id : sha256Hex(checked.id);
    const first = await this.store.add(`assertion:${key.slice('saml:'.length)}:${id}`, key, null, ttlSeconds);
    if (!first) throw new SsoFailure('replayed', 'assertion id already used');
    return identity;
  }
}
