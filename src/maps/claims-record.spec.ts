import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLAIMS_RECORD_MAX_BYTES, claimsRecord, textAttributes, textValues } from './claims-record';

describe('the stored claims of a login (SPEC §21)', () => {
  it('keeps text; numbers and booleans as their JSON text; drops what is not text', () => {
    assert.deepEqual(textValues(['a', 1, true, null, { x: 1 }, [2]]), ['a', '1', 'true']);
    assert.deepEqual(textValues('one'), ['one']);
    assert.deepEqual(textAttributes({ mail: 'a@b', age: 42, photo: { bytes: 1 }, empty: [] }), { mail: ['a@b'], age: ['42'] });
  });

  it('never keeps a secret attribute, whatever its case', () => {
    const kept = textAttributes({
      userPassword: '{SSHA}x', UNICODEPWD: 'x', sambaNTPassword: 'x', 'msDS-KeyCredentialLink': 'x', krbPrincipalKey: 'x', userPKCS12: 'x',
      'User-Password': 'x', State: '0x01', 'Message-Authenticator': '0x00', nonce: 'n', at_hash: 'h', id_token: 't', access_token: 't',
      SessionIndex: 's', cn: 'kept',
    });
    assert.deepEqual(kept, { cn: ['kept'] });
  });

  it('never keeps one with options either, nor the rest of SPEC §21 list (issue 55)', () => {
    const kept = textAttributes({
      'userPassword;x-old': 'x', 'authPassword;x': 'x', ipaNTHash: 'x', krb5Key: 'x', sambaPasswordHistory: 'x', 'msDS-ManagedPassword': 'x', 'krbPrincipalKey;binary': 'x', mail: 'kept',
    });
    assert.deepEqual(kept, { mail: ['kept'] });
  });

  it('at most 64 KiB: attributes left out first, the largest first, and the record says it was truncated', () => {
    const big = 'x'.repeat(50 * 1024);
    const record = claimsRecord({
      username: 'alice', email: null, groups: ['cn=a'],
      attributes: { huge: [big], large: ['y'.repeat(20 * 1024)], small: ['z'], secret: ['never'], userPassword: ['p'] },
    });
    assert.equal(record.truncated, true);
    assert.equal(record.attributes.huge, undefined, 'the largest goes first');
    assert.deepEqual(record.attributes.small, ['z']);
    assert.equal(record.attributes.userPassword, undefined);
    assert.ok(Buffer.byteLength(JSON.stringify(record)) <= CLAIMS_RECORD_MAX_BYTES);
  });

  it('groups come before attributes; groups alone too many are cut to what fits', () => {
    const groups = Array.from({ length: 5000 }, (_, i) => `cn=group-${i},ou=groups,dc=example,dc=org`);
    const record = claimsRecord({ username: 'bob', email: 'b@x', groups, attributes: { cn: ['Bob'] } });
    assert.equal(record.truncated, true);
    assert.deepEqual(record.attributes, {});
    assert.ok(record.groups.length > 100 && record.groups.length < groups.length);
    assert.deepEqual(record.groups, groups.slice(0, record.groups.length));
    assert.ok(Buffer.byteLength(JSON.stringify(record)) <= CLAIMS_RECORD_MAX_BYTES);
  });

  it('a small record is kept whole, without the truncated mark', () => {
    const record = claimsRecord({ username: 'carol', email: 'c@x', groups: ['g'], attributes: { cn: ['Carol'] } });
    assert.deepEqual(record, { username: 'carol', email: 'c@x', groups: ['g'], attributes: { cn: ['Carol'] } });
  });
});
