import { Inject, Injectable, Logger } from '@nestjs/common';
import * as client from 'openid-client';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { SettingsService } from '../settings/settings.service';
import { ExternalIdentity, stringClaim } from './external-identity';
import { createOutgoingFetch, trustedCas } from './outgoing-fetch';
import { OIDC_SESSION_KEY, OidcStrategy } from './oidc.strategy';
import { SsoFailure } from './sso-failure';
import { SsoPassport } from './sso-passport';
import { isLoopbackHttp, OidcProviderConfig } from './sso-settings';
import { RequestTrace } from '../common/request-context';

/** openid-client's own tolerance for `exp`/`iat`, applied again against the injectable clock. */
const CLOCK_TOLERANCE_SECONDS = 30;
const DISCOVERY_TIMEOUT_SECONDS = 10;

/**
 * One openid-client Passport strategy per configured provider, registered as "oidc:<name>".
 * A strategy is built (discovery included) on the first login after the provider's settings
 * changed, on whichever node serves it, and reused until they change again: never per request.
 */
@Injectable()
export class OidcProviders {
  private readonly logger = new Logger('sso');
  private readonly built = new Map<string, { fingerprint: string; ready: Promise<void> }>();
  private readonly fetch: ReturnType<typeof createOutgoingFetch>;

  constructor(
    private readonly settings: SettingsService,
    private readonly passport: SsoPassport,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.fetch = createOutgoingFetch(trustedCas(config.extraCaCertsFile));
  }

  configured(): Record<string, OidcProviderConfig> {
    return this.settings.get<Record<string, OidcProviderConfig>>('SOCIAL_AUTH_OIDC_PROVIDERS') ?? {};
  }

  get callbackUrl(): string {
    return `${this.config.publicUrl}/sso/complete/oidc/`;
  }

  /**
   * The Passport name of a configured provider's strategy, building it when its settings changed (the
   * login that builds it, `trace`, is the one its ready line belongs to; later logins share the build).
   */
  async strategyName(name: string, trace: RequestTrace): Promise<string> {
    const provider = Object.hasOwn(this.configured(), name) ? this.configured()[name] : undefined;
    if (!provider) throw new SsoFailure('unknown_provider');
    const fingerprint = JSON.stringify(provider);
    let entry = this.built.get(name);
    if (!entry || entry.fingerprint !== fingerprint) {
      const created = { fingerprint, ready: this.build(name, provider, trace) };
      this.built.set(name, created);
      // A failed discovery is retried by the next login instead of being remembered.
      created.ready.catch(() => this.built.get(name) === created && this.built.delete(name));
      entry = created;
    }
    try {
      await entry.ready;
    } catch (err) {
      throw new SsoFailure('unavailable', `discovery failed: ${describe(err)}`);
    }
    return `oidc:${name}`;
  }

  private async build(name: string, provider: OidcProviderConfig, trace: RequestTrace): Promise<void> {
    const secret = provider.client_secret;
    // client_secret_basic is OpenID Connect's default method; post only where the provider lacks it.
    const auth: client.ClientAuth = (as, meta, body, headers) => {
      if (!secret) return client.None()(as, meta, body, headers);
      const methods = as.token_endpoint_auth_methods_supported;
      const method = !methods || methods.includes('client_secret_basic') ? client.ClientSecretBasic(secret) : client.ClientSecretPost(secret);
      return method(as, meta, body, headers);
    };
    // Plain http is accepted by the settings only for loopback issuers (test and development IdPs).
    const execute = isLoopbackHttp(provider.issuer) ? [client.allowInsecureRequests] : [];
    const configuration = await client.discovery(new URL(provider.issuer), provider.client_id, secret ? { client_secret: secret } : undefined, auth, {
      [client.customFetch]: this.fetch,
      execute,
      timeout: DISCOVERY_TIMEOUT_SECONDS,
    });
    // Code-flow ID tokens arrive over TLS from the token endpoint, which OIDC Core lets clients trust
    // unsigned-checked; SPEC §7 asks for the signature to be verified, so we do (JWKS from discovery).
    client.enableNonRepudiationChecks(configuration);
    const key = `oidc:${name}`;
    const strategy = new OidcStrategy(
      { config: configuration, name: key, callbackURL: this.callbackUrl, scope: provider.scopes, sessionKey: OIDC_SESSION_KEY },
      (tokens, done) => {
        this.identity(key, provider, configuration, tokens).then(
          (identity) => done(null, identity),
          (err) => done(err),
        );
      },
    );
    this.passport.use(key, strategy);
    this.logger.log({ event: 'sso_provider_ready', provider: key, issuer: provider.issuer, ...trace });
  }

  /** ID-token claims (already checked by openid-client), re-checked against our clock, plus userinfo. */
  private async identity(
    key: string,
    provider: OidcProviderConfig,
    configuration: client.Configuration,
    tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
  ): Promise<ExternalIdentity> {
    const idClaims = tokens.claims();
    if (!idClaims) throw new SsoFailure('invalid_response', 'no ID token');
    const now = Math.floor(this.clock.now().getTime() / 1000);
    if (idClaims.exp + CLOCK_TOLERANCE_SECONDS <= now) throw new SsoFailure('invalid_response', 'ID token expired');
    if (idClaims.iat - CLOCK_TOLERANCE_SECONDS > now) throw new SsoFailure('invalid_response', 'ID token issued in the future');
    let claims: Record<string, unknown> = { ...idClaims };
    // Providers such as oidc-provider put profile claims only in userinfo when an access token is issued.
    if (tokens.access_token && configuration.serverMetadata().userinfo_endpoint) {
      const userinfo = await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
      claims = { ...userinfo, ...idClaims };
    }
    return {
      provider: key,
      uid: idClaims.sub,
      username: stringClaim(claims[provider.attr_username]),
      email: stringClaim(claims[provider.attr_email]),
      firstName: stringClaim(claims[provider.attr_first_name]),
      lastName: stringClaim(claims[provider.attr_last_name]),
    };
  }
}

/** A library error as one log-safe line: its class, code and message (never a token). */
export function describe(err: unknown): string {
  const e = err as { name?: string; code?: string; error?: string; message?: string; cause?: unknown };
  let cause = e?.cause instanceof Error ? ` (${describe(e.cause)})` : '';
  // A WWW-Authenticate challenge from the provider (e.g. invalid_client at the token endpoint).
  if (Array.isArray(e?.cause)) {
    const challenges = e.cause as { scheme?: string; parameters?: { error?: string } }[];
    cause = ` (${challenges.map((c) => [c.scheme, c.parameters?.error].filter(Boolean).join(' ')).join(', ')})`;
  }
  return ([e?.name, e?.code ?? e?.error, e?.message].filter(Boolean).join(': ') + cause).slice(0, 400);
}
