import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { clearCookie, setCookie } from '../common/cookies';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { User } from '../users/user.entity';
import { publicUserFields } from '../users/user.serializer';

const SESSION_TOKEN = /^[A-Za-z0-9_-]+$/;

/** `seconds` from now as an HTTP date (`Expires`), its text made once per second and number of seconds. */
class HttpDates {
  private second = -1;
  private seconds = -1;
  private text = '';

  in(seconds: number): string {
    const now = Date.now();
    const second = Math.floor(now / 1000);
    if (second !== this.second || seconds !== this.seconds) {
      this.second = second;
      this.seconds = seconds;
      this.text = new Date(now + seconds * 1000).toUTCString();
    }
    return this.text;
  }
}

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

  /**
   * Session cookie and Session-Timeout, on login and on every sliding request. Written as the cookie library
   * writes it (attribute order included), by hand: it is on every session request, and its Expires date
   * changes once a second, so its text is made once a second (issue 43; the library's serialisation with a
   * Date to format was a tenth of what authenticating a session added to a request).
   */
  writeSession(reply: FastifyReply, token: string, seconds: number): void {
    // Only a token the service issued reaches here (a new one, or the one whose hash named a live session).
    if (!SESSION_TOKEN.test(token)) throw new Error('a session token is URL-safe base64');
    const secure = this.config.sessionCookieSecure ? '; Secure' : '';
    reply.header('Session-Timeout', String(seconds));
    reply.header('Set-Cookie', `${this.name}=${token}; Max-Age=${seconds}; Path=/; Expires=${this.expires.in(seconds)}; HttpOnly${secure}; SameSite=Lax`);
  }

  private readonly expires = new HttpDates();

  /** Extra cookies and headers of a successful login. */
  writeLogin(reply: FastifyReply, user: User): void {
    reply.header('X-API-Session-Cookie-Name', this.name);
    const hint = { path: '/', sameSite: 'lax' as const, secure: this.config.csrfCookieSecure };
    setCookie(reply, 'userLoggedIn', 'true', hint);
    // Percent-encoded (the cookie library's default), as AWX did with urllib.parse.quote(json, safe='').
    setCookie(reply, 'current_user', JSON.stringify(publicUserFields(user)), hint);
  }

  clear(reply: FastifyReply): void {
    // Written by hand in AWX's attribute order: an epoch Expires and Max-Age=0.
    const secure = this.config.sessionCookieSecure ? '; Secure' : '';
    reply.header('Set-Cookie', `${this.name}=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; HttpOnly; SameSite=Lax${secure}`);
    setCookie(reply, 'userLoggedIn', 'false', { path: '/', sameSite: 'lax', secure: this.config.csrfCookieSecure });
    clearCookie(reply, 'current_user', { path: '/' });
  }
}
