import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuthMetrics } from '../common/auth-metrics';
import { Throttled } from '../common/errors';
import { NO_REQUEST } from '../common/request-context';
import type { LoginThrottle, ThrottledCheck, Verdict } from '../users/login-throttle.service';
import { CodeThrottle } from './code-throttle';

/** A LoginThrottle whose one helper records the check it was given and the verdict, and refuses while `full`. */
function fakeThrottle(full = false) {
  const calls: string[] = [];
  const throttle = {
    attempt: async <T>(check: ThrottledCheck, run: () => Promise<T>, judge: (result: T) => Verdict): Promise<T> => {
      calls.push(`attempt ${JSON.stringify(check)}`);
      if (full) throw new Throttled(42);
      try {
        const result = await run();
        calls.push(judge(result));
        return result;
      } catch (err) {
        calls.push('threw');
        throw err;
      }
    },
  } as unknown as LoginThrottle;
  const metrics = { throttled: { inc: () => calls.push('metric') } } as unknown as AuthMetrics;
  return { calls, codes: new CodeThrottle(throttle, metrics) };
}

const COUNTED = 'attempt {"pairs":[["mfa:7",""]],"rightForgives":true}';

describe('CodeThrottle (SPEC §16: one per-user throttle for every code check)', () => {
  const user = { id: 7, username: 'lena' };

  it('counts a check under the user, from any address: a truthy answer is right, a falsy one wrong', async () => {
    const { calls, codes } = fakeThrottle();
    assert.equal(await codes.check(user, 'remove_totp', NO_REQUEST, async () => 'totp'), 'totp');
    assert.equal(await codes.check(user, 'remove_totp', NO_REQUEST, async () => null), null);
    assert.deepEqual(calls, [COUNTED, 'right', COUNTED, 'wrong']);
  });

  it('past the allowance runs nothing and says so with the wait', async () => {
    const { calls, codes } = fakeThrottle(true);
    let ran = false;
    await assert.rejects(
      codes.check(user, 'recovery_codes', NO_REQUEST, async () => (ran = true)),
      (err: unknown) => err instanceof Throttled && err.retryAfter === 42 && err.detail === 'Too many wrong codes. Try again in 42 seconds.',
    );
    assert.equal(ran, false, 'the code was not checked');
    assert.deepEqual(calls, [COUNTED, 'metric']);
  });

  it('a check that throws is left to the one rule of the throttle, and the error reaches the caller', async () => {
    const { calls, codes } = fakeThrottle();
    await assert.rejects(codes.check(user, 'proof', NO_REQUEST, () => Promise.reject(new Error('database down'))), /database down/);
    assert.deepEqual(calls, [COUNTED, 'threw']);
  });
});
