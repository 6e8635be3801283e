import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';
import { PermissionDenied } from '../common/errors';
import { CurrentPrincipal, Principal } from '../common/principal';
import { validateBody } from '../common/validation';
import { LdapLogins } from './ldap-logins.service';
import { DIRECTORY_NAMES } from './ldap-settings';

const TEST_BODY = z.object({
  server: z.enum(DIRECTORY_NAMES).optional(),
  username: z.string().max(1024),
  password: z.string().max(1024),
});

/**
 * `POST /api/v2/settings/ldap/test/` (SPEC §14): explains a login without performing it. Superusers only:
 * it binds with the password it is given, and what it tells (DNs, groups) is the directory's.
 */
@Controller('api/v2/settings/ldap')
export class LdapTestController {
  constructor(private readonly logins: LdapLogins) {}

  @Post('test')
  @HttpCode(200)
  async test(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    const input = validateBody(TEST_BODY, body);
    return this.logins.explain(input.server, input.username, input.password);
  }
}
