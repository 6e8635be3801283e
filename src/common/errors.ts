/**
 * Domain errors: what went wrong, as a code and a readable detail. Features throw these and never
 * HTTP exceptions; `http-errors.ts` is the one place that turns a code into a status and headers,
 * and the filters render it as JSON (API) or as a page (browser routes).
 */
export type ErrorCode =
  | 'invalid'
  | AuthErrorCode
  | 'permission_denied'
  | 'insufficient_scope'
  | 'not_found'
  | 'not_acceptable'
  | 'too_large'
  | 'unsupported_media_type'
  | 'throttled'
  | 'unavailable';

/** Codes an authentication attempt can fail with; each is a 401 (SPEC §1). */
export type AuthErrorCode =
  | 'not_authenticated'
  | 'invalid_credentials'
  | 'basic_disabled'
  | 'local_auth_disabled'
  | 'invalid_token'
  | 'token_expired'
  | 'session_ended'
  | 'mfa_required'
  | 'account_expired'
  | 'user_disabled';

/** SPEC §16: what basic auth and the password grant answer a user who owes a second step. */
export const MFA_REQUIRED = 'This account uses two-step verification; use a token.';
/** SPEC §22: what basic, bearer, sessions and the password grant answer a user whose `account_expires` has passed. */
export const ACCOUNT_EXPIRED = 'User account has expired.';
/** SPEC §22: DRF's words (as AWX) for a deactivated account whose password proved it. */
export const USER_DISABLED = 'User inactive or deleted.';
export const PERMISSION_DENIED = 'You do not have permission to perform this action.';
export const NOT_AUTHENTICATED = 'Authentication credentials were not provided. To establish a login session, visit /api/login/.';

const AUTH_DETAIL: Record<AuthErrorCode, string> = {
  not_authenticated: NOT_AUTHENTICATED,
  invalid_credentials: 'Invalid username/password.',
  basic_disabled: 'Basic authentication is disabled.',
  local_auth_disabled: 'Local authentication is disabled.',
  invalid_token: 'Invalid or revoked token.',
  token_expired: 'Token has expired.',
  session_ended: 'Your session has ended.',
  mfa_required: MFA_REQUIRED,
  account_expired: ACCOUNT_EXPIRED,
  user_disabled: USER_DISABLED,
};

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    /** Extra members of the JSON body (e.g. a session's end `reason`). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }

  /** The JSON body: `{"detail": ..., ...extra}`. */
  body(): Record<string, unknown> {
    return { detail: this.detail, ...this.extra };
  }
}

export class AuthError extends DomainError {
  declare readonly code: AuthErrorCode;

  constructor(code: AuthErrorCode, detail?: string, extra: Record<string, unknown> = {}) {
    super(code, detail ?? AUTH_DETAIL[code], extra);
  }
}

/**
 * DRF's errors of one field: its messages, or, for a value with parts (a dict's keys, a list's positions),
 * the errors of each part (AWX's map settings, SPEC §21: `{"KEY": {"Ops": {"colour": ["Invalid field."]}}}`).
 */
export type ErrorTree = string[] | { [part: string]: ErrorTree };

/** Every message of a tree, each after the parts that lead to it (`Ops: colour: Invalid field.`). */
export function errorMessages(tree: ErrorTree): string[] {
  if (Array.isArray(tree)) return tree;
  return Object.entries(tree).flatMap(([part, inner]) => errorMessages(inner).map((message) => `${part}: ${message}`));
}

/**
 * 400 with DRF-style field errors: `{"field": ["message"]}`; `E` is `ErrorTree` where a field's errors may be
 * nested as its value's parts (a setting validated with `reportErrors(schema, 'nested')`).
 */
export class FieldErrors<E extends ErrorTree = string[]> extends DomainError {
  constructor(readonly errors: Record<string, E>) {
    super('invalid', Object.values(errors).flatMap(errorMessages).join(' ') || 'Invalid data.');
  }

  static of(field: string, message: string): FieldErrors {
    return new FieldErrors({ [field]: [message] });
  }

  body(): Record<string, unknown> {
    return this.errors;
  }
}

export class BadRequest extends DomainError {
  constructor(detail: string) {
    super('invalid', detail);
  }
}

export class PermissionDenied extends DomainError {
  constructor(detail = PERMISSION_DENIED) {
    super('permission_denied', detail);
  }
}

/** A read token on an unsafe method (SPEC §5): 403 with the RFC 6750 insufficient_scope challenge. */
export class InsufficientScope extends DomainError {
  constructor() {
    super('insufficient_scope', PERMISSION_DENIED);
  }
}

export class NotFound extends DomainError {
  constructor(detail = 'Not found.') {
    super('not_found', detail);
  }
}

/** SPEC §22: a pair locked with LOGIN_LOCKOUT_DURATION -1 ends only when an administrator unlocks it. */
export const LOCKED_UNTIL_UNLOCKED = 'Too many failed login attempts. Ask an administrator to unlock this account.';

/**
 * Too many failed password attempts for one (username, address) pair (SPEC §12, §22), or wrong codes of one
 * user (§16). `retryAfter` null: locked until an administrator unlocks it (no `Retry-After`, no time to wait).
 */
export class Throttled extends DomainError {
  constructor(
    readonly retryAfter: number | null,
    what = 'failed login attempts',
  ) {
    super('throttled', retryAfter === null ? LOCKED_UNTIL_UNLOCKED : `Too many ${what}. Try again in ${retryAfter} seconds.`);
  }
}

/** A body whose content type the route does not take (SPEC §1). */
export class UnsupportedMediaType extends DomainError {
  constructor(type: string) {
    super('unsupported_media_type', `Unsupported media type "${type}" in request.`);
  }
}

/** The database cannot be reached (SPEC §1): 503, never the driver's text. */
export class ServiceUnavailable extends DomainError {
  constructor(detail = 'The service cannot reach its database right now; try again shortly.') {
    super('unavailable', detail);
  }
}
