import { Injectable } from '@nestjs/common';
import { RequestTrace } from '../common/request-context';
import { SessionsService } from '../sessions/sessions.service';
import type { SsoLogin } from './sso-protocol';
import { SsoSessions } from './sso-sessions.service';

/**
 * What every single sign-on protocol's login shares after its second leg (SPEC §7, §17): the provider's
 * session recorded beside the new session. (A start is never refused and never ends another browser's login:
 * it is sealed into the starting browser and writes nothing on the server, SsoStarts, issue 56.)
 */
@Injectable()
export class SsoService {
  constructor(
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
}
