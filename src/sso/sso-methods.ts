import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { LoginProvider } from '../common/login-providers';
import { OidcLogin } from './oidc/oidc-login.service';
import { SamlLogin } from './saml/saml-login.service';

export const SAML_METADATA_PATH = '/sso/metadata/saml/';

export interface SsoMethod {
  key: string;
  name: string;
  kind: 'oidc' | 'saml';
  loginUrl: string;
  completeUrl: string;
  /** What to register at the provider for single logout (SPEC §17): OIDC's back-channel URL, SAML's SLO service. */
  logoutUrl: string;
}

/** The enabled single sign-on methods, as `/api/v2/auth/` and the login page show them. */
@Injectable()
export class SsoMethods {
  constructor(
    private readonly oidc: OidcLogin,
    private readonly saml: SamlLogin,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  list(): SsoMethod[] {
    const methods: SsoMethod[] = [
      ...Object.keys(this.oidc.configured()).map((name) => ({
        key: `oidc:${name}`,
        name,
        kind: 'oidc' as const,
        loginUrl: `/sso/login/oidc/?idp=${encodeURIComponent(name)}`,
        completeUrl: `${this.config.publicUrl}/sso/complete/oidc/`,
        logoutUrl: this.oidc.backchannelUrl(name),
      })),
      ...Object.keys(this.saml.configured()).map((name) => ({
        key: `saml:${name}`,
        name,
        kind: 'saml' as const,
        loginUrl: `/sso/login/saml/?idp=${encodeURIComponent(name)}`,
        completeUrl: `${this.config.publicUrl}/sso/complete/saml/`,
        logoutUrl: this.saml.serviceProvider().sloUrl,
      })),
    ];
    return methods.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /**
   * `GET /api/v2/auth/` (AWX's AuthView): keyed by method, SAML entries with the metadata URL; OIDC entries
   * add `backchannel_logout_url` and SAML entries `slo_url` (SPEC §17).
   */
  describe(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const method of this.list()) {
      out[method.key] = { login_url: method.loginUrl, complete_url: method.completeUrl };
      if (method.kind === 'oidc') out[method.key].backchannel_logout_url = method.logoutUrl;
      if (method.kind === 'saml') Object.assign(out[method.key], { metadata_url: SAML_METADATA_PATH, slo_url: method.logoutUrl });
    }
    return out;
  }

  /** One login-page button per entry of `/api/v2/auth/` (SPEC §7, §13). */
  loginButtons(): LoginProvider[] {
    return this.list().map((method) => ({
      key: method.key,
      label: `${method.name} (${method.kind === 'oidc' ? 'OpenID Connect' : 'SAML'})`,
      loginUrl: method.loginUrl,
    }));
  }
}
