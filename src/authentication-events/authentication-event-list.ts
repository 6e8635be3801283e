import type { ListSpec } from '../common/list-query/list-spec';
import { relatedUser } from '../users/user-list';
import type { AuthenticationEvent } from './authentication-event.entity';

/** What the events lists may be filtered and ordered on (SPEC §23: every field, `user__username` by path). */
export const AUTH_EVENT_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    timestamp: { property: 'timestamp', type: 'datetime' },
    event: { property: 'event', type: 'string' },
    user: { property: 'userId', type: 'fk' },
    username: { property: 'username', type: 'string' },
    source: { property: 'source', type: 'string' },
    method: { property: 'method', type: 'string' },
    reason: { property: 'reason', type: 'string' },
    session: { property: 'sessionId', type: 'int' },
    token: { property: 'tokenId', type: 'int' },
    ip_address: { property: 'ipAddress', type: 'string' },
    user_agent: { property: 'userAgent', type: 'string' },
    request_id: { property: 'requestId', type: 'string' },
    action_node: { property: 'actionNode', type: 'string' },
    details: { property: 'details', type: 'string' },
  },
  relations: { user: relatedUser('user') },
  search: ['username', 'event', 'reason', 'ip_address'],
  defaultOrder: [['id', 'ASC']],
};

/**
 * One event as every list shows it (SPEC §23). `existing`: whether its user still exists; once the user is
 * deleted, `user` is null and the summary keeps the names the user had, with `"id": null`.
 */
export function authEventEntry(e: AuthenticationEvent, existing: boolean): Record<string, unknown> {
  const userId = e.userId !== null && existing ? e.userId : null;
  return {
    id: e.id,
    type: 'authentication_event',
    url: `/api/v2/authentication_events/${e.id}/`,
    related: userId !== null ? { user: `/api/v2/users/${userId}/` } : {},
    summary_fields: e.userId !== null ? { user: { id: userId, username: e.userUsername ?? '', first_name: e.userFirstName ?? '', last_name: e.userLastName ?? '' } } : {},
    timestamp: e.timestamp.toISOString(),
    event: e.event,
    user: userId,
    username: e.username,
    source: e.source,
    method: e.method,
    reason: e.reason,
    session: e.sessionId,
    token: e.tokenId,
    ip_address: e.ipAddress,
    user_agent: e.userAgent,
    request_id: e.requestId,
    action_node: e.actionNode,
    details: parseDetails(e.details),
  };
}

function parseDetails(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
