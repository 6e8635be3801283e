import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redirectUriProblems } from './redirect-uris';
import { effectiveScope, parseScope } from './scopes';

describe('scopes', () => {
  it("accepts AWX's read/write words, space-separated, once each", () => {
    assert.equal(parseScope('read'), 'read');
    assert.equal(parseScope(' write  read '), 'write read');
    for (const bad of ['', ' ', 'read read', 'admin', 'read,write', 'READ', null, 3, ['read']]) assert.equal(parseScope(bad), null, String(bad));
  });

  it('treats write as implying read', () => {
    assert.equal(effectiveScope('write'), 'write');
    assert.equal(effectiveScope('read write'), 'write');
    assert.equal(effectiveScope('read'), 'read');
  });
});

describe('redirect URIs', () => {
  it('accepts absolute https URIs and http on loopback only', () => {
    assert.deepEqual(redirectUriProblems('https://app.example.com/cb https://app.example.com/cb?x=1', 'authorization-code'), []);
    assert.deepEqual(redirectUriProblems('http://127.0.0.1:9000/cb http://localhost/cb http://[::1]/cb', 'implicit'), []);
  });

  it('refuses fragments, user information, plain http, relative and empty values', () => {
    for (const uri of ['https://a.example/cb#x', 'https://u@a.example/cb', 'http://a.example/cb', '/cb', 'ftp://a.example/cb']) {
      assert.equal(redirectUriProblems(uri, 'implicit').length, 1, uri);
    }
    assert.deepEqual(redirectUriProblems('', 'implicit'), ['redirect_uris cannot be empty with grant_type implicit']);
    assert.deepEqual(redirectUriProblems('', 'password'), []);
  });
});
