import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SettingsService } from '../settings/settings.service';
import { SsoFailure } from '../sso/sso-failure';
import { SsoUsers } from '../sso/sso-users.service';
import { ExternalLogins } from '../external-logins/external-logins.service';
import { AccountPolicy, CredentialKind, SERVICE_ACCOUNT } from './account-policy';
import { passwordRefusal } from './local-credentials.service';
import type { User } from './user.entity';

/**
 * The password rule (basic, the login form, the password grant, a password change) and the SSO login's
 * rule, each through the account policy (issue 29). The session, bearer, refresh-token and
 * authorization-code rules are in src/auth/validity-rules.spec.ts.
 */
function policy(values: Record<string, unknown> = {}, asked: CredentialKind[] = []): AccountPolicy {
  const all: Record<string, unknown> = { DISABLE_LOCAL_AUTH: false, ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false, ...values };
  const p = new AccountPolicy({ get: (key: string) => all[key] } as unknown as SettingsService);
  const refusal = p.refusal.bind(p);
  p.refusal = (user, kind) => (asked.push(kind), refusal(user, kind));
  return p;
}

const user = (over: Partial<User> = {}) => ({ id: 1, username: 'alice', isActive: true, externalAccount: null, ...over }) as User;

describe('password rule', () => {
  it('refuses every password while local authentication is off, before any lookup', () => {
    const asked: CredentialKind[] = [];
    assert.equal(passwordRefusal(policy({ DISABLE_LOCAL_AUTH: true }, asked)), 'local_auth_disabled');
    // Switched off between the first question and the verdict: the right password of a local user still fails.
    assert.equal(passwordRefusal(policy({ DISABLE_LOCAL_AUTH: true }), { user: user(), verified: true }), 'local_auth_disabled');
    assert.deepEqual(asked, ['password']);
  });

  it('accepts nothing before the attempt but the switch, then the right password of an allowed user', () => {
    assert.equal(passwordRefusal(policy()), null);
    assert.equal(passwordRefusal(policy(), { user: user(), verified: true }), null);
  });

  it('answers a wrong password, an unknown name and an inactive user alike', () => {
    assert.equal(passwordRefusal(policy(), { user: user(), verified: false }), 'invalid_credentials');
    assert.equal(passwordRefusal(policy(), { user: null, verified: false }), 'invalid_credentials');
    const asked: CredentialKind[] = [];
    assert.equal(passwordRefusal(policy({}, asked), { user: user({ isActive: false }), verified: true }), 'invalid_credentials');
    assert.deepEqual(asked, ['password'], 'the user is asked about once, after the password was verified');
  });

  it('refuses a service account even a verified password, and local authentication being off does not spare or concern it', () => {
    const svc = user({ externalAccount: SERVICE_ACCOUNT });
    assert.equal(passwordRefusal(policy(), { user: svc, verified: true }), 'invalid_credentials');
    assert.equal(passwordRefusal(policy({ DISABLE_LOCAL_AUTH: true }), { user: svc, verified: true }), 'invalid_credentials');
  });
});

describe('service accounts (SPEC §15)', () => {
  const svc = user({ externalAccount: SERVICE_ACCOUNT });

  it('are refused at every login of a person and accepted with their own credentials', () => {
    const p = policy({ DISABLE_LOCAL_AUTH: true });
    assert.equal(p.refusal(svc, 'password'), 'service_account');
    assert.equal(p.refusal(svc, 'sso'), 'service_account');
    for (const kind of ['bearer', 'client_credentials', 'refresh_token'] as const) assert.equal(p.refusal(svc, kind), null, kind);
    assert.equal(p.refusal(user({ externalAccount: SERVICE_ACCOUNT, isActive: false }), 'client_credentials'), 'user_disabled');
  });

  it('hold tokens whatever ALLOW_OAUTH2_FOR_EXTERNAL_USERS says, unlike SSO users', () => {
    assert.equal(policy({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false }).mayHoldTokens(svc), true);
    assert.equal(policy({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false }).mayHoldTokens(user({ externalAccount: 'social' })), false);
  });
});

describe('SSO login rule (the external-login pipeline)', () => {
  function ssoUsers(found: User, asked: CredentialKind[], values: Record<string, unknown> = {}): SsoUsers {
    const methods = { get: () => ({ holderOf: async () => found }) };
    const logins = { of: () => ({ provesPassword: false }) };
    // Past the rule a login refreshes the user and applies the maps: the rule's verdict is what is tested here.
    const provisioning = { refresh: async (u: User) => u };
    const maps = { refusal: () => null, apply: async (u: User) => u };
    const pipeline = new ExternalLogins(methods as never, logins as never, undefined as never, provisioning as never, maps as never, policy(values, asked));
    return new SsoUsers(undefined as never, undefined as never, pipeline, undefined as never, { enforce: async () => false } as never);
  }
  const identity = { provider: 'oidc:test', uid: 'subject' };

  it('lets an active linked user in, local authentication on or off', async () => {
    const asked: CredentialKind[] = [];
    const sso = user({ externalAccount: 'social' });
    assert.equal(await ssoUsers(sso, asked).resolve(identity, {}), sso);
    assert.equal(await ssoUsers(sso, asked, { DISABLE_LOCAL_AUTH: true }).resolve(identity, {}), sso);
    assert.deepEqual(asked, ['sso', 'sso']);
  });

  it('refuses a service account, should an identity ever be linked to one', async () => {
    await assert.rejects(ssoUsers(user({ externalAccount: SERVICE_ACCOUNT }), []).resolve(identity, {}), (err: unknown) => err instanceof SsoFailure && err.code === 'inactive');
  });

  it('refuses an inactive linked user', async () => {
    await assert.rejects(ssoUsers(user({ externalAccount: 'social', isActive: false }), []).resolve(identity, {}), (err: unknown) => err instanceof SsoFailure && err.code === 'inactive');
  });
});
