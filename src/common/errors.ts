import { HttpException, HttpStatus } from '@nestjs/common';

/** 400 with DRF-style field errors: `{"field": ["message"]}`. */
export class FieldErrors extends HttpException {
  constructor(public readonly errors: Record<string, string[]>) {
    super(errors, HttpStatus.BAD_REQUEST);
  }
  static of(field: string, message: string): FieldErrors {
    return new FieldErrors({ [field]: [message] });
  }
}

export const PERMISSION_DENIED = 'You do not have permission to perform this action.';
export const NOT_AUTHENTICATED = 'Authentication credentials were not provided. To establish a login session, visit /api/login/.';

/** Codes an authentication attempt can fail with; the filter maps each to a 401 (SPEC §1). */
export type AuthErrorCode =
  | 'not_authenticated'
  | 'invalid_credentials'
  | 'basic_disabled'
  | 'local_auth_disabled'
  | 'invalid_token'
  | 'token_expired'
  | 'session_ended';

const AUTH_DETAIL: Record<AuthErrorCode, string> = {
  not_authenticated: NOT_AUTHENTICATED,
  invalid_credentials: 'Invalid username/password.',
  basic_disabled: 'Basic authentication is disabled.',
  local_auth_disabled: 'Local authentication is disabled.',
  invalid_token: 'Invalid or revoked token.',
  token_expired: 'Token has expired.',
  session_ended: 'Your session has ended.',
};

export class AuthError extends HttpException {
  constructor(
    public readonly code: AuthErrorCode,
    detail?: string,
    public readonly extra: Record<string, unknown> = {},
  ) {
    super({ detail: detail ?? AUTH_DETAIL[code], ...extra }, HttpStatus.UNAUTHORIZED);
  }
}

export class PermissionDenied extends HttpException {
  constructor(detail = PERMISSION_DENIED, public readonly headers: Record<string, string> = {}) {
    super({ detail }, HttpStatus.FORBIDDEN);
  }
}

export class NotFound extends HttpException {
  constructor(detail = 'Not found.') {
    super({ detail }, HttpStatus.NOT_FOUND);
  }
}

export class BadRequest extends HttpException {
  constructor(detail: string) {
    super({ detail }, HttpStatus.BAD_REQUEST);
  }
}
