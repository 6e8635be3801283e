import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { setCookie } from '../common/cookies';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { PermissionDenied } from '../common/errors';
import { constantTimeEqual } from '../common/secret-box';
import { SettingsService } from '../settings/settings.service';

export const CSRF_COOKIE = 'csrftoken';

/**
 * Django-style CSRF protection: a double-submit token (cookie `csrftoken` echoed in `X-CSRFToken`
 * or the form field `csrfmiddlewaretoken`) plus Origin/Referer checks against our own origin and
 * CSRF_TRUSTED_ORIGINS. Failures are 403 `CSRF Failed: <reason>` with Django's reasons.
 */
@Injectable()
export class CsrfService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly settings: SettingsService,
  ) {}

  newToken(): string {
    return randomBytes(32).toString('base64url');
  }

  /** The cookie's token, or a new one set on the response (GET /api/login/ and after login). */
  ensureCookie(req: FastifyRequest, reply: FastifyReply, rotate = false): string {
    const existing = req.cookies?.[CSRF_COOKIE];
    const token = !rotate && typeof existing === 'string' && /^[A-Za-z0-9_-]{32,64}$/.test(existing) ? existing : this.newToken();
    if (token !== existing || rotate) this.setCookie(reply, token);
    return token;
  }

  setCookie(reply: FastifyReply, token: string): void {
    setCookie(reply, CSRF_COOKIE, token, { path: '/', sameSite: 'lax', secure: this.config.csrfCookieSecure, httpOnly: false });
  }

  enforce(req: FastifyRequest): void {
    const fail = (reason: string) => {
      throw new PermissionDenied(`CSRF Failed: ${reason}`);
    };
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null' && !this.isTrusted(req, origin)) {
      fail(`Origin checking failed - ${origin} does not match any trusted origins.`);
    }
    if (origin === 'null') fail('Origin checking failed - null does not match any trusted origins.');
    const referer = req.headers.referer;
    // Django: over https (directly, or per TRUSTED_PROXIES) a request must say where it comes from.
    if (origin === undefined && referer === undefined && req.protocol === 'https') fail('Referer checking failed - no Referer.');
    if (origin === undefined && referer !== undefined) {
      let refererOrigin = '';
      try {
        refererOrigin = new URL(referer).origin;
      } catch {
        fail('Referer checking failed - Referer is malformed.');
      }
      if (!this.isTrusted(req, refererOrigin)) fail(`Referer checking failed - ${referer} does not match any trusted origins.`);
    }
    const cookie = req.cookies?.[CSRF_COOKIE];
    if (typeof cookie !== 'string' || !cookie) fail('CSRF cookie not set.');
    const header = req.headers['x-csrftoken'];
    const formField = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>).csrfmiddlewaretoken : undefined;
    const presented = typeof header === 'string' ? header : typeof formField === 'string' ? formField : undefined;
    if (!presented) fail('CSRF token missing.');
    if (!constantTimeEqual(presented!, cookie!)) {
      fail(typeof header === 'string' ? "CSRF token from the 'X-Csrftoken' HTTP header incorrect." : 'CSRF token from POST incorrect.');
    }
  }

  /** Our own origin (PUBLIC_URL, or Host with the scheme the request came on) or a trusted one. */
  isTrusted(req: FastifyRequest, origin: string): boolean {
    const own = [new URL(this.config.publicUrl).origin, `${req.protocol}://${req.headers.host}`];
    return own.includes(origin) || this.settings.get('CSRF_TRUSTED_ORIGINS').includes(origin);
  }
}
