import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldErrors } from '../common/errors';
import { SecretBox } from '../common/secret-box';
import { isSecretInput, maskInputs, sealInputs } from './credential-inputs';

describe('credential inputs', () => {
  const box = new SecretBox('unit-test-secret-key-0123456789abcdefghijkl');

  it("treats SPEC §10's inputs and AWX's other secret inputs as secrets, whatever their case", () => {
    for (const name of ['password', 'ssh_key_data', 'become_password', 'client_secret', 'api_secret', 'ssh_key_unlock', 'vault_password', 'security_token', 'token', 'secret', 'Password']) {
      assert.ok(isSecretInput(name), name);
    }
    for (const name of ['username', 'host', 'become_method', 'secretary', 'password_hint', 'tokens', 'vault_id']) {
      assert.ok(!isSecretInput(name), name);
    }
  });

  it('seals secrets, keeps the rest, and masks on the way out', () => {
    const sealed = sealInputs({ username: 'u', password: 'p@ss', port: 22, become_password: '' }, {}, box);
    assert.equal(sealed.username, 'u');
    assert.equal(sealed.port, 22);
    assert.equal(sealed.become_password, '');
    assert.match(String(sealed.password), /^\$encrypted\$AESGCM\$/);
    assert.equal(box.decrypt(String(sealed.password)), 'p@ss');
    assert.deepEqual(maskInputs(sealed), { username: 'u', password: '$encrypted$', port: 22, become_password: '' });
  });

  it('keeps the stored value for "$encrypted$" and refuses it when nothing is stored', () => {
    const stored = sealInputs({ password: 'old' }, {}, box);
    assert.equal(sealInputs({ password: '$encrypted$' }, stored, box).password, stored.password);
    assert.throws(
      () => sealInputs({ ssh_key_data: '$encrypted$' }, stored, box),
      (err: FieldErrors) => /no stored value/.test(err.errors.inputs[0]),
    );
  });
});
