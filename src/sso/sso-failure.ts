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
  | 'too_many';

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
  too_many: 'Single sign-on failed: too many logins were started from this address. Please try again in a few minutes.',
};

/**
 * A refused attempt. `detail` is for the log only (a library's reason, never a token or assertion);
 * the browser sees the fixed message of `code`.
 */
export class SsoFailure extends Error {
  constructor(
    public readonly code: SsoFailureCode,
    public readonly detail?: string,
  ) {
    super(detail ?? code);
  }
}
