import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SettingsService } from '../settings/settings.service';
import type { LocalCredentialsService } from './local-credentials.service';
import { LoginMethod, LoginMethods } from './login-methods';
import { PasswordCheck } from './password-check.service';

/** A login method as a module would declare it; only the facts the second-step rule reads differ. */
function method(account: string, provesPassword: boolean): LoginMethod {
  return { account, label: account, provesPassword, person: true, remote: true, configured: () => true, managedFields: () => [], repeatTtlMs: () => 0 };
}

function check(required: string): PasswordCheck {
  const settings = { get: () => required, addRemoteMethod: () => undefined } as unknown as SettingsService;
  const methods = new LoginMethods(settings);
  methods.register(method('directory', true));
  methods.register(method('idp', false));
  return new PasswordCheck({} as LocalCredentialsService, methods, settings);
}

describe('who owes a second step (SPEC §16), by the login method registry', () => {
  const local = { externalAccount: null, mfaEnabled: false, isSuperuser: false };

  it('asks a local user, or one of a method that proves passwords, with a factor to verify it', () => {
    assert.equal(check('none').secondStepOf({ ...local, mfaEnabled: true }), 'verify');
    assert.equal(check('none').secondStepOf({ ...local, externalAccount: 'directory', mfaEnabled: true }), 'verify');
    assert.equal(check('none').secondStepOf(local), null);
  });

  it('sends the users MFA_REQUIRED_FOR names to the set-up', () => {
    assert.equal(check('superusers').secondStepOf(local), null);
    assert.equal(check('superusers').secondStepOf({ ...local, isSuperuser: true }), 'setup');
    assert.equal(check('all').secondStepOf(local), 'setup');
    assert.equal(check('all').secondStepOf({ ...local, externalAccount: 'directory' }), 'setup');
  });

  it('never asks users of a method proven elsewhere, service accounts or an unknown method, whatever MFA_REQUIRED_FOR says', () => {
    for (const externalAccount of ['idp', 'service', 'no-such-method']) {
      assert.equal(check('all').secondStepOf({ ...local, externalAccount, isSuperuser: true }), null);
      assert.equal(check('all').secondStepOf({ ...local, externalAccount, mfaEnabled: true }), null);
    }
  });

  it('refuses a method registered twice', () => {
    const methods = new LoginMethods({ addRemoteMethod: () => undefined } as unknown as SettingsService);
    methods.register(method('directory', true));
    assert.throws(() => methods.register(method('directory', false)), /registered twice/);
  });
});
