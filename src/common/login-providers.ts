import { Injectable } from '@nestjs/common';

export interface LoginProvider {
  /** Key as in /api/v2/auth/, e.g. "oidc:corp" or "saml:okta". */
  key: string;
  /** Human name shown on the button. */
  label: string;
  loginUrl: string;
}

/**
 * Single sign-on methods the login page shows as buttons. The SSO module registers a source at
 * start-up, so `auth` renders the buttons without importing `sso`.
 */
@Injectable()
export class LoginProviders {
  private sources: (() => LoginProvider[])[] = [];

  register(source: () => LoginProvider[]): void {
    this.sources.push(source);
  }

  list(): LoginProvider[] {
    return this.sources.flatMap((source) => source());
  }
}
