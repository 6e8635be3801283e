import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, TestApp } from './support/test-app';

/** Routes meant to answer without credentials; every other route must refuse an anonymous caller. */
const PUBLIC = new Set([
  'GET /api/',
  'GET /api/v2/',
  'GET /api/v2/ping/',
  'GET /api/v2/auth/',
  'GET /api/login/',
  'POST /api/login/',
  // The second step of a login: what it needs is the pending cookie of a password just proven (SPEC §16).
  'POST /api/login/mfa/',
  'POST /api/login/mfa/setup/',
  'GET /api/logout/',
  'POST /api/logout/',
  'GET /api/o/',
  'GET /api/o/authorize/',
  'POST /api/o/authorize/',
  'POST /api/o/token/',
  'POST /api/o/revoke_token/',
  'POST /api/o/device_authorization/',
  'GET /api/o/device/',
  'POST /api/o/device/',
  // The two legs of every single sign-on protocol (oidc, saml…): /sso/login/<kind>/, /sso/complete/<kind>/.
  'GET /sso/login/:kind/',
  'GET /sso/complete/:kind/',
  'POST /sso/complete/:kind/',
  'GET /sso/metadata/saml/',
  // Single logout (SPEC §17): the identity provider's messages carry their own proof (a signature).
  'GET /sso/logout/saml/',
  'POST /sso/logout/saml/',
  'GET /sso/logout/oidc/',
  'POST /sso/backchannel/oidc/',
  // The pages: an anonymous browser is sent to the login page (302), as Django's login_required does.
  'GET /accounts/profile/',
  'GET /accounts/admin/',
  'GET /static/:file',
]);

describe('every route is protected unless it is meant to be public', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('answers 401 to an anonymous caller on each protected route', async () => {
    const routes = t.routes;
    assert.ok(routes.length >= 10, 'routes were discovered');
    let checked = 0;
    for (const { method, path } of routes) {
      const normalised = path.endsWith('/') ? path : `${path}/`;
      if (PUBLIC.has(`${method} ${normalised}`) || PUBLIC.has(`${method} ${path}`)) continue;
      if (path.startsWith('/api/swagger')) continue; // the OpenAPI page and its assets are public documentation
      const concrete = normalised.replace(/:[A-Za-z_]+/g, '1');
      const res = await (t.http() as unknown as Record<string, (p: string) => Promise<{ status: number; body: { detail?: string } }>>)[
        method.toLowerCase()
      ](concrete);
      assert.equal(res.status, 401, `${method} ${concrete} must be protected (got ${res.status})`);
      checked++;
    }
    assert.ok(checked >= 8, `checked ${checked} protected routes`);
  });
});
