import type { ListSpec } from '../common/list-query/list-spec';
import type { Principal } from '../common/principal';
import { relatedUser } from '../users/user-list';
import { Session } from './session.entity';

/** What every session list shows of a session (SPEC §3, §22); never the cookie value. */
export function sessionFields(session: Session): Record<string, unknown> {
  return {
    id: session.id,
    type: 'session',
    created: session.created.toISOString(),
    last_seen: session.lastSeen.toISOString(),
    expires: session.expires.toISOString(),
    ip_address: session.ipAddress,
    user_agent: session.userAgent,
    source: session.source,
    method: session.method,
  };
}

/** One's own, or one user's, list: which of them is the caller's. */
export function ownSessionEntry(session: Session, principal: Principal): Record<string, unknown> {
  return { ...sessionFields(session), current: principal.method === 'session' && principal.credentialId === session.id };
}

/** `/api/v2/sessions/`: whose it is, as the other lists of the API name a user. */
export function sessionEntry(session: Session, username: string | undefined): Record<string, unknown> {
  const { id, type, ...rest } = sessionFields(session);
  return {
    id,
    type,
    url: `/api/v2/sessions/${session.id}/`,
    user: session.userId,
    summary_fields: { user: { id: session.userId, username: username ?? '' } },
    ...rest,
  };
}

/** What the sessions lists may be filtered and ordered on; the cookie value (only its hash is stored) never. */
export const SESSION_LIST: ListSpec = {
  fields: {
    id: { property: 'id', type: 'int' },
    created: { property: 'created', type: 'datetime' },
    last_seen: { property: 'lastSeen', type: 'datetime' },
    expires: { property: 'expires', type: 'datetime' },
    ip_address: { property: 'ipAddress', type: 'string' },
    user_agent: { property: 'userAgent', type: 'string' },
    source: { property: 'source', type: 'string' },
    method: { property: 'method', type: 'string' },
    session_key: 'secret',
    key_hash: 'secret',
  },
  search: ['user_agent', 'ip_address'],
  defaultOrder: [['created', 'DESC'], ['id', 'DESC']],
};

/** Every user's sessions: also by whose they are (`user`, `user__username`). */
export const ALL_SESSIONS_LIST: ListSpec = {
  ...SESSION_LIST,
  fields: { ...SESSION_LIST.fields, user: { property: 'userId', type: 'fk' } },
  relations: { user: relatedUser('user') },
};
