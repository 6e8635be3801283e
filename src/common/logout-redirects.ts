import { Injectable } from '@nestjs/common';
import type { RequestTrace } from './request-context';

/** A session the logout route just ended, and the `next` the browser asked to go to afterwards. */
export interface EndedLogin {
  sessionId: number;
  userId: number;
  /** A safe same-origin path, or undefined. */
  next?: string;
}

/** Where the browser goes after a local logout instead of `next`: an identity provider's logout URL, or null. */
export type LogoutRedirect = (ended: EndedLogin, trace: RequestTrace) => Promise<string | null>;

/**
 * What follows a local logout (SPEC §17): single sign-on registers a hook at start-up that sends the
 * browser on to the identity provider the session came from, so `auth` does not import `sso` (as
 * LoginProviders does for the login page's buttons). The first hook with an answer wins.
 */
@Injectable()
export class LogoutRedirects {
  private readonly hooks: LogoutRedirect[] = [];

  register(hook: LogoutRedirect): void {
    this.hooks.push(hook);
  }

  async after(ended: EndedLogin, trace: RequestTrace): Promise<string | null> {
    for (const hook of this.hooks) {
      const location = await hook(ended, trace);
      if (location) return location;
    }
    return null;
  }
}
