import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { NotFound, PermissionDenied } from '../common/errors';
import { IdPipe } from '../common/id.pipe';
import { queryPage } from '../common/list-query/list-page';
import { Account, CurrentPrincipal, Principal } from '../common/principal';
import { UsersService } from '../users/users.service';
import { ownSessionEntry, SESSION_LIST } from './session-list';
import { SessionsService } from './sessions.service';
import { CurrentTrace, RequestTrace } from '../common/request-context';

/** One's own live sessions, and a superuser's view of anyone's (SPEC §3). Never the cookie value. */
@Controller('api/v2')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
  ) {}

  @Get('me/sessions')
  async mine(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.page(principal, principal.user, query, '/api/v2/me/sessions/');
  }

  @Delete('me/sessions/:id')
  @HttpCode(204)
  async endMine(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @CurrentTrace() trace: RequestTrace) {
    // That one row, by id and owner: never the whole list.
    if (!(await this.sessions.liveQuery(principal.user).andWhere('s.id = :id', { id }).getCount())) throw new NotFound();
    await this.sessions.end({ ids: [id], userId: principal.user.id }, 'ended_by_user', trace);
  }

  @Get('users/:id/sessions')
  async ofUser(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Record<string, unknown>) {
    if (!principal.user.isSuperuser && principal.user.id !== id) throw new PermissionDenied();
    return this.page(principal, await this.users.getOr404(id), query, `/api/v2/users/${id}/sessions/`);
  }

  @Delete('users/:id/sessions')
  @HttpCode(204)
  async endAllOfUser(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @CurrentTrace() trace: RequestTrace) {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    await this.users.getOr404(id);
    await this.sessions.endAllOf(id, 'revoked_by_admin', trace);
  }

  /** The owner's sessions cut-off decides which rows are still live: the row this request read, or read afresh. */
  private async page(principal: Principal, owner: Account, query: Record<string, unknown>, path: string) {
    return queryPage(this.sessions.liveQuery(owner), SESSION_LIST, query, path, principal.user, (rows) => rows.map((s) => ownSessionEntry(s, principal)));
  }
}
