import request from 'supertest';

/** The service a browser talks to: where it really listens, and the PUBLIC_URL its links name (a TestApp, or a spawned node). */
export interface ServiceAddress {
  url: string;
  config: { publicUrl: string };
}

/**
 * A browser for single sign-on flows: one cookie jar across the service and the identity provider
 * (both on 127.0.0.1, as cookies ignore ports), absolute URLs, redirects followed one at a time by
 * the test. Links to PUBLIC_URL (callback URLs, the ACS) are sent to the test app's real address.
 */
export class Browser {
  readonly agent = request.agent('');

  constructor(private readonly t: ServiceAddress) {}

  url(location: string): string {
    const publicUrl = this.t.config.publicUrl;
    if (location.startsWith('/')) return this.t.url + location;
    if (location === publicUrl || location.startsWith(`${publicUrl}/`)) return this.t.url + location.slice(publicUrl.length);
    return location;
  }

  get(location: string) {
    return this.agent.get(this.url(location)).redirects(0);
  }

  postForm(location: string, form: Record<string, string>, headers: Record<string, string> = {}) {
    return this.agent.post(this.url(location)).redirects(0).set(headers).type('form').send(form);
  }

  /** A cookie this browser holds for 127.0.0.1 (HttpOnly ones included: the test reads what the browser would send). */
  cookie(name: string, path = '/'): string | undefined {
    const jar = (this.agent as unknown as { jar: { getCookie(name: string, access: unknown): { value: string } | undefined } }).jar;
    const { CookieAccessInfo } = require('cookiejar') as { CookieAccessInfo: new (...a: unknown[]) => unknown };
    return jar.getCookie(name, new CookieAccessInfo('127.0.0.1', path, false, false))?.value;
  }
}
