import { Controller, Get, Param, Query } from '@nestjs/common';
import { NotFound } from '../common/errors';
import { IdPipe } from '../common/id.pipe';
import { CurrentPrincipal, Principal } from '../common/principal';
import { VisibleUser } from '../users/visible-user';
import { AuthenticationEventsService } from './authentication-events.service';

/**
 * SPEC §23's authentication events, read-only (every write method is §1's 405): all of them, one, a user's, the
 * caller's own. Each within the caller's reach: superusers and system auditors all, anyone else their own and
 * those of the members of the organizations they administer or audit.
 */
/** Every route of the events, under `api/v2` (each read-only: readOnlyRoutes answers the writes). */
export const AUTHENTICATION_EVENT_PATHS = ['authentication_events', 'authentication_events/:id', 'users/:id/authentication_events', 'me/authentication_events', 'me/login_notice'];

@Controller('api/v2')
export class AuthenticationEventsController {
  constructor(
    private readonly events: AuthenticationEventsService,
    private readonly visible: VisibleUser,
  ) {}

  @Get('authentication_events')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.events.page(principal.user, query, '/api/v2/authentication_events/');
  }

  @Get('authentication_events/:id')
  async detail(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number) {
    const found = await this.events.one(principal.user, id);
    if (!found) throw new NotFound();
    return found;
  }

  @Get('users/:id/authentication_events')
  async ofUser(@CurrentPrincipal() principal: Principal, @Param('id', IdPipe) id: number, @Query() query: Record<string, unknown>) {
    await this.visible.getOr404(principal.user, id);
    return this.events.page(principal.user, query, `/api/v2/users/${id}/authentication_events/`, id);
  }

  @Get('me/authentication_events')
  mine(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.events.page(principal.user, query, '/api/v2/me/authentication_events/', principal.user.id);
  }

  /** SPEC §22 (AC-9): the previous login and the failed attempts since, for the caller. */
  @Get('me/login_notice')
  loginNotice(@CurrentPrincipal() principal: Principal) {
    return this.events.loginNotice(principal);
  }
}
