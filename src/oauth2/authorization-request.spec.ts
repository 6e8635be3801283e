import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Application } from '../tokens/application.entity';
import { AuthorizationErrorPage, AuthorizationErrorRedirect, checkAuthorizationRequest, redirectWith } from './authorization-request';

const app = (fields: Partial<Application> = {}) =>
  ({ clientId: 'c', clientType: 'confidential', authorizationGrantType: 'authorization-code', redirectUris: 'https://a.example/cb', ...fields }) as Application;

describe('authorization requests (RFC 6749 §4.1.2.1)', () => {
  it('shows a page for an untrusted client or redirect URI, whatever else is wrong', () => {
    assert.throws(() => checkAuthorizationRequest({ response_type: 'bogus' }, app()), AuthorizationErrorPage);
    assert.throws(() => checkAuthorizationRequest({ client_id: 'c' }, null), AuthorizationErrorPage);
    assert.throws(() => checkAuthorizationRequest({ client_id: ['c', 'c'] }, app()), AuthorizationErrorPage);
    assert.throws(() => checkAuthorizationRequest({ client_id: 'c', redirect_uri: 'https://a.example/cb/' }, app()), AuthorizationErrorPage);
    assert.throws(() => checkAuthorizationRequest({ client_id: 'c' }, app({ redirectUris: 'https://a.example/1 https://a.example/2' })), AuthorizationErrorPage);
  });

  it('redirects other errors, in the fragment for response_type=token, with the state', () => {
    try {
      checkAuthorizationRequest({ client_id: 'c', response_type: 'token', state: 's' }, app());
      assert.fail('expected an error');
    } catch (err) {
      assert.ok(err instanceof AuthorizationErrorRedirect);
      assert.equal(err.error, 'unauthorized_client');
      assert.equal(err.inFragment, true);
      assert.equal(err.state, 's');
    }
  });

  it('defaults the scope to write and uses the single registered redirect URI', () => {
    const request = checkAuthorizationRequest({ client_id: 'c', response_type: 'code' }, app());
    assert.equal(request.scope, 'write');
    assert.equal(request.redirectUri, 'https://a.example/cb');
    assert.equal(request.redirectUriGiven, false);
  });

  it('adds response parameters to the query or the fragment, keeping a registered query', () => {
    assert.equal(redirectWith('https://a.example/cb?x=1', { code: 'k', state: undefined }, false), 'https://a.example/cb?x=1&code=k');
    assert.equal(redirectWith('https://a.example/cb', { access_token: 't', state: 'a b' }, true), 'https://a.example/cb#access_token=t&state=a+b');
  });
});
