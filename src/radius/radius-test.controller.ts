import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';
import { PermissionDenied } from '../common/errors';
import { CurrentPrincipal, Principal } from '../common/principal';
import { validateBody } from '../common/validation';
import { RadiusExplainer } from './radius-explainer.service';

const TEST_BODY = z.object({
  username: z.string().max(1024),
  password: z.string().max(1024),
});

/**
 * `POST /api/v2/settings/radius/test/` (SPEC §20): explains a login without performing it. Superusers only:
 * it sends the password it is given to the RADIUS server, and what it tells (the reply's attributes) is the server's.
 */
@Controller('api/v2/settings/radius')
export class RadiusTestController {
  constructor(private readonly explainer: RadiusExplainer) {}

  @Post('test')
  @HttpCode(200)
  async test(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    const input = validateBody(TEST_BODY, body);
    return this.explainer.explain(input.username, input.password);
  }
}
