/** Why a session ended (SPEC §3); each message carries the words the login page promises (SPEC §13). */
export const SESSION_END_MESSAGES = {
  session_limit: 'You were logged out: the session limit was reached, you signed in on more browsers than the administrator allows.',
  idle_timeout: 'You were logged out because the session was idle for too long.',
  absolute_timeout: 'Your session expired: it reached the maximum session lifetime. Please log in again.',
  logged_out: 'You logged out.',
  ended_by_user: 'You were logged out: this session was ended from your sessions list.',
  revoked_by_admin: 'Your session was revoked by an administrator.',
  password_changed: 'You were logged out because your password was changed.',
  user_disabled: 'You were logged out because your account was disabled.',
  local_auth_disabled: 'You were logged out because local authentication was disabled.',
  /** Single logout (SPEC §17): the identity provider that logged the user in ended its own session. */
  idp_logout: 'You were logged out by your identity provider: your single sign-on session there has ended.',
  /** SPEC §21: the identity source refused a login of the user (a group gate, an `allow` rule). */
  access_revoked: 'You were logged out: your access was revoked by your identity source.',
  /** SPEC §22: the user's `account_expires` has passed; the session is refused, not ended (a later date revives it). */
  account_expired: 'User account has expired.',
} as const;

export type SessionEndReason = keyof typeof SESSION_END_MESSAGES;

/** Whether a refusal ends the session's row: an expired account's sessions only wait (SPEC §22). */
export function endsSession(reason: SessionEndReason): boolean {
  return reason !== 'account_expired';
}

export function isSessionEndReason(value: unknown): value is SessionEndReason {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(SESSION_END_MESSAGES, value);
}
