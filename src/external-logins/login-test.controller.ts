import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { z } from 'zod';
import { PermissionDenied } from '../common/errors';
import { CurrentPrincipal, Principal } from '../common/principal';
import { validateBody } from '../common/validation';
import { LoginExplainer } from './login-explainer.service';

const TEST_BODY = z.object({
  server: z.string().max(64).optional(),
  username: z.string().max(1024),
  password: z.string().max(1024),
});

/**
 * `POST /api/v2/settings/<category>/test/` for every password method that registers an explainer (SPEC §14's
 * `ldap/test/`, §20's `radius/test/`): explains a login without performing it. Superusers only: it proves
 * the password it is given, and what it tells is the method's server's. An unknown category is 404.
 */
@Controller('api/v2/settings')
export class LoginTestController {
  constructor(private readonly explainer: LoginExplainer) {}

  @Post(':category/test')
  @HttpCode(200)
  async test(@CurrentPrincipal() principal: Principal, @Param('category') category: string, @Body() body: unknown) {
    const method = this.explainer.atCategory(category);
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    const input = validateBody(TEST_BODY, body);
    return this.explainer.explain(method, input.username, input.password, input.server);
  }
}
