import type { User } from '../users/user.entity';
import type { Application } from './application.entity';
import { MASKED } from './token-secrets';

/** Owners and superusers manage an application; system auditors only read it. */
export function canManageApplication(viewer: User, app: Application): boolean {
  return viewer.isSuperuser || viewer.id === app.userId;
}

export function canSeeApplication(viewer: User, app: Application): boolean {
  return canManageApplication(viewer, app) || viewer.isSystemAuditor;
}

/**
 * AWX's application field set with `user` (the owner) where AWX has `organization`. The client
 * secret is shown once, in the creating response, and never exists for public clients.
 */
export function serializeApplication(app: Application, viewer: User, secret?: string | null): Record<string, unknown> {
  const url = `/api/v2/applications/${app.id}/`;
  const manage = canManageApplication(viewer, app);
  const out: Record<string, unknown> = {
    id: app.id,
    type: 'o_auth2_application',
    url,
    related: {
      tokens: `${url}tokens/`,
      activity_stream: `${url}activity_stream/`,
      user: `/api/v2/users/${app.userId}/`,
      ...(app.serviceAccountId ? { service_account: `/api/v2/users/${app.serviceAccountId}/` } : {}),
    },
    summary_fields: {
      user: app.user ? { id: app.user.id, username: app.user.username, first_name: app.user.firstName, last_name: app.user.lastName } : undefined,
      user_capabilities: { edit: manage, delete: manage },
    },
    created: app.created.toISOString(),
    modified: app.modified.toISOString(),
    name: app.name,
    description: app.description,
    client_id: app.clientId,
    client_secret: secret ?? MASKED,
    client_type: app.clientType,
    redirect_uris: app.redirectUris,
    authorization_grant_type: app.authorizationGrantType,
    skip_authorization: app.skipAuthorization,
    user: app.userId,
    service_account: app.serviceAccountId,
  };
  if (app.clientType === 'public') delete out.client_secret;
  return out;
}
