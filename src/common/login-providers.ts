import { Injectable } from '@nestjs/common';

export interface LoginProvider {
  /** Key as in /api/v2/auth/, e.g. "oidc:corp" or "saml:okta". */
  key: string;
  /** Human name shown on the button. */
  label: string;
  loginUrl: string;
}

/**
 * Single sign-on methods the login page shows as buttons, and the texts of their failures (the
 * page shows `?sso_error=<code>`). The SSO module registers both at start-up, so `auth` renders
 * them without importing `sso`.
 */
@Injectable()
export class LoginProviders {
  private sources: (() => LoginProvider[])[] = [];
  private readonly errors = new Map<string, string>();

  register(source: () => LoginProvider[]): void {
    this.sources.push(source);
  }

  list(): LoginProvider[] {
    return this.sources.flatMap((source) => source());
  }

  registerErrors(messages: Record<string, string>): void {
    for (const [code, message] of Object.entries(messages)) this.errors.set(code, message);
  }

  /** The message of a known failure code; anything else shows nothing (no text from the URL is echoed). */
  errorMessage(code: unknown): string | undefined {
    return typeof code === 'string' ? this.errors.get(code) : undefined;
  }
}
