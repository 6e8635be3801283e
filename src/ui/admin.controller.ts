import { Controller, Get, Req, Res, UseFilters } from '@nestjs/common';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { CurrentPrincipal, Principal } from '../common/principal';
import { CsrfService } from '../sessions/csrf.service';
import { ADMIN_FORBIDDEN_PAGE, renderAdminPage } from './admin-page';
import { LoginRedirectFilter } from './login-redirect.filter';
import { readsEverything } from '../users/user-list';

/** `/accounts/admin/` (SPEC §22): superusers and system auditors; anonymous browsers go to the login page. */
@Controller('accounts')
export class AdminPageController {
  constructor(private readonly csrf: CsrfService) {}

  @Get('admin')
  @UseFilters(LoginRedirectFilter)
  admin(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response) {
    const { user } = principal;
    if (!readsEverything(user)) return res.code(403).type('text/html; charset=utf-8').send(ADMIN_FORBIDDEN_PAGE);
    res.code(200).type('text/html; charset=utf-8').send(renderAdminPage({ csrfToken: this.csrf.ensureCookie(req, res), superuser: user.isSuperuser }));
  }
}
