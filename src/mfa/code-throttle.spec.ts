import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuthMetrics } from '../common/auth-metrics';
import { Throttled } from '../common/errors';
import { NO_REQUEST } from '../common/request-context';
import type { LoginThrottle, Reservation } from '../users/login-throttle.service';
import { CodeThrottle } from './code-throttle';

/** A LoginThrottle that records what it was told, and refuses while `full`. */
function fakeThrottle(full = false) {
  const calls: string[] = [];
  const reservation: Reservation = { id: 1, windowStart: new Date(0), failuresBefore: 0 };
  const throttle = {
    reserve: async (key: string, address: string) => {
      calls.push(`reserve ${key} ${JSON.stringify(address)}`);
      if (full) throw new Throttled(42);
      return reservation;
    },
    succeeded: async () => void calls.push('succeeded'),
    failed: async () => void calls.push('failed'),
    release: async () => void calls.push('release'),
  } as unknown as LoginThrottle;
  const metrics = { throttled: { inc: () => calls.push('metric') } } as unknown as AuthMetrics;
  return { calls, codes: new CodeThrottle(throttle, metrics) };
}

describe('CodeThrottle (SPEC §16: one per-user throttle for every code check)', () => {
  const user = { id: 7, username: 'lena' };

  it('counts a check under the user, from any address: a truthy answer succeeds, a falsy one fails', async () => {
    const { calls, codes } = fakeThrottle();
    assert.equal(await codes.check(user, 'remove_totp', NO_REQUEST, async () => 'totp'), 'totp');
    assert.equal(await codes.check(user, 'remove_totp', NO_REQUEST, async () => null), null);
    assert.deepEqual(calls, ['reserve mfa:7 ""', 'succeeded', 'reserve mfa:7 ""', 'failed']);
  });

  it('past the allowance runs nothing and says so with the wait', async () => {
    const { calls, codes } = fakeThrottle(true);
    let ran = false;
    await assert.rejects(
      codes.check(user, 'recovery_codes', NO_REQUEST, async () => (ran = true)),
      (err: unknown) => err instanceof Throttled && err.retryAfter === 42 && err.detail === 'Too many wrong codes. Try again in 42 seconds.',
    );
    assert.equal(ran, false, 'the code was not checked');
    assert.deepEqual(calls, ['reserve mfa:7 ""', 'metric']);
  });

  it('a check that throws gives no verdict: released, neither counted nor forgiven', async () => {
    const { calls, codes } = fakeThrottle();
    await assert.rejects(codes.check(user, 'proof', NO_REQUEST, () => Promise.reject(new Error('database down'))), /database down/);
    assert.deepEqual(calls, ['reserve mfa:7 ""', 'release']);
  });
});
