import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generate } from 'otplib';
import { newRecoveryCodes, normalisedRecoveryCode, totpStep } from './one-time-codes';

describe('one-time codes', () => {
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const at = 1_800_000_015_000; // 15 s into a step

  it('accepts the current code and one step of drift either way, and tells its step', async () => {
    const step = Math.floor(at / 30_000);
    for (const drift of [-1, 0, 1]) {
      const code = await generate({ secret, epoch: at / 1000 + drift * 30 });
      assert.equal(await totpStep(secret, code, at, null), step + drift, `drift ${drift}`);
    }
    assert.equal(await totpStep(secret, await generate({ secret, epoch: at / 1000 - 90 }), at, null), null, 'three steps back');
  });

  it('refuses a code of a step at or before the last one used', async () => {
    const code = await generate({ secret, epoch: at / 1000 });
    const step = Math.floor(at / 30_000);
    assert.equal(await totpStep(secret, code, at, step), null);
    assert.equal(await totpStep(secret, code, at, step - 1), step);
  });

  it('refuses what is not six digits', async () => {
    for (const code of ['', '12345', '1234567', 'abcdef']) assert.equal(await totpStep(secret, code, at, null), null, code);
  });

  it('makes ten distinct recovery codes, read without regard to case, spaces or the dash', () => {
    const codes = newRecoveryCodes();
    assert.equal(new Set(codes).size, 10);
    const [first] = codes;
    assert.equal(normalisedRecoveryCode(first.toUpperCase().replace('-', ' ')), first.replace('-', ''));
    assert.equal(normalisedRecoveryCode('0000o-11111'), null, 'look-alikes are not in the alphabet');
    assert.equal(normalisedRecoveryCode('short'), null);
  });
});
