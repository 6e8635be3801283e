import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TokensService } from '../src/tokens/tokens.service';
import { UsersService } from '../src/users/users.service';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { runManage } from './support/service-process';
import { NO_REQUEST } from '../src/common/request-context';

/** SPEC §6: the later release, without the OAuth 2 provider. */
describe('OAUTH2_PROVIDER_ENABLED=false', () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);

  before(async () => {
    t = await startTestApp({ env: { OAUTH2_PROVIDER_ENABLED: 'false' } });
  });
  after(() => t.close());

  const routes: [string, string][] = [
    ['get', '/api/o/'],
    ['get', '/api/o/authorize/?response_type=code&client_id=x'],
    ['post', '/api/o/authorize/'],
    ['post', '/api/o/token/'],
    ['post', '/api/o/revoke_token/'],
    ['post', '/api/o/device_authorization/'],
    ['get', '/api/o/device/'],
    ['post', '/api/o/device/'],
    ['get', '/api/v2/tokens/'],
    ['post', '/api/v2/tokens/'],
    ['delete', '/api/v2/tokens/'],
    ['get', '/api/v2/tokens/1/'],
    ['patch', '/api/v2/tokens/1/'],
    ['delete', '/api/v2/tokens/1/'],
    ['get', '/api/v2/applications/'],
    ['post', '/api/v2/applications/'],
    ['get', '/api/v2/applications/1/'],
    ['get', '/api/v2/applications/1/tokens/'],
    ['post', '/api/v2/applications/1/tokens/'],
    ['get', '/api/v2/users/1/tokens/'],
    ['delete', '/api/v2/users/1/tokens/'],
    ['get', '/api/v2/users/1/personal_tokens/'],
    ['post', '/api/v2/users/1/personal_tokens/'],
    ['get', '/api/v2/users/1/authorized_tokens/'],
  ];

  it('answers 404 on every token, application and /api/o/ route, with or without credentials', async () => {
    for (const [method, path] of routes) {
      const anonymous = await (t.http() as unknown as Record<string, (p: string) => Promise<{ status: number; body: unknown }>>)[method](path);
      assert.equal(anonymous.status, 404, `anonymous ${method} ${path}`);
      const authed = await (t.http() as unknown as Record<string, (p: string) => { set(h: string, v: string): Promise<{ status: number; body: unknown }> }>)[method](path).set('Authorization', admin);
      assert.equal(authed.status, 404, `${method} ${path}`);
      assert.deepEqual(authed.body, { detail: 'Not found.' });
    }
  });

  it('keeps basic authentication and the users API unchanged, without token links', async () => {
    const me = await t.http().get('/api/v2/me/').set('Authorization', admin).expect(200);
    assert.deepEqual(Object.keys(me.body.results[0].related), ['sessions', 'authentication_events', 'activity_stream']);
    await t.http().get('/api/v2/users/').set('Authorization', admin).expect(200);
    await t.http().get('/api/v2/users/1/').set('Authorization', admin).expect(200);
    const root = await t.http().get('/api/').expect(200);
    assert.equal(root.body.oauth2, undefined);
    const v2 = await t.http().get('/api/v2/').expect(200);
    assert.equal(v2.body.tokens, undefined);
    assert.equal(v2.body.applications, undefined);
  });

  it('authenticates nothing with a bearer header, even for a token row that exists', async () => {
    const user = await t.app.get(UsersService).findByUsername('admin');
    const { token } = await t.app.get(TokensService).issue({ user: user!, application: null, scope: 'write', trace: NO_REQUEST });
    const res = await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${token}`).expect(401);
    assert.equal(res.headers['www-authenticate'], 'Session realm="api"');
    assert.ok(!t.logs.join('\n').includes(token));
  });

  it('makes the token commands refuse with a clear message', () => {
    const env = { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, OAUTH2_PROVIDER_ENABLED: 'false' };
    for (const args of [['create_oauth2_token', '--user', 'admin'], ['revoke_oauth2_tokens', '--all'], ['cleartokens']]) {
      const res = runManage(args, env);
      assert.equal(res.status, 1, args.join(' '));
      assert.match(res.stderr, /OAuth 2 provider is disabled \(OAUTH2_PROVIDER_ENABLED=false\)/);
      assert.equal(res.stdout, '');
    }
  });
});
