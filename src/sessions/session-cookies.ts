import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
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
  writeSession(res: Response, token: string, seconds: number): void {
    res.setHeader('Session-Timeout', String(seconds));
    res.cookie(this.name, token, {
      httpOnly: true,
      maxAge: seconds * 1000,
      path: '/',
      sameSite: 'lax',
      secure: this.config.sessionCookieSecure,
    });
  }

  /** Extra cookies and headers of a successful login. */
  writeLogin(res: Response, user: User): void {
    res.setHeader('X-API-Session-Cookie-Name', this.name);
    const hint = { path: '/', sameSite: 'lax' as const, secure: this.config.csrfCookieSecure };
    res.cookie('userLoggedIn', 'true', hint);
    // Express percent-encodes the value, as AWX did with urllib.parse.quote(json, safe='').
    res.cookie('current_user', JSON.stringify(publicUserFields(user)), hint);
  }

  clear(res: Response): void {
    // Written by hand: Express cannot emit both an epoch Expires and Max-Age=0, which AWX sends.
    const secure = this.config.sessionCookieSecure ? '; Secure' : '';
    res.append('Set-Cookie', `${this.name}=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/; HttpOnly; SameSite=Lax${secure}`);
    res.cookie('userLoggedIn', 'false', { path: '/', sameSite: 'lax', secure: this.config.csrfCookieSecure });
    res.clearCookie('current_user', { path: '/' });
  }
}
