import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generate } from 'otplib';
import type { AppConfig } from '../config/app-config';
import type { Clock } from '../common/clock';
import type { SettingsService } from '../settings/settings.service';
import type { CodeThrottle } from './code-throttle';
import type { MfaRepository } from './mfa.repository';
import { MfaService } from './mfa.service';
import { newRecoveryCodes, normalisedRecoveryCode, totpStep } from './one-time-codes';

function service(required: string): MfaService {
  const settings = { get: () => required } as unknown as SettingsService;
  return new MfaService({} as MfaRepository, {} as CodeThrottle, settings, {} as Clock, { secretKey: 'unit-test-secret-key-0123456789abcdefghij' } as AppConfig);
}

describe('who owes a second step (SPEC §16)', () => {
  const local = { externalAccount: null, mfaEnabled: false, isSuperuser: false };

  it('asks a local or LDAP user with a factor to verify it', () => {
    assert.equal(service('none').demandOf({ ...local, mfaEnabled: true }), 'verify');
    assert.equal(service('none').demandOf({ ...local, externalAccount: 'ldap', mfaEnabled: true }), 'verify');
    assert.equal(service('none').demandOf(local), null);
  });

  it('sends the users MFA_REQUIRED_FOR names to the set-up', () => {
    assert.equal(service('superusers').demandOf(local), null);
    assert.equal(service('superusers').demandOf({ ...local, isSuperuser: true }), 'setup');
    assert.equal(service('all').demandOf(local), 'setup');
    assert.equal(service('all').demandOf({ ...local, externalAccount: 'ldap' }), 'setup');
  });

  it('never asks SSO users or service accounts, whatever MFA_REQUIRED_FOR says', () => {
    for (const externalAccount of ['social', 'service']) {
      assert.equal(service('all').demandOf({ ...local, externalAccount, isSuperuser: true }), null);
      assert.equal(service('all').demandOf({ ...local, externalAccount, mfaEnabled: true }), null);
    }
  });
});

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
