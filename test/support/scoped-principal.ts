import passport from 'passport';
import type { Request } from 'express';
import { AuthStrategies } from '../../src/common/auth-strategies';
import type { Principal, TokenScope } from '../../src/common/principal';
import { UsersService } from '../../src/users/users.service';
import type { TestApp } from './test-app';

/**
 * A stand-in for the bearer strategy until OAuth 2 tokens exist: `Authorization: TestToken <scope>
 * <user id>` authenticates as that user with that token scope, through the real global guard. It lets
 * resource tests prove that scopes apply through the principal without depending on how tokens work.
 */
class ScopedPrincipalStrategy extends passport.Strategy {
  name = 'test-scoped-principal';

  constructor(private readonly users: UsersService) {
    super();
  }

  authenticate(req: Request): void {
    const match = /^TestToken (read|write) (\d+)$/.exec(req.headers.authorization ?? '');
    if (!match) return this.fail(401);
    this.users.findById(Number(match[2])).then(
      (user) => (user ? this.success({ user, method: 'token', scope: match[1] as TokenScope } satisfies Principal) : this.fail(401)),
      (err) => this.error(err),
    );
  }
}

export function enableScopedPrincipals(t: TestApp): void {
  passport.use(new ScopedPrincipalStrategy(t.app.get(UsersService)));
  t.app.get(AuthStrategies).register('test-scoped-principal', 5);
}

export function scoped(scope: TokenScope, userId: number): string {
  return `TestToken ${scope} ${userId}`;
}
