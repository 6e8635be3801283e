/**
 * The suite's fixture passwords name their users (`alice` logs in with `Alice-pass-1`), which SPEC §22's
 * LOCAL_PASSWORD_DENY_USERNAME, on by default, refuses. Every test app and process starts with that rule off, as an
 * environment default a test's own env overrides; test/password-policy.e2e-spec.ts and test/settings.e2e-spec.ts
 * run with the SPEC's defaults (`startTestApp({ passwordPolicy: 'spec' })`).
 */
export const FIXTURE_POLICY_ENV: Record<string, string> = { LOCAL_PASSWORD_DENY_USERNAME: 'false' };
