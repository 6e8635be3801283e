import type { User } from '../users/user.entity';
/** Why a single sign-on attempt was refused; the code travels to the login page as `?sso_error=`. */
export type SsoFailureCode =
  | 'unknown_provider'
  | 'unavailable'
  | 'no_transaction'
  | 'denied'
  | 'invalid_response'
  | 'replayed'
  | 'no_identity'
  | 'inactive'
  /** SPEC §22: the user's `account_expires` has passed. */
  | 'expired'
  /** SPEC §22: deactivated at this login for ACCOUNT_INACTIVE_DAYS. */
  | 'disabled'
  /** SPEC §21: an allow decision of the maps refused the login. */
  | 'not_allowed';

/** Shown in the login page's role="alert" element; fixed texts, so nothing from the URL is echoed. */
export const SSO_FAILURE_MESSAGES: Record<SsoFailureCode, string> = {
  unknown_provider: 'Single sign-on failed: that identity provider is not configured.',
  unavailable: 'Single sign-on failed: the identity provider could not be reached. Please try again later.',
  no_transaction: 'Single sign-on failed: the login was not started in this browser or took too long. Please try again.',
  denied: 'Single sign-on failed: the identity provider did not authenticate you.',
  invalid_response: 'Single sign-on failed: the answer of the identity provider could not be verified.',
  replayed: 'Single sign-on failed: this login answer was already used. Please log in again.',
  no_identity: 'Single sign-on failed: the identity provider did not send a usable user identifier.',
  inactive: 'Single sign-on failed: your account is inactive.',
  expired: 'Your account has expired. Contact your administrator.',
  disabled: 'Your account is disabled. Contact your administrator.',
  not_allowed: 'Your account is not allowed to log in here.',
};

/**
 * SPEC §23's `login_failed` reason of a refusal, and the check `sso_failed` names; null when no answer of a
 * provider was read (an unknown provider: nothing to record).
 */
export function ssoEventReason(code: SsoFailureCode): { reason: string; check?: string } | null {
  if (code === 'unknown_provider') return null;
  if (code === 'inactive' || code === 'disabled') return { reason: 'user_disabled' };
  if (code === 'expired') return { reason: 'account_expired' };
  if (code === 'not_allowed' || code === 'unavailable') return { reason: code };
  return { reason: 'sso_failed', check: code };
}

/**
 * A refused attempt. `detail` is for the log only (a library's reason, never a token or assertion);
 * the browser sees the fixed message of `code`.
 */
export class SsoFailure extends Error {
  constructor(
    public readonly code: SsoFailureCode,
    public readonly detail?: string,
    /** The user the identity is, when it is one's (SPEC §23: the refused login's event names them). */
    public readonly user?: User | null,
  ) {
    super(detail ?? code);
  }
}

/** A library error as one log-safe line: its class, code and message (never a token). */
export function describeError(err: unknown): string {
  const e = err as { name?: string; code?: string; error?: string; message?: string; cause?: unknown };
  let cause = e?.cause instanceof Error ? ` (${describeError(e.cause)})` : '';
  // A WWW-Authenticate challenge from the provider (e.g. invalid_client at the token endpoint).
  if (Array.isArray(e?.cause)) {
    const challenges = e.cause as { scheme?: string; parameters?: { error?: string } }[];
    cause = ` (${challenges.map((c) => [c.scheme, c.parameters?.error].filter(Boolean).join(' ')).join(', ')})`;
  }
  return ([e?.name, e?.code ?? e?.error, e?.message].filter(Boolean).join(': ') + cause).slice(0, 400);
}

/**
 * A logout message an identity provider sent that is refused (SPEC §17): a back-channel logout token or
 * a SAML LogoutRequest that fails a check. Nothing is ended; `reason` goes to the log and, for the
 * back channel, to the 400 answer's `error_description` (it names the failed check, never the token).
 */
export class LogoutRefused extends Error {
  constructor(public readonly reason: string) {
    super(reason);
  }
}
