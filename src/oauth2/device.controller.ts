import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { Authenticator } from '../common/authenticator';
import { clientIp } from '../common/client-ip';
import { AuthError, Throttled } from '../common/errors';
import type { Principal } from '../common/principal';
import { Public } from '../common/public.decorator';
import { traceOf } from '../common/request-context';
import { CsrfService } from '../sessions/csrf.service';
import { ApplicationsService } from '../tokens/applications.service';
import { AccountPolicy, ExternalUserRefused } from '../users/account-policy';
import { LoginMethods } from '../users/login-methods';
import { renderConsentPage } from './authorize-pages';
import { DeviceAuthorizationEndpoint } from './device-authorization-endpoint.service';
import { DeviceCodes, DeviceLookup } from './device-codes.service';
import { renderDeviceCodePage, renderDeviceResultPage } from './device-pages';
import { noStore, sendOAuthError } from './oauth2-response';
import { formatUserCode, normaliseUserCode } from './user-codes';

const REFUSED: Record<'unknown' | 'expired' | 'decided', string> = {
  unknown: 'That code is not valid. Check the code your device shows and try again.',
  expired: 'That code has expired. Start again on your device to get a new one.',
  decided: 'That code has already been used.',
};

/**
 * The device authorization grant's two front ends (RFC 8628): the client endpoint
 * `/api/o/device_authorization/`, and the page `/api/o/device/` where a person types the user code,
 * consents and sees `Device connected`. The page is public to the global guard, like
 * `/api/o/authorize/`: an anonymous browser is sent to the login page (local or SSO) and comes back.
 */
@Controller('api/o')
export class DeviceController {
  constructor(
    private readonly endpoint: DeviceAuthorizationEndpoint,
    private readonly deviceCodes: DeviceCodes,
    private readonly applications: ApplicationsService,
    private readonly authenticator: Authenticator,
    private readonly csrf: CsrfService,
    private readonly policy: AccountPolicy,
    private readonly methods: LoginMethods,
  ) {}

  /** RFC 8628 §3.2: 200 JSON with the codes; errors in RFC 6749 §5.2's shape. */
  @Public()
  @Post('device_authorization')
  async deviceAuthorization(@Req() req: Request, @Res() res: Response) {
    try {
      const answer = await this.endpoint.handle(req);
      noStore(res);
      res.code(200).send(answer);
    } catch (err) {
      sendOAuthError(res, err);
    }
  }

  @Public()
  @Get('device')
  async show(@Req() req: Request, @Res() res: Response) {
    const query = req.query as Record<string, unknown>;
    const userCode = typeof query.user_code === 'string' ? query.user_code.slice(0, 64) : '';
    const user = await this.signedIn(req, res, userCode);
    if (!user) return;
    this.page(res, 200, { csrfToken: this.csrf.ensureCookie(req, res), userCode });
  }

  /**
   * The code form's and the consent form's answer, CSRF-checked for every caller. Without `decision` it
   * looks the code up and shows the consent page; with one it approves or denies, once.
   */
  @Public()
  @Post('device')
  async decide(@Req() req: Request, @Res() res: Response) {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const typed = typeof body.user_code === 'string' ? body.user_code.slice(0, 64) : '';
    const user = await this.signedIn(req, res, typed);
    if (!user) return;
    this.csrf.enforce(req);
    const csrfToken = this.csrf.ensureCookie(req, res);
    const refusal = this.approvalRefusal(user);
    if (refusal) return this.page(res, 403, { csrfToken, userCode: typed, message: refusal });
    let lookup: DeviceLookup;
    try {
      lookup = await this.deviceCodes.lookUp(typed, user.user.id, clientIp(req), traceOf(req));
    } catch (err) {
      if (!(err instanceof Throttled)) throw err;
      if (err.retryAfter !== null) res.header('Retry-After', String(err.retryAfter));
      return this.page(res, 429, { csrfToken, userCode: typed, message: `Too many wrong codes. Try again in ${err.retryAfter} seconds.` });
    }
    const application = 'code' in lookup ? await this.applications.findById(lookup.code.applicationId) : null;
    if (!('code' in lookup) || !application) {
      return this.page(res, 400, { csrfToken, userCode: typed, message: REFUSED['refused' in lookup ? lookup.refused : 'unknown'] });
    }
    const code = lookup.code;
    if (body.decision !== 'authorize' && body.decision !== 'deny') {
      const page = renderConsentPage({
        applicationName: application.name,
        username: user.user.username,
        scope: code.scope,
        csrfToken,
        action: '/api/o/device/',
        parameters: { user_code: formatUserCode(normaliseUserCode(typed)!) },
      });
      return void res.code(200).type('text/html; charset=utf-8').send(page);
    }
    const approved = body.decision === 'authorize';
    if (!(await this.deviceCodes.decide(code, user.user, approved, traceOf(req)))) {
      return this.page(res, 400, { csrfToken, userCode: typed, message: REFUSED.decided });
    }
    res.code(200).type('text/html; charset=utf-8').send(renderDeviceResultPage({ approved, applicationName: application.name }));
  }

  /**
   * Who may approve a device: a person who may hold tokens. Service accounts never (they cannot log in,
   * and a machine must not hand itself a person's grant); external users only while
   * ALLOW_OAUTH2_FOR_EXTERNAL_USERS is on, told here rather than by a device that never gets its token.
   */
  private approvalRefusal(user: Principal): string | null {
    if (!this.methods.of(user.user).person) return 'Service accounts cannot connect devices.';
    if (!this.policy.mayHoldTokens(user.user)) return new ExternalUserRefused(user.user.externalAccount ?? '').message;
    return null;
  }

  /**
   * The front door without bearer (a token cannot approve grants): session, then basic. An anonymous
   * browser, or one whose session ended, goes to the login page and comes back with the code it had.
   */
  private async signedIn(req: Request, res: Response, userCode: string): Promise<Principal | undefined> {
    // The URL may carry a user code: never sent to another origin. Not `no-referrer`: under it a browser
    // posts the page's forms with `Origin: null`, which the CSRF check (rightly) refuses.
    res.header('Referrer-Policy', 'same-origin');
    let endedReason: string | undefined;
    try {
      const user = await this.authenticator.authenticate(req, res, { except: ['bearer'] });
      if (user) return user;
    } catch (err) {
      if (!(err instanceof AuthError && err.code === 'session_ended')) throw err;
      endedReason = String(err.extra.reason ?? '') || undefined;
    }
    const back = userCode ? `/api/o/device/?${new URLSearchParams({ user_code: userCode }).toString()}` : '/api/o/device/';
    const reason = endedReason ? `&reason=${encodeURIComponent(endedReason)}` : '';
    res.code(302).header('Location', `/api/login/?next=${encodeURIComponent(back)}${reason}`).send();
    return undefined;
  }

  private page(res: Response, status: number, p: Parameters<typeof renderDeviceCodePage>[0]): void {
    res.code(status).type('text/html; charset=utf-8').send(renderDeviceCodePage(p));
  }
}
