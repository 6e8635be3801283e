import { Inject, Injectable, Logger } from '@nestjs/common';
import * as jose from 'jose';
import * as client from 'openid-client';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { RequestTrace } from '../../common/request-context';
import { SettingsService } from '../../settings/settings.service';
import type { Claims } from '../../maps/map-contract';
import { textAttributes } from '../../maps/claims-record';
import { ExternalIdentity, stringClaim } from '../external-identity';
import { createOutgoingFetch, trustedCas } from '../outgoing-fetch';
import { ProviderCache } from '../provider-cache';
import { describeError, SsoFailure } from '../sso-failure';
import { isLoopbackHttp, OidcProviderConfig } from '../sso-settings';

/** openid-client's own tolerance for `exp`/`iat`, applied again against the injectable clock. */
export const CLOCK_TOLERANCE_SECONDS = 30;
const DISCOVERY_TIMEOUT_SECONDS = 10;

/** One configured provider as discovered: its settings, openid-client's configuration and its signing keys. */
export interface OidcProvider {
  name: string;
  /** "oidc:<name>" */
  key: string;
  settings: OidcProviderConfig;
  configuration: client.Configuration;
  /** The provider's JWKS (from discovery), fetched when a logout token first needs it. */
  keys?: ReturnType<typeof jose.createRemoteJWKSet>;
}

/** What the authorization request binds to the browser, sealed into its start cookie until the callback (SsoStarts). */
export interface OidcTransaction {
  code_verifier: string;
  state: string;
  nonce: string;
}

export interface OidcLoginResult {
  identity: ExternalIdentity;
  /** The provider's session (`sid` of the ID token), when it names one: back-channel logout matches it. */
  sid?: string;
  /** The raw ID token: `id_token_hint` of the logout redirect. */
  idToken: string;
}

/**
 * OpenID Connect logins on openid-client's public functional API: discovery, the authorization URL
 * (with PKCE S256, `state` and `nonce`, all three always sent and checked), the authorization-code
 * grant, userinfo, and the end-session URL of RP-initiated logout.
 */
@Injectable()
export class OidcLogin {
  private readonly logger = new Logger('sso');
  private readonly providers = new ProviderCache<OidcProvider>();
  private readonly fetch: ReturnType<typeof createOutgoingFetch>;

  constructor(
    private readonly settings: SettingsService,
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

  /** `post_logout_redirect_uri` of RP-initiated logout (SPEC §17). */
  get postLogoutUrl(): string {
    return `${this.config.publicUrl}/sso/logout/oidc/`;
  }

  backchannelUrl(name: string): string {
    return `${this.config.publicUrl}/sso/backchannel/oidc/?idp=${encodeURIComponent(name)}`;
  }

  /**
   * A configured provider, discovered on the first use after its settings changed (the request that
   * discovers it, `trace`, is the one its ready line belongs to; later requests share the result).
   */
  async provider(name: string, trace: RequestTrace): Promise<OidcProvider> {
    const configured = this.configured();
    const settings = Object.hasOwn(configured, name) ? configured[name] : undefined;
    if (!settings) throw new SsoFailure('unknown_provider');
    try {
      return await this.providers.get(name, JSON.stringify(settings), Object.keys(configured), () => this.discover(name, settings, trace));
    } catch (err) {
      throw new SsoFailure('unavailable', `discovery failed: ${describeError(err)}`);
    }
  }

  /** The redirect to the provider, and the transaction the browser keeps (sealed) until the callback. */
  async authorizationRequest(provider: OidcProvider): Promise<{ url: string; transaction: OidcTransaction }> {
    const transaction = { code_verifier: client.randomPKCECodeVerifier(), state: client.randomState(), nonce: client.randomNonce() };
    const url = client.buildAuthorizationUrl(provider.configuration, {
      redirect_uri: this.callbackUrl,
      scope: provider.settings.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(transaction.code_verifier),
      code_challenge_method: 'S256',
      state: transaction.state,
      nonce: transaction.nonce,
    });
    return { url: url.href, transaction };
  }

  /** The callback: state, PKCE, then the ID token (issuer, audience, nonce, signature, expiry), then the profile. */
  async complete(provider: OidcProvider, transaction: OidcTransaction, callbackQuery: URLSearchParams): Promise<OidcLoginResult> {
    const currentUrl = new URL(this.callbackUrl);
    for (const [name, value] of callbackQuery) currentUrl.searchParams.append(name, value);
    let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
    try {
      tokens = await client.authorizationCodeGrant(provider.configuration, currentUrl, {
        pkceCodeVerifier: transaction.code_verifier,
        expectedState: transaction.state,
        expectedNonce: transaction.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      // The provider's `error=access_denied`: the user cancelled, or the provider refused them.
      if (err instanceof client.AuthorizationResponseError && err.error === 'access_denied') {
        throw new SsoFailure('denied', `provider: ${(err.error_description || err.error).slice(0, 200)}`);
      }
      throw new SsoFailure('invalid_response', describeError(err));
    }
    return this.identity(provider, tokens);
  }

  /** RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0), or null when the provider has no end_session_endpoint. */
  endSessionUrl(provider: OidcProvider, idToken: string): string | null {
    if (!provider.configuration.serverMetadata().end_session_endpoint) return null;
    return client.buildEndSessionUrl(provider.configuration, {
      id_token_hint: idToken,
      client_id: provider.settings.client_id,
      post_logout_redirect_uri: this.postLogoutUrl,
    }).href;
  }

  /** The provider's signing keys, fetched through our outgoing fetch when first needed and cached by jose (with its cooldown). */
  keysOf(provider: OidcProvider): ReturnType<typeof jose.createRemoteJWKSet> {
    const jwksUri = provider.configuration.serverMetadata().jwks_uri;
    if (!jwksUri) throw new SsoFailure('unavailable', 'the provider publishes no jwks_uri');
    provider.keys ??= jose.createRemoteJWKSet(new URL(jwksUri), {
      [jose.customFetch]: this.fetch,
      timeoutDuration: DISCOVERY_TIMEOUT_SECONDS * 1000,
    });
    return provider.keys;
  }

  private async discover(name: string, settings: OidcProviderConfig, trace: RequestTrace): Promise<OidcProvider> {
    const secret = settings.client_secret;
    // client_secret_basic is OpenID Connect's default method; post only where the provider lacks it.
    const auth: client.ClientAuth = (as, meta, body, headers) => {
      if (!secret) return client.None()(as, meta, body, headers);
      const methods = as.token_endpoint_auth_methods_supported;
      const method = !methods || methods.includes('client_secret_basic') ? client.ClientSecretBasic(secret) : client.ClientSecretPost(secret);
      return method(as, meta, body, headers);
    };
    // Plain http is accepted by the settings only for loopback issuers (test and development IdPs).
    const execute = isLoopbackHttp(settings.issuer) ? [client.allowInsecureRequests] : [];
    const configuration = await client.discovery(new URL(settings.issuer), settings.client_id, secret ? { client_secret: secret } : undefined, auth, {
      [client.customFetch]: this.fetch,
      execute,
      timeout: DISCOVERY_TIMEOUT_SECONDS,
    });
    // Code-flow ID tokens arrive over TLS from the token endpoint, which OIDC Core lets clients trust
    // unsigned-checked; SPEC §7 asks for the signature to be verified, so we do (JWKS from discovery).
    client.enableNonRepudiationChecks(configuration);
    const key = `oidc:${name}`;
    this.logger.log({ event: 'sso_provider_ready', provider: key, issuer: settings.issuer, ...trace });
    return { name, key, settings, configuration };
  }

  /** ID-token claims (already checked by openid-client), re-checked against our clock, plus userinfo. */
  private async identity(provider: OidcProvider, tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers): Promise<OidcLoginResult> {
    const idClaims = tokens.claims();
    if (!idClaims || !tokens.id_token) throw new SsoFailure('invalid_response', 'no ID token');
    const now = Math.floor(this.clock.now().getTime() / 1000);
    if (idClaims.exp + CLOCK_TOLERANCE_SECONDS <= now) throw new SsoFailure('invalid_response', 'ID token expired');
    if (idClaims.iat - CLOCK_TOLERANCE_SECONDS > now) throw new SsoFailure('invalid_response', 'ID token issued in the future');
    let claims: Record<string, unknown> = { ...idClaims };
    // Providers such as oidc-provider put profile claims only in userinfo when an access token is issued.
    if (tokens.access_token && provider.configuration.serverMetadata().userinfo_endpoint) {
      try {
        const userinfo = await client.fetchUserInfo(provider.configuration, tokens.access_token, idClaims.sub);
        claims = { ...userinfo, ...idClaims };
      } catch (err) {
        throw new SsoFailure('invalid_response', describeError(err));
      }
    }
    const { settings } = provider;
    return {
      identity: {
        provider: provider.key,
        uid: idClaims.sub,
        username: stringClaim(claims[settings.attr_username]),
        email: stringClaim(claims[settings.attr_email]),
        firstName: stringClaim(claims[settings.attr_first_name]),
        lastName: stringClaim(claims[settings.attr_last_name]),
        claims: oidcClaims(claims, settings, (reason) => this.logger.warn({ event: 'sso_groups_unreadable', provider: provider.key, claim: settings.groups_claim ?? 'groups', reason })),
      },
      sid: typeof idClaims.sid === 'string' && idClaims.sid ? idClaims.sid : undefined,
      idToken: tokens.id_token,
    };
  }
}

/**
 * The maps' view of an OpenID Connect login (SPEC §21): the groups claim (`groups_claim`, default "groups")
 * from the ID token, else userinfo (`claims` already merged so, the ID token winning), an array's strings or
 * one string; any other shape (Entra ID's group overage, `_claim_names`) is no groups, and `unreadable` says
 * why for the log. Attributes are the top-level claims whose values are text, numbers, booleans or arrays of them.
 */
export function oidcClaims(claims: Record<string, unknown>, settings: OidcProviderConfig, unreadable: (reason: string) => void): Claims {
  const name = settings.groups_claim ?? 'groups';
  const value = claims[name];
  let groups: string[] = [];
  if (typeof value === 'string') groups = [value];
  else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) groups = value as string[];
  else if (value !== undefined) unreadable(`the ${name} claim is not a string or a list of strings`);
  else if (claims._claim_names && typeof claims._claim_names === 'object' && name in (claims._claim_names as object)) unreadable(`the ${name} claim is distributed (_claim_names): group overage`);
  const attributes: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(claims)) {
    const values = Array.isArray(item) ? item : [item];
    if (values.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) attributes[key] = item;
  }
  return { username: stringClaim(claims[settings.attr_username]) ?? '', email: stringClaim(claims[settings.attr_email]) ?? null, groups, attributes: textAttributes(attributes) };
}
