import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import passport from 'passport';
import { AuthStrategies } from '../common/auth-strategies';
import { AuthError, PermissionDenied } from '../common/errors';
import { ANONYMOUS_IF_SETTING, IS_PUBLIC } from '../common/public.decorator';
import { SettingsService } from '../settings/settings.service';
import { Principal, SAFE_METHODS } from '../common/principal';
import { CsrfService } from '../sessions/csrf.service';

/**
 * The one global guard (secure by default): tries the registered strategies in AWX's order and
 * attaches a Principal. A strategy that finds its credential decides (success or error); one that
 * finds none passes to the next. Then the rules that read the principal: CSRF for session callers
 * on unsafe methods, and token scope.
 */
@Injectable()
export class ApiAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly strategies: AuthStrategies,
    private readonly csrf: CsrfService,
    private readonly settings: SettingsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const principal = await this.authenticate(req, res);
    if (!principal) {
      const setting = this.reflector.getAllAndOverride<string>(ANONYMOUS_IF_SETTING, [context.getHandler(), context.getClass()]);
      if (setting && this.settings.get<boolean>(setting)) return true;
      throw new AuthError('not_authenticated');
    }
    (req as Request & { user: Principal }).user = principal;
    const unsafe = !SAFE_METHODS.has(req.method);
    if (unsafe && principal.method === 'session') this.csrf.enforce(req);
    if (unsafe && principal.scope === 'read') {
      throw new PermissionDenied(undefined, {
        'WWW-Authenticate': 'Bearer realm="api", error="insufficient_scope", scope="write"',
      });
    }
    return true;
  }

  private authenticate(req: Request, res: Response): Promise<Principal | undefined> {
    const names = this.strategies.names();
    if (!names.length) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      passport.authenticate(names, { session: false }, (err: unknown, user: Principal | false) => {
        if (err) return reject(err);
        resolve(user || undefined);
      })(req, res, (err?: unknown) => (err ? reject(err) : resolve(undefined)));
    });
  }
}
