import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import OAuth2Server, { AbstractGrantType, InvalidGrantError, InvalidScopeError, Request, Response } from '@node-oauth/oauth2-server';
import { ExactRedirectCodeGrant, NarrowingRefreshGrant } from './grant-types';

/**
 * The pin on the library internals src/oauth2/grant-types.ts leans on (docs/decisions.md, "Library internals
 * we lean on (issue 29)"): @node-oauth/oauth2-server 5.3.0 exports only AbstractGrantType, so the two grants
 * we adjust are subclassed from its `lib/grant-types/` modules. An upgrade that moves them, renames a method
 * we override or call, or stops honouring `extendedGrantTypes` for a built-in grant fails here, not in production.
 */
const GRANTS = {
  '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type': ['handle', 'validateRedirectUri'],
  '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type': ['handle', 'getRefreshToken', 'revokeToken', 'saveToken', 'getScope'],
};

const CLIENT = { id: 'client', grants: ['authorization_code', 'refresh_token'] };

/** A form POST to the token endpoint, as the library reads one. */
function tokenRequest(body: Record<string, string>): Request {
  return new Request({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1' },
    query: {},
    body: { client_id: CLIENT.id, ...body },
  });
}

/** The library's server with our grants in place of its own, over a model that records what it is asked. */
function server(model: Record<string, unknown>): OAuth2Server {
  return new OAuth2Server({
    model: { getClient: async () => CLIENT, ...model } as never,
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
    alwaysIssueNewRefreshToken: true,
    extendedGrantTypes: { authorization_code: ExactRedirectCodeGrant as never, refresh_token: NarrowingRefreshGrant as never },
  });
}

describe('library internals the grants lean on (@node-oauth/oauth2-server 5.3.0)', () => {
  for (const [path, methods] of Object.entries(GRANTS)) {
    it(`${path.split('/').pop()} still exists, is a grant type, and has ${methods.join(', ')}`, () => {
      const Grant = require(path) as { prototype: Record<string, unknown> };
      assert.equal(typeof Grant, 'function');
      assert.ok(Grant.prototype instanceof AbstractGrantType);
      for (const method of methods) assert.equal(typeof Grant.prototype[method], 'function', `${path} lost ${method}`);
    });
  }

  it('our grants are subclasses of those modules', () => {
    assert.equal(Object.getPrototypeOf(ExactRedirectCodeGrant), require(Object.keys(GRANTS)[0]));
    assert.equal(Object.getPrototypeOf(NarrowingRefreshGrant), require(Object.keys(GRANTS)[1]));
  });

  describe('the refresh grant, through the public server', () => {
    const model = (scope: string[], calls: unknown[]) => ({
      getRefreshToken: async () => ({ refreshToken: 'r', scope, client: { id: CLIENT.id }, user: { id: 1 } }),
      revokeToken: async () => calls.push('revokeToken'),
      saveToken: async (token: { scope: string[] }, client: unknown, user: unknown) => {
        calls.push(['saveToken', token.scope]);
        return { ...token, accessToken: 'a', client, user };
      },
    });

    it('lets write narrow to read (getScope), rotating before it saves', async () => {
      const calls: unknown[] = [];
      await server(model(['write'], calls)).token(tokenRequest({ grant_type: 'refresh_token', refresh_token: 'r', scope: 'read' }), new Response());
      assert.deepEqual(calls, ['revokeToken', ['saveToken', ['read']]]);
    });

    it('checks the scope before it rotates (handle), so a bad request keeps the grant', async () => {
      const calls: unknown[] = [];
      const request = tokenRequest({ grant_type: 'refresh_token', refresh_token: 'r', scope: 'write' });
      await assert.rejects(server(model(['read'], calls)).token(request, new Response()), InvalidScopeError);
      assert.deepEqual(calls, []);
    });
  });

  describe('the authorization-code grant, through the public server', () => {
    const model = {
      getAuthorizationCode: async () => ({
        authorizationCode: 'x', expiresAt: new Date(Date.now() + 60_000), redirectUri: 'https://a.example/cb', scope: ['write'], client: { id: CLIENT.id }, user: { id: 1 },
      }),
      revokeAuthorizationCode: async () => true,
      saveToken: async (token: object, client: unknown, user: unknown) => ({ ...token, accessToken: 'a', client, user }),
    };

    it('answers a redirect_uri that differs from the authorization request with invalid_grant (validateRedirectUri)', async () => {
      const request = tokenRequest({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://b.example/cb' });
      await assert.rejects(server(model).token(request, new Response()), (err: unknown) =>
        err instanceof InvalidGrantError && err.message === 'Invalid grant: `redirect_uri` does not match the authorization request');
      const same = tokenRequest({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://a.example/cb' });
      assert.equal((await server(model).token(same, new Response())).accessToken, 'a');
    });
  });
});
