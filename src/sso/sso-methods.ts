import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { LoginProvider } from '../common/login-providers';
import { OidcProviders } from './oidc-providers.service';
import { SamlProviders } from './saml-providers.service';

export const SAML_METADATA_PATH = '/sso/metadata/saml/';

export interface SsoMethod {
  key: string;
  name: string;
  kind: 'oidc' | 'saml';
  loginUrl: string;
  completeUrl: string;
}

/** The enabled single sign-on methods, as `/api/v2/auth/` and the login page show them. */
@Injectable()
export class SsoMethods {
  constructor(
    private readonly oidc: OidcProviders,
    private readonly saml: SamlProviders,
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
      })),
      ...Object.keys(this.saml.configured()).map((name) => ({
        key: `saml:${name}`,
        name,
        kind: 'saml' as const,
        loginUrl: `/sso/login/saml/?idp=${encodeURIComponent(name)}`,
        completeUrl: `${this.config.publicUrl}/sso/complete/saml/`,
      })),
    ];
    return methods.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** `GET /api/v2/auth/` (AWX's AuthView): keyed by method, SAML entries with the metadata URL. */
  describe(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const method of this.list()) {
      out[method.key] = { login_url: method.loginUrl, complete_url: method.completeUrl };
      if (method.kind === 'saml') out[method.key].metadata_url = SAML_METADATA_PATH;
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
