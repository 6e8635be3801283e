import { z } from 'zod';
import { integer, refuse } from '../common/validation';
import { SettingDefinition } from './setting-definition';

export interface OAuth2ProviderSettings {
  ACCESS_TOKEN_EXPIRE_SECONDS: number;
  REFRESH_TOKEN_EXPIRE_SECONDS: number;
  AUTHORIZATION_CODE_EXPIRE_SECONDS: number;
}

export const OAUTH2_PROVIDER_DEFAULT: OAuth2ProviderSettings = {
  ACCESS_TOKEN_EXPIRE_SECONDS: 31536000000,
  REFRESH_TOKEN_EXPIRE_SECONDS: 2628000,
  AUTHORIZATION_CODE_EXPIRE_SECONDS: 600,
};

export const OAUTH2_LIFETIME_MAX = 31536000000;

/** SPEC §5: at most 31536000000 s (AWX's own default for access tokens, a thousand years). */
const lifetime = (key: keyof OAuth2ProviderSettings) => integer(1, OAUTH2_LIFETIME_MAX).default(OAUTH2_PROVIDER_DEFAULT[key]);

/** The three lifetimes; a key left out takes its default, an unknown key is refused. */
const oauth2Provider = z.strictObject({
  ACCESS_TOKEN_EXPIRE_SECONDS: lifetime('ACCESS_TOKEN_EXPIRE_SECONDS'),
  REFRESH_TOKEN_EXPIRE_SECONDS: lifetime('REFRESH_TOKEN_EXPIRE_SECONDS'),
  AUTHORIZATION_CODE_EXPIRE_SECONDS: lifetime('AUTHORIZATION_CODE_EXPIRE_SECONDS'),
});

/** SPEC §22's lockout: 0, -1, or 60 seconds to a year. */
const lockoutDuration = integer(-1, 31536000).refine((n) => n === 0 || n === -1 || n >= 60, 'Use 0 (until the failure window ends), -1 (until an administrator unlocks it), or 60 to 31536000 seconds.');

/** -1 (no limit) or at least 1: a limit of 0 would end every session, the new one included. */
export const sessionLimit = integer(-1).refine((n) => n !== 0, 'Use -1 for no limit, or a value of at least 1.');

/** An absolute http(s) URL or a path starting with "/", or blank; kept trimmed. */
export const urlOrBlank = z
  .string()
  .max(1024)
  .transform((s) => s.trim())
  .refine((s) => s === '' || (s.startsWith('/') && !s.startsWith('//')) || isHttpUrl(s), 'Enter a valid URL.');

/** An absolute http: or https: URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Browser origins, each normalised to scheme://host[:port]; a path, query or other scheme is refused. */
export const origins = z.array(
  z.string().transform((item, ctx) => {
    const origin = originOf(item);
    if (origin === undefined) {
      refuse(ctx, `"${item}" is not a valid origin (scheme://host[:port]).`, item);
      return z.NEVER;
    }
    return origin;
  }),
);

function originOf(item: string): string | undefined {
  let u: URL;
  try {
    u = new URL(item);
  } catch {
    return undefined;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) return undefined;
  return u.origin;
}

/** The values of MFA_REQUIRED_FOR. */
export const MFA_REQUIRED_FOR = ['none', 'superusers', 'all'] as const;

const AUTH = 'authentication';
const bool = z.boolean();

/** The runtime settings of SPEC §9, with AWX's defaults and bounds. */
export const AUTHENTICATION_SETTINGS: SettingDefinition[] = [
  { key: 'SESSION_COOKIE_AGE', category: AUTH, default: 1800, schema: integer(60, 30000000000) },
  { key: 'SESSION_ABSOLUTE_TIMEOUT', category: AUTH, default: 0, schema: integer(0, 30000000000) },
  { key: 'SESSIONS_PER_USER', category: AUTH, default: -1, schema: sessionLimit },
  { key: 'SESSIONS_PER_IP', category: AUTH, default: -1, schema: sessionLimit },
  { key: 'AUTH_BASIC_ENABLED', category: AUTH, default: true, schema: bool },
  { key: 'DISABLE_LOCAL_AUTH', category: AUTH, default: false, schema: bool },
  { key: 'OAUTH2_PROVIDER', category: AUTH, default: OAUTH2_PROVIDER_DEFAULT, schema: oauth2Provider },
  { key: 'ALLOW_OAUTH2_FOR_EXTERNAL_USERS', category: AUTH, default: false, schema: bool },
  { key: 'LOGIN_REDIRECT_OVERRIDE', category: AUTH, default: '', schema: urlOrBlank },
  { key: 'CSRF_TRUSTED_ORIGINS', category: AUTH, default: [], schema: origins },
  { key: 'LOCAL_PASSWORD_MIN_LENGTH', category: AUTH, default: 0, schema: integer(0, 128) },
  { key: 'LOCAL_PASSWORD_MIN_DIGITS', category: AUTH, default: 0, schema: integer(0, 128) },
  { key: 'LOCAL_PASSWORD_MIN_UPPER', category: AUTH, default: 0, schema: integer(0, 128) },
  { key: 'LOCAL_PASSWORD_MIN_SPECIAL', category: AUTH, default: 0, schema: integer(0, 128) },
  // SPEC §22 (NIST SP 800-63B): 128 is AWX's fixed cap, 64 the standard's "at least 64"; not below the minimum
  // (users/password-rules.service.ts). History counts the user's last N passwords, the current one included.
  { key: 'LOCAL_PASSWORD_MAX_LENGTH', category: AUTH, default: 128, schema: integer(64, 4096) },
  { key: 'LOCAL_PASSWORD_HISTORY', category: AUTH, default: 0, schema: integer(0, 24) },
  { key: 'LOCAL_PASSWORD_DENY_COMMON', category: AUTH, default: true, schema: bool },
  { key: 'LOCAL_PASSWORD_DENY_USERNAME', category: AUTH, default: true, schema: bool },
  { key: 'LOGIN_FAILURES_ALLOWED', category: AUTH, default: 5, schema: integer(1, 1000000) },
  { key: 'LOGIN_FAILURE_WINDOW', category: AUTH, default: 900, schema: integer(1, 31536000) },
  // SPEC §22: 0 = locked until the window ends (§12), N = N seconds from the locking failure, -1 = until unlocked.
  { key: 'LOGIN_LOCKOUT_DURATION', category: AUTH, default: 0, schema: lockoutDuration },
  // SPEC §22: "" = the active local superuser with the lowest id and no account_expires (users/break-glass.ts checks a name).
  { key: 'BREAK_GLASS_USERNAME', category: AUTH, default: '', schema: z.string().max(150) },
  // SPEC §22 (AC-2(3)): days without a login after which a user is deactivated; 0 = off (the STIG's value is 35).
  { key: 'ACCOUNT_INACTIVE_DAYS', category: AUTH, default: 0, schema: integer(0, 3650) },
  // SPEC §23: how long authentication events are kept (also §22's login history); the sweep deletes older ones.
  { key: 'AUTH_EVENTS_RETENTION_DAYS', category: AUTH, default: 365, schema: integer(1, 3650) },
  { key: 'ALLOW_METRICS_FOR_ANONYMOUS_USERS', category: AUTH, default: false, schema: bool },
  // SPEC §15: a cap over every access token issued (0: none), and how long before expiry a token is "expiring soon".
  { key: 'TOKEN_MAX_LIFETIME_SECONDS', category: AUTH, default: 0, schema: integer(0, OAUTH2_LIFETIME_MAX) },
  { key: 'TOKEN_EXPIRY_WARNING_SECONDS', category: AUTH, default: 604800, schema: integer(0, OAUTH2_LIFETIME_MAX) },
  // Who must have a second factor (SPEC §16): the form login sets one up before it completes; basic and the password grant refuse.
  { key: 'MFA_REQUIRED_FOR', category: AUTH, default: 'none', schema: z.enum(MFA_REQUIRED_FOR) },
  // SPEC §21: while false only superusers make, change or delete teams and grant or revoke roles (AWX: category `system`).
  { key: 'MANAGE_ORGANIZATION_AUTH', category: AUTH, default: true, schema: bool },
  // SPEC §21: an organization's admins and auditors see every user in /api/v2/users/, to find whom to add.
  { key: 'ORG_ADMINS_CAN_SEE_ALL_USERS', category: AUTH, default: true, schema: bool },
];

/** Typed view of the values the service reads on hot paths. */
export interface AuthenticationSettings {
  SESSION_COOKIE_AGE: number;
  SESSION_ABSOLUTE_TIMEOUT: number;
  SESSIONS_PER_USER: number;
  SESSIONS_PER_IP: number;
  AUTH_BASIC_ENABLED: boolean;
  DISABLE_LOCAL_AUTH: boolean;
  OAUTH2_PROVIDER: OAuth2ProviderSettings;
  ALLOW_OAUTH2_FOR_EXTERNAL_USERS: boolean;
  MFA_REQUIRED_FOR: (typeof MFA_REQUIRED_FOR)[number];
  LOGIN_REDIRECT_OVERRIDE: string;
  CSRF_TRUSTED_ORIGINS: string[];
  LOCAL_PASSWORD_MIN_LENGTH: number;
  LOCAL_PASSWORD_MIN_DIGITS: number;
  LOCAL_PASSWORD_MIN_UPPER: number;
  LOCAL_PASSWORD_MIN_SPECIAL: number;
  LOCAL_PASSWORD_MAX_LENGTH: number;
  LOCAL_PASSWORD_HISTORY: number;
  LOCAL_PASSWORD_DENY_COMMON: boolean;
  LOCAL_PASSWORD_DENY_USERNAME: boolean;
  LOGIN_FAILURES_ALLOWED: number;
  LOGIN_FAILURE_WINDOW: number;
  LOGIN_LOCKOUT_DURATION: number;
  BREAK_GLASS_USERNAME: string;
  ACCOUNT_INACTIVE_DAYS: number;
  ALLOW_METRICS_FOR_ANONYMOUS_USERS: boolean;
  TOKEN_MAX_LIFETIME_SECONDS: number;
  TOKEN_EXPIRY_WARNING_SECONDS: number;
  MANAGE_ORGANIZATION_AUTH: boolean;
  ORG_ADMINS_CAN_SEE_ALL_USERS: boolean;
}
