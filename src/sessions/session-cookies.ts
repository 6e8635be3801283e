import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { User } from '../users/user.entity';
import { publicUserFields } from '../users/user.serializer';

/**
 * The cookies and headers of a session (seed §4): the HttpOnly session cookie with Max-Age and
 * Expires, `Session-Timeout`, and the UI hint cookies `userLoggedIn` and `current_user`.
 */
@Injectable()
export class SessionCookies {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get name(): string {
    return this.config.sessionCookieName;
  }

  /** Session cookie and Session-Timeout, on login and on every sliding request. */
  writeSession(reply: FastifyReply, token: string, seconds: number): void {
    reply.header('Session-Timeout', String(seconds));
    reply.setCookie(this.name, token, {
      httpOnly: true,
      maxAge: seconds,
      expires: new Date(Date.now() + seconds * 1000),
      path: '/',
      sameSite: 'lax',
      secure: this.config.sessionCookieSecure,
    });
  }

  /** Extra cookies and headers of a successful login. */
  writeLogin(reply: FastifyReply, user: User): void {
    reply.header('X-API-Session-Cookie-Name', this.name);
    const hint = { path: '/', sameSite: 'lax' as const, secure: this.config.csrfCookieSecure };
    reply.setCookie('userLoggedIn', 'true', hint);
    // Percent-encoded (the cookie library's default), as AWX did with urllib.parse.quote(json, safe='').
    reply.setCookie('current_user', JSON.stringify(publicUserFields(user)), hint);
  }

  clear(reply: FastifyReply): void {
    // Written by hand in AWX's attribute order: an epoch Expires and Max-Age=0.
    const secure = this.config.sessionCookieSecure ? '; Secure' : '';
    reply.header('Set-Cookie', `${this.name}=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; HttpOnly; SameSite=Lax${secure}`);
    reply.setCookie('userLoggedIn', 'false', { path: '/', sameSite: 'lax', secure: this.config.csrfCookieSecure });
    reply.clearCookie('current_user', { path: '/' });
  }
}
