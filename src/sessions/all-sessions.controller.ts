import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { NotFound, PermissionDenied } from '../common/errors';
import { IdPipe } from '../common/id.pipe';
import { queryPage } from '../common/list-query/list-page';
import { CurrentPrincipal, Principal } from '../common/principal';
import { CurrentTrace, RequestTrace } from '../common/request-context';
import { Session } from './session.entity';
import { ALL_SESSIONS_LIST, sessionEntry } from './session-list';
import { SessionsService } from './sessions.service';
import { readsEverything } from '../users/user-list';

/** Everyone logged in now (SPEC §22, awx #1784): read by superusers and system auditors, ended by superusers. */
@Controller('api/v2/sessions')
export class AllSessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    requireReader(principal);
    return queryPage(this.sessions.allLiveQuery(), ALL_SESSIONS_LIST, query, '/api/v2/sessions/', principal.user, (rows) => this.entries(rows));
  }

  @Get(':id')
  async detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    requireReader(principal);
    const [entry] = await this.entries([await this.live(id)]);
    return entry;
  }

  @Delete(':id')
  @HttpCode(204)
  async end(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @CurrentTrace() trace: RequestTrace) {
    if (!principal.user.isSuperuser) throw new PermissionDenied();
    const session = await this.live(id);
    await this.sessions.end({ ids: [session.id] }, 'revoked_by_admin', trace);
  }

  /** A live session of anyone's; an ended or unknown one is 404. */
  private async live(id: number): Promise<Session> {
    const session = await this.sessions.allLiveQuery().andWhere('s.id = :id', { id }).getOne();
    if (!session) throw new NotFound();
    return session;
  }

  private async entries(rows: Session[]) {
    const names = new Map((await this.sessions.namesOf([...new Set(rows.map((s) => s.userId))])).map((u) => [u.id, u.username]));
    return rows.map((s) => sessionEntry(s, names.get(s.userId)));
  }
}

function requireReader(principal: Principal): void {
  if (!readsEverything(principal.user)) throw new PermissionDenied();
}
