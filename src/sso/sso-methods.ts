import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { LoginProvider } from '../common/login-providers';
import { SsoProtocols } from './sso-protocol';

export interface SsoMethod {
  key: string;
  name: string;
  kind: string;
  /** How the login page names the protocol ("OpenID Connect"). */
  protocolLabel: string;
  loginUrl: string;
  completeUrl: string;
  /** What `/api/v2/auth/` shows beside the two URLs (the protocol's own: logout endpoints, metadata). */
  extra: Record<string, string>;
}

/** The enabled single sign-on methods of every registered protocol, as `/api/v2/auth/` and the login page show them. */
@Injectable()
export class SsoMethods {
  constructor(
    private readonly protocols: SsoProtocols,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  list(): SsoMethod[] {
    const methods = this.protocols.all().flatMap((protocol) =>
      protocol.names().map((name) => ({
        key: `${protocol.kind}:${name}`,
        name,
        kind: protocol.kind,
        protocolLabel: protocol.label,
        loginUrl: `/sso/login/${protocol.kind}/?idp=${encodeURIComponent(name)}`,
        completeUrl: `${this.config.publicUrl}/sso/complete/${protocol.kind}/`,
        extra: protocol.describe(name),
      })),
    );
    return methods.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** `GET /api/v2/auth/` (AWX's AuthView): keyed by method, with what each protocol adds (SPEC §7, §17). */
  describe(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const method of this.list()) out[method.key] = { login_url: method.loginUrl, complete_url: method.completeUrl, ...method.extra };
    return out;
  }

  /** One login-page button per entry of `/api/v2/auth/` (SPEC §7, §13). */
  loginButtons(): LoginProvider[] {
    return this.list().map((method) => ({ key: method.key, label: `${method.name} (${method.protocolLabel})`, loginUrl: method.loginUrl }));
  }
}
