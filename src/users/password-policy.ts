import type { SettingsService } from '../settings/settings.service';
import { foldUsername, normalizeUsername } from './usernames';

/** AWX's fixed cap, the default of LOCAL_PASSWORD_MAX_LENGTH; at it the message is AWX's own. */
export const AWX_PASSWORD_MAX_LENGTH = 128;

/** Shorter names match too much of any password to be worth refusing (SPEC §22). */
const USERNAME_RULE_MIN = 3;

export const TOO_COMMON = 'This password is too common.';
export const CONTAINS_USERNAME = 'The password must not contain the username.';

export function maxLengthMessage(max: number): string {
  return max === AWX_PASSWORD_MAX_LENGTH ? `Password max length is ${max}` : `Ensure this field has no more than ${max} characters.`;
}

export function reuseMessage(history: number): string {
  return `You cannot reuse one of your last ${history} passwords.`;
}

/**
 * The rules of SPEC §22 that need no stored hash, every broken one in SPEC order: AWX's LOCAL_PASSWORD_MIN_*
 * (AWX's messages), the maximum length, the deny-list, the username. Lengths count code points, not UTF-16 units.
 */
export function passwordProblems(password: string, settings: SettingsService, common: { has(password: string): boolean }, username?: string): string[] {
  const problems: string[] = [];
  const chars = [...password];
  const minLength = settings.get('LOCAL_PASSWORD_MIN_LENGTH');
  const minDigits = settings.get('LOCAL_PASSWORD_MIN_DIGITS');
  const minUpper = settings.get('LOCAL_PASSWORD_MIN_UPPER');
  const minSpecial = settings.get('LOCAL_PASSWORD_MIN_SPECIAL');
  const maxLength = settings.get('LOCAL_PASSWORD_MAX_LENGTH');
  const count = (re: RegExp) => chars.filter((c) => re.test(c)).length;
  if (chars.length < minLength) problems.push(`Password must be at least ${minLength} characters long.`);
  if (count(/\p{Nd}/u) < minDigits) problems.push(`Password must contain at least ${minDigits} digits.`);
  if (count(/\p{Lu}/u) < minUpper) problems.push(`Password must contain at least ${minUpper} uppercase characters.`);
  if (count(/[^\p{L}\p{N}\s]/u) < minSpecial) problems.push(`Password must contain at least ${minSpecial} special characters.`);
  if (chars.length > maxLength) problems.push(maxLengthMessage(maxLength));
  if (settings.get('LOCAL_PASSWORD_DENY_COMMON') && common.has(password)) problems.push(TOO_COMMON);
  if (settings.get('LOCAL_PASSWORD_DENY_USERNAME') && username && containsUsername(password, username)) problems.push(CONTAINS_USERNAME);
  return problems;
}

/** NFKC and Unicode case folding on both sides, as names compare (usernames.ts), so `ＡＬＩＣＥ!1` holds `alice`. */
export function containsUsername(password: string, username: string): boolean {
  if ([...normalizeUsername(username)].length < USERNAME_RULE_MIN) return false;
  return foldUsername(password).includes(foldUsername(username));
}
