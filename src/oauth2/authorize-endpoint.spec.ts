import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SettingsService } from '../settings/settings.service';
import type { ApplicationsService } from '../tokens/applications.service';
import type { Application } from '../tokens/application.entity';
import { TokensService } from '../tokens/tokens.service';
import { AccountPolicy, ExternalUserRefused } from '../users/account-policy';
import type { User } from '../users/user.entity';
import type { AuthorizationCodes } from './authorization-codes.service';
import { AuthorizeEndpoint } from './authorize-endpoint.service';
import { NO_REQUEST } from '../common/request-context';

describe('authorization endpoint and external users', () => {
  const settings = { get: () => false } as unknown as SettingsService;
  const policy = new AccountPolicy(settings);
  const tokens = new TokensService(undefined as never, settings, undefined as never, undefined as never, policy, undefined as never, undefined as never);
  const endpoint = new AuthorizeEndpoint({} as ApplicationsService, tokens, {} as AuthorizationCodes, settings, policy);
  const application = { id: 1, clientId: 'c', redirectUris: 'https://a.example/cb' } as Application;
  const sso = { id: 7, externalAccount: 'social' } as User;

  for (const responseType of ['code', 'token'] as const) {
    it(`answers response_type=${responseType} for an SSO user with access_denied and AWX's reason while ALLOW_OAUTH2_FOR_EXTERNAL_USERS is false`, async () => {
      const location = await endpoint.grant({ application, redirectUri: 'https://a.example/cb', redirectUriGiven: true, responseType, scope: 'write', state: 's' }, sso, NO_REQUEST);
      const url = new URL(location);
      const params = new URLSearchParams(responseType === 'code' ? url.search : url.hash.slice(1));
      assert.equal(params.get('error'), 'access_denied');
      assert.equal(params.get('error_description'), new ExternalUserRefused('social').detail);
      assert.equal(params.get('state'), 's');
      assert.equal(params.get('code'), null);
      assert.equal(params.get('access_token'), null);
    });
  }
});
