import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSessionEndReason, SESSION_END_MESSAGES } from './session-end-reason';

/** The words SPEC §13 pins for each reason (idp_logout: SPEC §17); local_auth_disabled has none pinned. */
const PINNED: Record<string, RegExp> = {
  session_limit: /session limit/,
  idle_timeout: /idle/,
  absolute_timeout: /expired/,
  revoked_by_admin: /revoked/,
  password_changed: /password/,
  user_disabled: /disabled/,
  logged_out: /logged out/,
  ended_by_user: /logged out/,
  idp_logout: /identity provider/,
  // SPEC §21: a new §3 reason, §13's word for it "access".
  access_revoked: /access/,
  // SPEC §22: the words of the 401 a session of an expired account answers.
  account_expired: /^User account has expired\.$/,
};

describe('session end messages (SPEC §3, §13)', () => {
  it('cover every reason of SPEC §3', () => {
    assert.deepEqual(Object.keys(SESSION_END_MESSAGES).sort(), [...Object.keys(PINNED), 'local_auth_disabled'].sort());
  });

  it('each carry the words the login page promises', () => {
    for (const [reason, words] of Object.entries(PINNED)) {
      assert.match(SESSION_END_MESSAGES[reason as keyof typeof SESSION_END_MESSAGES], words, reason);
    }
  });

  it('recognise only known reasons', () => {
    assert.equal(isSessionEndReason('session_limit'), true);
    assert.equal(isSessionEndReason('toString'), false);
    assert.equal(isSessionEndReason('<script>'), false);
    assert.equal(isSessionEndReason(undefined), false);
  });
});
