import type { AppConfig } from '../config/app-config';
import { safeNext } from '../common/safe-redirect';

export const LOGIN_FAILED = 'Please enter a correct username and password. Note that both fields may be case-sensitive.';
const DEFAULT_REDIRECT = '/accounts/profile/';

/** Where a completed login sends the browser: `next` when it is ours (SPEC §2), else the profile page. */
export function loginTarget(next: unknown, config: Pick<AppConfig, 'publicUrl'>): string {
  return safeNext(next, new URL(config.publicUrl).origin) ?? DEFAULT_REDIRECT;
}
