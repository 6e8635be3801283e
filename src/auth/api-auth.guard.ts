import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Authenticator } from '../common/authenticator';
import { isPromiseLike } from '../common/awaitable';
import { AuthError, InsufficientScope } from '../common/errors';
import { ANONYMOUS_IF_SETTING, IS_PUBLIC } from '../common/public.decorator';
import { CredentialRequest, Principal, SAFE_METHODS } from '../common/principal';
import { SettingsService } from '../settings/settings.service';
import { CsrfService } from '../sessions/csrf.service';

/**
 * The one global guard (secure by default): the authenticator finds the principal, then the rules
 * that read it: CSRF for session callers on unsafe methods, and token scope.
 */
@Injectable()
export class ApiAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    private readonly csrf: CsrfService,
    private readonly settings: SettingsService,
  ) {}

  /** Synchronous when the authentication is (a public route, no credential): Nest takes a boolean without a promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<CredentialRequest & { user?: Principal }>();
    const found = this.authenticator.authenticate(req, http.getResponse());
    if (isPromiseLike(found)) return Promise.resolve(found).then((principal) => this.admit(req, principal, targets));
    return this.admit(req, found, targets);
  }

  /** The rules that read the principal: anonymous routes, CSRF for session callers on unsafe methods, token scope. */
  private admit(req: CredentialRequest & { user?: Principal }, principal: Principal | undefined, targets: Parameters<Reflector['getAllAndOverride']>[1]): boolean {
    if (!principal) {
      const setting = this.reflector.getAllAndOverride<string>(ANONYMOUS_IF_SETTING, targets);
      if (setting && this.settings.get<boolean>(setting)) return true;
      throw new AuthError('not_authenticated');
    }
    req.user = principal;
    const unsafe = !SAFE_METHODS.has(req.method);
    if (unsafe && principal.method === 'session') this.csrf.enforce(req as never);
    if (unsafe && principal.scope === 'read') throw new InsufficientScope();
    return true;
  }
}
