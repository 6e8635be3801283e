import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { NotFound, PermissionDenied } from '../common/errors';
import { IdPipe } from '../common/id.pipe';
import { queryPage } from '../common/list-query/list-page';
import type { ListSpec } from '../common/list-query/list-spec';
import { Account, CurrentPrincipal, Principal } from '../common/principal';
import { UsersService } from '../users/users.service';
import { Session } from './session.entity';
import { SessionsService } from './sessions.service';
import { CurrentTrace, RequestTrace } from '../common/request-context';

function serializeSession(session: Session, principal: Principal): Record<string, unknown> {
  return {
    id: session.id,
    type: 'session',
    created: session.created.toISOString(),
    last_seen: session.lastSeen.toISOString(),
    expires: session.expires.toISOString(),
    ip_address: session.ipAddress,
    user_agent: session.userAgent,
    current: principal.method === 'session' && principal.credentialId === session.id,
  };
}

/** What the sessions lists may be filtered and ordered on; the cookie value (only its hash is stored) never. */
const SESSION_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    created: { property: 'created', type: 'datetime' },
    last_seen: { property: 'lastSeen', type: 'datetime' },
    expires: { property: 'expires', type: 'datetime' },
    ip_address: { property: 'ipAddress', type: 'string' },
    user_agent: { property: 'userAgent', type: 'string' },
    session_key: 'secret',
    key_hash: 'secret',
  },
  search: ['user_agent', 'ip_address'],
  defaultOrder: [['created', 'DESC'], ['id', 'DESC']],
};

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
    return queryPage(this.sessions.liveQuery(owner), SESSION_LIST, query, path, principal.user, (rows) => rows.map((s) => serializeSession(s, principal)));
  }
}
