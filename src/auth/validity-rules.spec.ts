import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../common/clock';
import type { SettingsService } from '../settings/settings.service';
import { SessionsService } from '../sessions/sessions.service';
import type { Session } from '../sessions/session.entity';
import { AuthorizationCodes } from '../oauth2/authorization-codes.service';
import { RefreshTokensService } from '../tokens/refresh-tokens.service';
import { TokensService } from '../tokens/tokens.service';
import { AccountPolicy, accountRefusal, ExternalUserRefused, mayHoldTokens } from '../users/account-policy';

/**
 * The validity rules in one place (issue 12): the account policy shared by every credential kind, and
 * the one rule per credential kind built on it. Every path that asks "is this credential still good?"
 * (the guard's strategies, /api/o/authorize/, the session event stream, the login page, the token
 * endpoint's grants) calls these, so these cases are the whole answer.
 */
const noCutoffs = { sessionsEndedBefore: null, sessionsEndReason: null, sessionsKeptId: null, tokensRevokedBefore: null };
const local = { isActive: true, externalAccount: null, ...noCutoffs };
const social = { isActive: true, externalAccount: 'social', ...noCutoffs };
const disabled = { isActive: false, externalAccount: null, ...noCutoffs };

function settings(values: Record<string, unknown>): SettingsService {
  const all: Record<string, unknown> = { DISABLE_LOCAL_AUTH: false, ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false, ...values };
  return { get: (key: string) => all[key] } as unknown as SettingsService;
}

describe('account policy', () => {
  it('refuses an inactive account whatever else holds', () => {
    assert.equal(accountRefusal(disabled, { DISABLE_LOCAL_AUTH: false }), 'user_disabled');
    assert.equal(accountRefusal({ ...disabled, externalAccount: 'social' }, { DISABLE_LOCAL_AUTH: true }), 'user_disabled');
  });

  it('refuses local accounts only while local authentication is disabled', () => {
    assert.equal(accountRefusal(local, { DISABLE_LOCAL_AUTH: false }), null);
    assert.equal(accountRefusal(local, { DISABLE_LOCAL_AUTH: true }), 'local_auth_disabled');
    assert.equal(accountRefusal(social, { DISABLE_LOCAL_AUTH: true }), null);
  });

  it('lets external users hold tokens only with ALLOW_OAUTH2_FOR_EXTERNAL_USERS', () => {
    assert.equal(mayHoldTokens(local, { ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false }), true);
    assert.equal(mayHoldTokens(social, { ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false }), false);
    assert.equal(mayHoldTokens(social, { ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true }), true);
    const policy = new AccountPolicy(settings({}));
    assert.throws(() => policy.assertMayHoldTokens(social), (err: unknown) => err instanceof ExternalUserRefused && /external authentication provider \(social\)/.test(err.detail));
    assert.doesNotThrow(() => policy.assertMayHoldTokens(local));
  });
});

describe('session validity', () => {
  const clock = new ManualClock();
  const now = clock.now();
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
  const session = (over: Partial<Session> = {}) =>
    ({ id: 1, created: at(-30), expires: at(60), absoluteExpires: null, endedAt: null, endedReason: null, ...over }) as Session;
  const rule = (values: Record<string, unknown> = {}) => {
    const s = settings(values);
    return new SessionsService(undefined as never, undefined as never, undefined as never, s, clock, undefined as never, new AccountPolicy(s), undefined as never, undefined as never);
  };

  it('accepts a live session of an allowed account', () => {
    assert.equal(rule().validate(session(), local, now), null);
  });

  it('keeps the reason a session was ended with', () => {
    assert.equal(rule().validate(session({ endedAt: at(-5), endedReason: 'session_limit' }), local, now), 'session_limit');
  });

  it('times out at the idle expiry and at the absolute one, absolute first', () => {
    assert.equal(rule().validate(session({ expires: now }), local, now), 'idle_timeout');
    assert.equal(rule().validate(session({ expires: now, absoluteExpires: now }), local, now), 'absolute_timeout');
  });

  it('ends with the account: disabled user, local user while local auth is off', () => {
    assert.equal(rule().validate(session(), disabled, now), 'user_disabled');
    assert.equal(rule({ DISABLE_LOCAL_AUTH: true }).validate(session(), local, now), 'local_auth_disabled');
    assert.equal(rule({ DISABLE_LOCAL_AUTH: true }).validate(session(), social, now), null);
  });

  it('says an ended session is ended before it blames the account', () => {
    assert.equal(rule().validate(session({ endedAt: at(-1), endedReason: 'revoked_by_admin' }), disabled, now), 'revoked_by_admin');
  });
});

describe('access token validity', () => {
  const clock = new ManualClock();
  const now = clock.now();
  const rule = (values: Record<string, unknown> = {}) => {
    const s = settings(values);
    return new TokensService(undefined as never, s, clock, undefined as never, new AccountPolicy(s), undefined as never, undefined as never);
  };
  const live = { created: new Date(now.getTime() - 1000), expires: new Date(now.getTime() + 1000) };

  it('accepts a live token of an allowed account', () => {
    assert.equal(rule().validate(live, local, now), null);
  });

  it('refuses an unknown token, or one whose user is gone, as invalid', () => {
    assert.equal(rule().validate(null, null, now), 'invalid_token');
    assert.equal(rule().validate(live, null, now), 'invalid_token');
  });

  it('refuses an expired token at its expiry instant', () => {
    assert.equal(rule().validate({ ...live, expires: now }, local, now), 'token_expired');
  });

  it("reads a disabled user's token as invalid, and a local user's while local auth is off as such", () => {
    assert.equal(rule().validate(live, disabled, now), 'invalid_token');
    assert.equal(rule({ DISABLE_LOCAL_AUTH: true }).validate(live, local, now), 'local_auth_disabled');
    assert.equal(rule({ DISABLE_LOCAL_AUTH: true }).validate(live, social, now), null);
  });
});

describe('revocation cut-offs (issue 21)', () => {
  const clock = new ManualClock();
  const now = clock.now();
  const at = (ms: number) => new Date(now.getTime() + ms);
  const s = settings({});
  const sessions = new SessionsService(undefined as never, undefined as never, undefined as never, s, clock, undefined as never, new AccountPolicy(s), undefined as never, undefined as never);
  const tokens = new TokensService(undefined as never, s, clock, undefined as never, new AccountPolicy(s), undefined as never, undefined as never);
  const session = (id: number, createdMs: number) =>
    ({ id, created: at(createdMs), expires: at(60_000), absoluteExpires: null, endedAt: null, endedReason: null }) as Session;

  it('ends a session created at or before its user\'s cut-off with the cut-off\'s reason, and not a later one', () => {
    const user = { ...local, sessionsEndedBefore: at(-1000), sessionsEndReason: 'revoked_by_admin' };
    assert.equal(sessions.validate(session(1, -2000), user, now), 'revoked_by_admin');
    assert.equal(sessions.validate(session(2, -1000), user, now), 'revoked_by_admin');
    assert.equal(sessions.validate(session(3, -999), user, now), null);
  });

  it('keeps the one session a password change keeps, and only that one', () => {
    const user = { ...local, sessionsEndedBefore: at(-1000), sessionsEndReason: 'password_changed', sessionsKeptId: 7 };
    assert.equal(sessions.validate(session(7, -5000), user, now), null);
    assert.equal(sessions.validate(session(8, -5000), user, now), 'password_changed');
  });

  it('lets a reason the row already carries win over the cut-off', () => {
    const user = { ...local, sessionsEndedBefore: at(-1000), sessionsEndReason: 'password_changed' };
    const ended = { ...session(1, -5000), endedAt: at(-3000), endedReason: 'session_limit' } as Session;
    assert.equal(sessions.validate(ended, user, now), 'session_limit');
  });

  it("refuses a token created at or before its user's or the system's cut-off as invalid", () => {
    const token = (createdMs: number) => ({ created: at(createdMs), expires: at(60_000) });
    const user = { ...local, tokensRevokedBefore: at(-1000) };
    assert.equal(tokens.validate(token(-1000), user, now), 'invalid_token');
    assert.equal(tokens.validate(token(-999), user, now), null);
    assert.equal(tokens.validate(token(-500), local, now, at(-500)), 'invalid_token');
    assert.equal(tokens.validate(token(-499), local, now, at(-500)), null);
  });
});

/** The account policy with a refusal counter that remembers the credential kind it was asked for. */
function countingPolicy(s: SettingsService): { policy: AccountPolicy; kinds: string[] } {
  const kinds: string[] = [];
  const metrics = { accountRefusals: { inc: (labels: { kind: string }) => kinds.push(labels.kind) } };
  return { policy: new AccountPolicy(s, metrics as never), kinds };
}

describe('refresh token validity (issue 29)', () => {
  const clock = new ManualClock();
  const now = clock.now();
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
  const LIFETIME = 3600;
  const rule = (values: Record<string, unknown> = {}) => {
    const s = settings({ OAUTH2_PROVIDER: { REFRESH_TOKEN_EXPIRE_SECONDS: LIFETIME }, ...values });
    const { policy, kinds } = countingPolicy(s);
    return { rule: new RefreshTokensService(undefined as never, s, clock, undefined as never, policy), kinds };
  };
  const { rule: refresh } = rule();
  const app = { id: 1 };
  // Rotated a minute ago, in a family that started 59 minutes ago.
  const live = { revokedAt: null, familyStarted: at(-LIFETIME + 60), created: at(-60) };

  it('accepts a live token of a live family, its application and an allowed account', () => {
    assert.equal(refresh.validate(live, app, local, now), null);
  });

  it('calls a retired token a reuse before anything else', () => {
    assert.equal(refresh.validate({ ...live, revokedAt: at(-1) }, app, local, now), 'revoked');
    assert.equal(refresh.validate({ ...live, revokedAt: at(-1), familyStarted: at(-2 * LIFETIME) }, null, disabled, now), 'revoked');
  });

  it("expires at its family's absolute expiry, however recently it was rotated", () => {
    assert.equal(refresh.validate({ ...live, familyStarted: at(-LIFETIME), created: at(-1) }, app, local, now), 'expired');
    assert.equal(refresh.validate({ ...live, familyStarted: at(-LIFETIME + 1) }, app, local, now), null);
  });

  it('is dead without its application or its user', () => {
    assert.equal(refresh.validate(live, null, local, now), 'client_gone');
    assert.equal(refresh.validate(live, app, null, now), 'user_gone');
  });

  it('asks the account policy as a refresh token: disabled user, local user while local auth is off', () => {
    const { rule: off, kinds } = rule({ DISABLE_LOCAL_AUTH: true });
    assert.equal(refresh.validate(live, app, disabled, now), 'user_disabled');
    assert.equal(off.validate(live, app, local, now), 'local_auth_disabled');
    assert.equal(off.validate(live, app, social, now), null);
    assert.deepEqual(kinds, ['refresh_token']);
  });

  it("refuses a token created at or before its user's or the system's cut-off", () => {
    assert.equal(refresh.validate(live, app, { ...local, tokensRevokedBefore: at(-60) }, now), 'cut_off');
    assert.equal(refresh.validate(live, app, { ...local, tokensRevokedBefore: at(-61) }, now), null);
    assert.equal(refresh.validate(live, app, local, now, at(-60)), 'cut_off');
    assert.equal(refresh.validate(live, app, local, now, at(-61)), null);
  });
});

describe('authorization code validity (issue 29)', () => {
  const clock = new ManualClock();
  const now = clock.now();
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
  const rule = (values: Record<string, unknown> = {}) => {
    const s = settings(values);
    const { policy, kinds } = countingPolicy(s);
    return { rule: new AuthorizationCodes(undefined as never, s, clock, undefined as never, policy), kinds };
  };
  const { rule: codes } = rule();
  const app = { id: 1 };
  const fresh = { usedAt: null, expires: at(60) };

  it('accepts an unused, unexpired code of an existing application and an allowed account', () => {
    assert.equal(codes.validate(fresh, app, local, now), null);
  });

  it('calls a code presented before a replay, before anything else', () => {
    assert.equal(codes.validate({ ...fresh, usedAt: at(-1) }, app, local, now), 'used');
    assert.equal(codes.validate({ usedAt: at(-1), expires: at(-1) }, null, disabled, now), 'used');
  });

  it('expires at its expiry instant', () => {
    assert.equal(codes.validate({ ...fresh, expires: now }, app, local, now), 'expired');
    assert.equal(codes.validate({ ...fresh, expires: at(1) }, app, local, now), null);
  });

  it('is dead without its application or its user', () => {
    assert.equal(codes.validate(fresh, null, local, now), 'client_gone');
    assert.equal(codes.validate(fresh, app, null, now), 'user_gone');
  });

  it('asks the account policy as an authorization code: disabled user, local user while local auth is off', () => {
    const { rule: off, kinds } = rule({ DISABLE_LOCAL_AUTH: true });
    assert.equal(codes.validate(fresh, app, disabled, now), 'user_disabled');
    assert.equal(off.validate(fresh, app, local, now), 'local_auth_disabled');
    assert.equal(off.validate(fresh, app, social, now), null);
    assert.deepEqual(kinds, ['authorization_code']);
  });
});
