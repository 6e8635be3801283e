import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { constantTimeEqual, SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox('unit-test-secret-key-0123456789abcdefghijkl');

  it('round-trips and never stores the plain text', () => {
    const sealed = box.encrypt('hunter2-secret');
    assert.ok(sealed.startsWith('$encrypted$'));
    assert.ok(!sealed.includes('hunter2'));
    assert.equal(box.decrypt(sealed), 'hunter2-secret');
    assert.notEqual(box.encrypt('hunter2-secret'), sealed, 'a fresh IV each time');
  });

  it('refuses a tampered value and a value sealed with another key', () => {
    const sealed = box.encrypt('value');
    const tampered = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    assert.throws(() => box.decrypt(tampered));
    assert.throws(() => new SecretBox('another-secret-key-0123456789abcdefghijklmn').decrypt(sealed));
  });

  it('seal opens only unaltered, for its own purpose and key', () => {
    const sealed = box.seal('{"state":"s"}', 'sso-start:oidc');
    assert.match(sealed, /^[A-Za-z0-9_-]+$/, 'base64url: fits a cookie and a URL as it is');
    assert.ok(!sealed.includes('state'));
    assert.equal(box.open(sealed, 'sso-start:oidc'), '{"state":"s"}');
    assert.equal(box.open(sealed, 'sso-start:saml'), null, 'another purpose');
    assert.equal(new SecretBox('another-secret-key-0123456789abcdefghijklmn').open(sealed, 'sso-start:oidc'), null, 'another key');
    const flipped = Buffer.from(sealed, 'base64url');
    flipped[flipped.length - 1] ^= 1;
    assert.equal(box.open(flipped.toString('base64url'), 'sso-start:oidc'), null, 'altered');
    assert.equal(box.open(sealed.slice(0, 20), 'sso-start:oidc'), null, 'truncated');
    assert.equal(box.open('', 'sso-start:oidc'), null);
  });

  it('mac is keyed and stable', () => {
    assert.equal(box.mac('a'), box.mac('a'));
    assert.notEqual(box.mac('a'), new SecretBox('another-secret-key-0123456789abcdefghijklmn').mac('a'));
  });

  it('constantTimeEqual compares exactly', () => {
    assert.ok(constantTimeEqual('abc', 'abc'));
    assert.ok(!constantTimeEqual('abc', 'abd'));
    assert.ok(!constantTimeEqual('abc', 'abcd'));
  });
});
