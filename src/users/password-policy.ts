import type { SettingsService } from '../settings/settings.service';

export const PASSWORD_MAX_LENGTH = 128;

/** AWX's LOCAL_PASSWORD_MIN_* rules with AWX's messages; returns every broken rule. */
export function passwordProblems(password: string, settings: SettingsService): string[] {
  const problems: string[] = [];
  if ([...password].length > PASSWORD_MAX_LENGTH) problems.push(`Password max length is ${PASSWORD_MAX_LENGTH}`);
  const minLength = settings.get('LOCAL_PASSWORD_MIN_LENGTH');
  const minDigits = settings.get('LOCAL_PASSWORD_MIN_DIGITS');
  const minUpper = settings.get('LOCAL_PASSWORD_MIN_UPPER');
  const minSpecial = settings.get('LOCAL_PASSWORD_MIN_SPECIAL');
  const count = (re: RegExp) => [...password].filter((c) => re.test(c)).length;
  if ([...password].length < minLength) problems.push(`Password must be at least ${minLength} characters long.`);
  if (count(/\p{Nd}/u) < minDigits) problems.push(`Password must contain at least ${minDigits} digits.`);
  if (count(/\p{Lu}/u) < minUpper) problems.push(`Password must contain at least ${minUpper} uppercase characters.`);
  if (count(/[^\p{L}\p{N}\s]/u) < minSpecial) problems.push(`Password must contain at least ${minSpecial} special characters.`);
  return problems;
}
