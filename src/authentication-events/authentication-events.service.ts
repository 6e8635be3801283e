import { Injectable } from '@nestjs/common';
import type { SelectQueryBuilder } from 'typeorm';
import { queryPage } from '../common/list-query/list-page';
import type { Account, Principal } from '../common/principal';
import { auditedUsersScope } from '../organizations/scopes';
import { readsEverything } from '../users/user-list';
import { AuthenticationEvent } from './authentication-event.entity';
import { AUTH_EVENT_LIST, authEventEntry } from './authentication-event-list';
import { AuthenticationEventsRepository } from './authentication-events.repository';

/** The read side of SPEC §23's authentication events: what a caller may read, as pages of AWX's lists. */
@Injectable()
export class AuthenticationEventsService {
  constructor(private readonly repository: AuthenticationEventsRepository) {}

  /** The events a viewer may read (of one user when `userId`), before filters and page. */
  visibleQuery(viewer: Account, userId?: number): SelectQueryBuilder<AuthenticationEvent> {
    const qb = this.repository.listQuery();
    if (userId !== undefined) qb.andWhere('e.userId = :ofUser', { ofUser: userId });
    // Events with no user are read only by those who read everything.
    if (!readsEverything(viewer)) qb.andWhere(auditedUsersScope('e.user_id'), { viewerId: viewer.id });
    return qb;
  }

  page(viewer: Account, query: Record<string, unknown>, path: string, userId?: number) {
    return queryPage(this.visibleQuery(viewer, userId), AUTH_EVENT_LIST, query, path, viewer, (rows) => rows.map(entryOf));
  }

  /**
   * SPEC §22's `GET /api/v2/me/login_notice/`: the login that made the calling session (for other callers the
   * user's latest), the one before it, and the failed attempts between the two.
   */
  async loginNotice(principal: Principal): Promise<Record<string, unknown>> {
    const user = principal.user;
    const sessionLogin = principal.method === 'session' && principal.credentialId ? await this.repository.loginEventOfSession(principal.credentialId) : null;
    const [login, previous] = await this.repository.loginsOf(user.id, sessionLogin);
    const failed = login ? await this.repository.failuresBetween(user.id, previous?.id ?? 0, login.id) : 0;
    return { login: login ? entryOf(login) : null, previous_login: previous ? entryOf(previous) : null, failed_since_previous: failed };
  }

  async one(viewer: Account, id: number): Promise<Record<string, unknown> | null> {
    const found = await this.visibleQuery(viewer).andWhere('e.id = :id', { id }).getOne();
    return found ? entryOf(found) : null;
  }
}

/** The joined user is there while the user exists (an event outlives its user: SPEC §23). */
function entryOf(e: AuthenticationEvent): Record<string, unknown> {
  return authEventEntry(e, !!e.user);
}
