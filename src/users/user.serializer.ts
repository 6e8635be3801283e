import { isoTime } from '../common/iso-time';
import type { User } from './user.entity';

export interface UserView {
  viewer: User;
  oauth2Enabled: boolean;
  /** Social identities linked to the user (SSO issue fills this). */
  auth?: { provider: string; uid: string }[];
  /** SPEC §22: a pair of the user's name is locked now. */
  loginLocked?: boolean;
  /** SPEC §22: the break-glass superuser's id now (null: none). */
  breakGlassId?: number | null;
}

export function canEditUser(viewer: User, target: User): boolean {
  return viewer.isSuperuser || viewer.id === target.id;
}

export function canDeleteUser(viewer: User, target: User): boolean {
  return viewer.isSuperuser && viewer.id !== target.id;
}

/** AWX's UserSerializer field set (SPEC §8); the password reads "$encrypted$" and is omitted for external users. */
export function serializeUser(user: User, view: UserView): Record<string, unknown> {
  const url = `/api/v2/users/${user.id}/`;
  const related: Record<string, string> = { sessions: `${url}sessions/`, authentication_events: `${url}authentication_events/`, activity_stream: `${url}activity_stream/` };
  if (view.oauth2Enabled) {
    related.tokens = `${url}tokens/`;
    related.personal_tokens = `${url}personal_tokens/`;
    related.authorized_tokens = `${url}authorized_tokens/`;
  }
  const out: Record<string, unknown> = {
    id: user.id,
    type: 'user',
    url,
    related,
    summary_fields: {
      user_capabilities: { edit: canEditUser(view.viewer, user), delete: canDeleteUser(view.viewer, user) },
    },
    created: isoTime(user.created),
    modified: isoTime(user.modified),
    username: user.username,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    is_active: user.isActive,
    is_superuser: user.isSuperuser,
    is_system_auditor: user.isSystemAuditor,
    password: '$encrypted$',
    last_login: user.lastLogin ? isoTime(user.lastLogin) : null,
    previous_login: user.previousLoginAt ? isoTime(user.previousLoginAt) : null,
    external_account: user.externalAccount,
    ldap_dn: user.ldapDn ?? '',
    auth: view.auth ?? [],
    login_locked: view.loginLocked ?? false,
    account_expires: user.accountExpires ? isoTime(user.accountExpires) : null,
    break_glass: view.breakGlassId === user.id,
  };
  if (user.externalAccount) delete out.password;
  return out;
}

/** The public fields carried in the `current_user` cookie: never a secret. */
export function publicUserFields(user: User): Record<string, unknown> {
  return {
    id: user.id,
    type: 'user',
    url: `/api/v2/users/${user.id}/`,
    username: user.username,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    is_superuser: user.isSuperuser,
    is_system_auditor: user.isSystemAuditor,
    external_account: user.externalAccount,
  };
}
