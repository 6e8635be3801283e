import { Injectable, Logger } from '@nestjs/common';
import { clientIp, userAgentOf } from '../common/client-ip';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { AuthMetrics } from '../common/auth-metrics';
import { UsersService } from '../users/users.service';
import { User } from '../users/user.entity';
import { CsrfService } from './csrf.service';
import { SessionCookies } from './session-cookies';
import { Session } from './session.entity';
import { limitsOf } from './session-limit.interceptor';
import { ResolvedSession, SessionsService } from './sessions.service';
import { traceOf } from '../common/request-context';
import { SettingsService } from '../settings/settings.service';

/**
 * Logs a user in on this browser exactly as every login path must (SPEC §2, §7): the form login and
 * the SSO callbacks share it. Ends the session the browser still presents, creates a fresh one under
 * the limits SessionLimitInterceptor bound to the route (a client-sent id is never adopted), rotates the CSRF token and writes every cookie and
 * header of seed §4. Returns the new session, so a caller can keep facts about it beside it (the
 * identity provider's session of a single sign-on, SPEC §17).
 */
@Injectable()
export class SessionLogin {
  private readonly logger = new Logger('auth');

  constructor(
    private readonly sessions: SessionsService,
    private readonly cookies: SessionCookies,
    private readonly csrf: CsrfService,
    private readonly users: UsersService,
    private readonly metrics: AuthMetrics,
    private readonly settings: SettingsService,
  ) {}

  /**
   * `method`: "session" for the form, else the SSO protocol; `secondStep`: the login has just completed its second
   * step (SPEC §16); `source`: what proved the user (SPEC §22: `local`, `ldap:default`, `oidc:corp`…).
   */
  async start(req: Request, res: Response, user: User, method: string, opts: { secondStep?: boolean; source: string }): Promise<Session> {
    const trace = traceOf(req);
    await this.endPresented(req, 'logged_out');
    const how = opts.secondStep ? 'second_step' : method === 'session' ? 'form' : 'sso';
    const created = await this.sessions.create(user, limitsOf(req), userAgentOf(req), trace, { ...opts, method: how, login: true });
    await this.users.recordLogin(user, created.session.created);
    this.cookies.writeSession(res, created.token, created.timeoutSeconds);
    this.cookies.writeLogin(res, user);
    this.csrf.ensureCookie(req, res, true);
    this.metrics.logins.inc({ method, outcome: 'success' });
    // Every path here is interactive (form, second step, SSO), and each refused a start without the tick (SPEC §22).
    const consent = this.settings.get<boolean>('LOGIN_CONSENT_REQUIRED') ? { consent: 'accepted' } : {};
    this.logger.log({ event: 'login', outcome: 'success', method, user_id: user.id, username: user.username, client_ip: clientIp(req), session_id: created.session.id, ...consent, ...trace });
    return created.session;
  }

  /** Ends the live session this browser presents, if any; returns it with its user. `logout`: the user's own (SPEC §23). */
  async endPresented(req: Request, reason: 'logged_out', opts: { logout?: boolean } = {}): Promise<ResolvedSession | null> {
    const token = req.cookies?.[this.cookies.name];
    if (typeof token !== 'string' || !token) return null;
    const found = await this.sessions.resolve(token);
    if (!found || found.session.endedAt) return null;
    await this.sessions.end({ ids: [found.session.id] }, reason, traceOf(req), opts);
    return found;
  }
}
