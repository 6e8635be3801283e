import { Injectable } from '@nestjs/common';
import { RequestTrace } from '../common/request-context';
import { PendingStateService } from '../pending-state/pending-state.service';
import { SessionsService } from '../sessions/sessions.service';
import { SsoFailure } from './sso-failure';
import type { SsoLogin } from './sso-protocol';
import { SsoSessions } from './sso-sessions.service';

/**
 * What every single sign-on protocol's login shares around its two legs (SPEC §7, §17): the pending-login
 * cap per address before a login starts, and the provider's session recorded beside the new session.
 */
@Injectable()
export class SsoService {
  constructor(
    private readonly store: PendingStateService,
    private readonly ssoSessions: SsoSessions,
    private readonly sessions: SessionsService,
  ) {}

  /**
   * Keeps the provider's session beside the session just created, for single logout. A session whose
   * record could not be written is ended at once: it could be neither passed on nor ended by the provider.
   */
  async recordSession(sessionId: number, login: SsoLogin, trace: RequestTrace): Promise<void> {
    try {
      await this.ssoSessions.record(sessionId, login.providerSession);
    } catch (err) {
      await this.sessions.end({ ids: [sessionId] }, 'logged_out', trace);
      throw err;
    }
  }

  /** A new pending login only while this address has room for one (PendingStateService.hasRoomFor). */
  async assertRoomFor(ip: string): Promise<void> {
    if (!(await this.store.hasRoomFor(ip))) throw new SsoFailure('too_many', 'too many pending logins from this address');
  }
}
