import { Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { CreatesSession } from '../sessions/session-limit.interceptor';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { BadRequest, Throttled } from '../common/errors';
import { Public } from '../common/public.decorator';
import { traceOf } from '../common/request-context';
import { clientIp, userAgentOf } from '../common/client-ip';
import { LoginEvents } from '../users/login-events';
import { CodeThrottle } from '../mfa/code-throttle';
import { MfaService } from '../mfa/mfa.service';
import { PendingLogin, PendingLogins } from '../mfa/pending-logins.service';
import { SecurityKeys } from '../mfa/security-keys.service';
import { CsrfService } from '../sessions/csrf.service';
import { AccountPolicy } from '../users/account-policy';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { LoginPages } from './login-pages';
import { loginTarget } from './login-outcome';
import { renderRecoveryCodesPage } from './second-step-pages';
import { PENDING_COOKIE, SecondStep, send } from './second-step.service';

const EXPIRED = 'Your login took too long or was already completed; log in again.';
const INVALID_CODE = 'The code is not valid. Try again.';

/**
 * The second step's routes (SPEC §16): `POST /api/login/mfa/` (a code, or a security key's assertion in
 * `credential`) completes the login exactly as §2 does, with the 302 to `next`; `POST /api/login/mfa/setup/`
 * completes a forced set-up. Every attempt counts in the user's code throttle (CodeThrottle), from any address.
 */
@Controller('api/login/mfa')
export class SecondStepController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly csrf: CsrfService,
    private readonly step: SecondStep,
    private readonly pending: PendingLogins,
    private readonly mfa: MfaService,
    private readonly keys: SecurityKeys,
    private readonly users: UsersService,
    private readonly policy: AccountPolicy,
    private readonly codes: CodeThrottle,
    private readonly pages: LoginPages,
    private readonly events: LoginEvents,
  ) {}

  @Public()
  @Post()
  @CreatesSession()
  async verify(@Req() req: Request, @Res() res: Response) {
    this.csrf.enforce(req);
    const found = await this.pendingLogin(req, res, 'verify');
    if (!found) return;
    const { handle, login, user } = found;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const ok = await this.counted(req, res, user, 'login', async () => {
      if (typeof body.credential === 'string' && body.credential && login.options) {
        return this.keys.verifyAssertion(user, parseJson(body.credential), login.options.challenge, traceOf(req));
      }
      return !!(await this.mfa.spendCode(user, typeof body.code === 'string' ? body.code : '', traceOf(req)));
    });
    if (ok === undefined) return;
    if (!ok) {
      this.events.failed(stepAttempt(req, user), 'wrong_code', { user });
      return this.step.verifyPage(req, res, login, 401, INVALID_CODE);
    }
    if (!(await this.step.complete(req, res, handle, user, login))) return this.expired(req, res, login.next);
    res.code(302).header('Location', loginTarget(login.next, this.config)).type('text/html; charset=utf-8').send('');
  }

  @Public()
  @Post('setup')
  @CreatesSession()
  async setup(@Req() req: Request, @Res() res: Response) {
    this.csrf.enforce(req);
    const found = await this.pendingLogin(req, res, 'setup');
    if (!found) return;
    const { handle, login, user } = found;
    const code = String((req.body as Record<string, unknown> | undefined)?.code ?? '');
    const codes = await this.counted(req, res, user, 'setup', () => this.mfa.confirmTotp(user, code, traceOf(req)).catch(refusedAsNull));
    if (codes === undefined) return;
    if (!codes) {
      this.events.failed(stepAttempt(req, user), 'wrong_code', { user });
      return this.step.setupPage(req, res, user, 401, INVALID_CODE);
    }
    if (!(await this.step.complete(req, res, handle, user, login))) return this.expired(req, res, login.next);
    send(res, 200, renderRecoveryCodesPage(codes, loginTarget(login.next, this.config)));
  }

  /** The pending login the cookie names, with its user, still allowed to log in; otherwise the login page again. */
  private async pendingLogin(req: Request, res: Response, stage: PendingLogin['stage']) {
    const handle = req.cookies?.[PENDING_COOKIE];
    const login = await this.pending.find(handle);
    const user = login?.stage === stage ? await this.users.findById(login.userId) : null;
    if (!login || !user || this.policy.refusal(user, 'password')) {
      this.expired(req, res, login?.next ?? '');
      return null;
    }
    return { handle: handle as string, login, user };
  }

  /** Runs an attempt under the user's code throttle; undefined when the throttle refused it (the 429 page is sent). */
  private async counted<T>(req: Request, res: Response, user: User, stage: string, attempt: () => Promise<T>): Promise<T | undefined> {
    try {
      return await this.codes.check(user, stage, traceOf(req), attempt);
    } catch (err) {
      if (!(err instanceof Throttled)) throw err;
      this.events.failed(stepAttempt(req, user), 'throttled', { user, retryAfter: err.retryAfter });
      if (err.retryAfter !== null) res.header('Retry-After', String(err.retryAfter));
      this.pages.send(req, res, 429, { next: '', message: err.detail });
      return undefined;
    }
  }

  private expired(req: Request, res: Response, next: string): void {
    this.pages.send(req, res, 401, { next, message: EXPIRED });
  }
}

/** A second step as SPEC §23's events see it: the pending login's user, from this request. */
function stepAttempt(req: Request, user: User) {
  return { path: 'second_step', username: user.username, clientIp: clientIp(req), trace: traceOf(req), userAgent: userAgentOf(req) };
}

/** A refused confirmation (a wrong code) reads as null; anything else (a database fault) is rethrown. */
function refusedAsNull(err: unknown): null {
  if (err instanceof BadRequest) return null;
  throw err;
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}
