import { SettingDefinition, SettingInvalid, validators as v } from './setting-definition';

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

function oauth2Provider(value: unknown): OAuth2ProviderSettings {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new SettingInvalid('Expected a dictionary of items.');
  const known = Object.keys(OAUTH2_PROVIDER_DEFAULT);
  const invalid = Object.keys(value).filter((k) => !known.includes(k));
  if (invalid.length) throw new SettingInvalid(`Invalid key names: ${invalid.join(', ')}`);
  const out = { ...OAUTH2_PROVIDER_DEFAULT };
  for (const [k, raw] of Object.entries(value)) {
    try {
      // SPEC §5: at most 31536000000 s (AWX's own default for access tokens, a thousand years).
      out[k as keyof OAuth2ProviderSettings] = v.int(1, OAUTH2_LIFETIME_MAX)(raw);
    } catch (e) {
      throw new SettingInvalid(`${k}: ${(e as Error).message}`);
    }
  }
  return out;
}

const AUTH = 'authentication';

/** The runtime settings of SPEC §9, with AWX's defaults and bounds. */
export const AUTHENTICATION_SETTINGS: SettingDefinition[] = [
  { key: 'SESSION_COOKIE_AGE', category: AUTH, default: 1800, validate: v.int(60, 30000000000) },
  { key: 'SESSION_ABSOLUTE_TIMEOUT', category: AUTH, default: 0, validate: v.int(0, 30000000000) },
  { key: 'SESSIONS_PER_USER', category: AUTH, default: -1, validate: v.limit },
  { key: 'SESSIONS_PER_IP', category: AUTH, default: -1, validate: v.limit },
  { key: 'AUTH_BASIC_ENABLED', category: AUTH, default: true, validate: v.bool },
  { key: 'DISABLE_LOCAL_AUTH', category: AUTH, default: false, validate: v.bool },
  { key: 'OAUTH2_PROVIDER', category: AUTH, default: OAUTH2_PROVIDER_DEFAULT, validate: oauth2Provider },
  { key: 'ALLOW_OAUTH2_FOR_EXTERNAL_USERS', category: AUTH, default: false, validate: v.bool },
  { key: 'LOGIN_REDIRECT_OVERRIDE', category: AUTH, default: '', validate: v.urlOrBlank },
  { key: 'CSRF_TRUSTED_ORIGINS', category: AUTH, default: [], validate: v.origins },
  { key: 'LOCAL_PASSWORD_MIN_LENGTH', category: AUTH, default: 0, validate: v.int(0, 128) },
  { key: 'LOCAL_PASSWORD_MIN_DIGITS', category: AUTH, default: 0, validate: v.int(0, 128) },
  { key: 'LOCAL_PASSWORD_MIN_UPPER', category: AUTH, default: 0, validate: v.int(0, 128) },
  { key: 'LOCAL_PASSWORD_MIN_SPECIAL', category: AUTH, default: 0, validate: v.int(0, 128) },
  { key: 'LOGIN_FAILURES_ALLOWED', category: AUTH, default: 5, validate: v.int(1, 1000000) },
  { key: 'LOGIN_FAILURE_WINDOW', category: AUTH, default: 900, validate: v.int(1, 31536000) },
  { key: 'ALLOW_METRICS_FOR_ANONYMOUS_USERS', category: AUTH, default: false, validate: v.bool },
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
  LOGIN_REDIRECT_OVERRIDE: string;
  CSRF_TRUSTED_ORIGINS: string[];
  LOCAL_PASSWORD_MIN_LENGTH: number;
  LOCAL_PASSWORD_MIN_DIGITS: number;
  LOCAL_PASSWORD_MIN_UPPER: number;
  LOCAL_PASSWORD_MIN_SPECIAL: number;
  LOGIN_FAILURES_ALLOWED: number;
  LOGIN_FAILURE_WINDOW: number;
  ALLOW_METRICS_FOR_ANONYMOUS_USERS: boolean;
}
