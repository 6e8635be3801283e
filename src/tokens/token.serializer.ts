import type { User } from '../users/user.entity';
import type { AccessToken } from './access-token.entity';
import { MASKED } from './token-secrets';

export interface TokenView {
  /** The secrets, only in the response that created them. */
  secret?: string;
  refreshSecret?: string | null;
  /** Whether a live refresh token exists (then shown masked). */
  hasRefresh: boolean;
  lastUsed: Date | null;
  lastUsedIp: string | null;
  viewer: User;
}

export function canChangeToken(viewer: User, token: AccessToken): boolean {
  return viewer.isSuperuser || viewer.id === token.userId;
}

/** AWX's token field set (SPEC §5) and `last_used_ip` (§15); `token` and `refresh_token` are masked after creation. */
export function serializeToken(token: AccessToken, view: TokenView): Record<string, unknown> {
  const url = `/api/v2/tokens/${token.id}/`;
  const related: Record<string, string> = { user: `/api/v2/users/${token.userId}/`, activity_stream: `${url}activity_stream/` };
  const summary: Record<string, unknown> = {};
  if (token.user) {
    summary.user = { id: token.user.id, username: token.user.username, first_name: token.user.firstName, last_name: token.user.lastName };
  }
  if (token.applicationId) {
    related.application = `/api/v2/applications/${token.applicationId}/`;
    if (token.application) summary.application = { id: token.application.id, name: token.application.name };
  }
  const mayChange = canChangeToken(view.viewer, token);
  summary.user_capabilities = { edit: mayChange, delete: mayChange };
  let refresh: string | null = null;
  if (view.refreshSecret) refresh = view.refreshSecret;
  else if (view.hasRefresh) refresh = MASKED;
  return {
    id: token.id,
    type: 'o_auth2_access_token',
    url,
    related,
    summary_fields: summary,
    created: token.created.toISOString(),
    modified: token.modified.toISOString(),
    description: token.description,
    user: token.userId,
    token: view.secret ?? MASKED,
    refresh_token: refresh,
    application: token.applicationId,
    expires: token.expires.toISOString(),
    scope: token.scope,
    last_used: view.lastUsed ? view.lastUsed.toISOString() : null,
    last_used_ip: view.lastUsedIp || null,
  };
}
