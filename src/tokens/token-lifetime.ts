import { OAUTH2_LIFETIME_MAX } from '../settings/authentication-settings';

/** The shortest lifetime a caller may ask for (`expires_in` of `POST /api/v2/tokens/`, `--expires-in`). */
export const MIN_REQUESTED_LIFETIME = 60;

/**
 * The lifetime policy of SPEC §15 as arithmetic: `TOKEN_MAX_LIFETIME_SECONDS` caps whatever lifetime a
 * token would otherwise get (0 is no cap). `TokensService.issue` applies it to every access token.
 */
export function cappedLifetime(seconds: number, cap: number): number {
  return cap > 0 ? Math.min(seconds, cap) : seconds;
}

/** The longest lifetime a caller may ask for: the cap, or (no cap) the longest the OAuth 2 settings allow. */
export function longestRequestable(cap: number): number {
  return cap > 0 ? cap : OAUTH2_LIFETIME_MAX;
}

/**
 * Why a requested lifetime is refused, in DRF's words (the API's `{"expires_in": [...]}` and the
 * command's `--expires-in`), or null when it is whole seconds from 60 to the cap. Above the cap is
 * refused rather than cut: a caller who asked for a year and got a day would find out at the worst moment.
 */
export function requestedLifetimeRefusal(seconds: unknown, cap: number): string | null {
  if (typeof seconds !== 'number' || !Number.isInteger(seconds)) return 'A valid integer is required.';
  if (seconds < MIN_REQUESTED_LIFETIME) return `Ensure this value is greater than or equal to ${MIN_REQUESTED_LIFETIME}.`;
  const longest = longestRequestable(cap);
  if (seconds > longest) return `Ensure this value is less than or equal to ${longest}.`;
  return null;
}
