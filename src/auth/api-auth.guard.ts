import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { CredentialOptions, FRONT_DOOR } from '../common/authenticator';
import { AuthError, InsufficientScope } from '../common/errors';
import { ANONYMOUS_IF_SETTING, IS_PUBLIC } from '../common/public.decorator';
import { CredentialRequest, Principal, SAFE_METHODS } from '../common/principal';
import { SettingsService } from '../settings/settings.service';
import { CsrfService } from '../sessions/csrf.service';

type GuardedRequest = CredentialRequest & { user?: Principal };

/**
 * The one global guard (secure by default), @nestjs/passport's AuthGuard over the front door's strategies
 * in AWX's order (bearer, session cookie, basic): the first that finds its credential decides, a refusal is
 * its error. Public routes are let through before passport runs. Then the rules that read the principal:
 * anonymous routes, CSRF for session callers on unsafe methods, and token scope.
 */
@Injectable()
export class ApiAuthGuard extends AuthGuard([...FRONT_DOOR]) {
  constructor(
    private readonly reflector: Reflector,
    private readonly csrf: CsrfService,
    private readonly settings: SettingsService,
  ) {
    super();
  }

  /**
   * Whether a route (controller class and handler: subclasses share handlers) is @Public(), read from its
   * metadata once, since it cannot change after start-up (two metadata lookups per request before).
   */
  private readonly publicRoutes = new WeakMap<object, WeakMap<object, boolean>>();

  /** Synchronous for a public route (Nest takes a boolean without a promise: ping pays no microtask). */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const handler = context.getHandler();
    const controller = context.getClass();
    let routes = this.publicRoutes.get(controller);
    if (!routes) this.publicRoutes.set(controller, (routes = new WeakMap()));
    let isPublic = routes.get(handler);
    if (isPublic === undefined) {
      isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller]) === true;
      routes.set(handler, isPublic);
    }
    if (isPublic) return true;
    return this.authenticate(context);
  }

  private async authenticate(context: ExecutionContext): Promise<boolean> {
    await super.canActivate(context);
    const req = context.switchToHttp().getRequest<GuardedRequest>();
    const principal = req.user;
    if (!principal) return true; // an anonymous caller handleRequest let in
    const unsafe = !SAFE_METHODS.has(req.method);
    if (unsafe && principal.method === 'session') this.csrf.enforce(req as never);
    if (unsafe && principal.scope === 'read') throw new InsufficientScope();
    return true;
  }

  /** The reply goes to the strategies in passport's options: a session slides its cookie. */
  getAuthenticateOptions(context: ExecutionContext): CredentialOptions {
    return { session: false, response: context.switchToHttp().getResponse() };
  }

  /** A refusal is the answer; no credential at all is a 401, unless the route admits anonymous callers now. */
  handleRequest<T = Principal>(err: unknown, user: unknown, _info: unknown, context: ExecutionContext): T {
    if (err) throw err;
    if (user) return user as T;
    const setting = this.reflector.getAllAndOverride<string>(ANONYMOUS_IF_SETTING, [context.getHandler(), context.getClass()]);
    if (setting && this.settings.get<boolean>(setting)) return undefined as T;
    throw new AuthError('not_authenticated');
  }
}
