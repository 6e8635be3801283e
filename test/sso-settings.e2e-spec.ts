import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SettingsService } from '../src/settings/settings.service';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { selfSignedCertificate } from './support/x509';

const PUBLIC_URL = 'https://awx.example.com';
const OIDC = '/api/v2/settings/oidc/';
const SAML = '/api/v2/settings/saml/';

describe('single sign-on configuration, /api/v2/auth/ and the login page (SPEC §7, §9, §13)', () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);
  const idpCert = selfSignedCertificate('idp');
  const spKeys = selfSignedCertificate('sp');
  const otherKeys = selfSignedCertificate('other');

  before(async () => {
    t = await startTestApp({ env: { PUBLIC_URL } });
    await t.createUser('walter', 'Walter-pass-1');
  });
  after(() => t.close());

  const patch = (path: string, body: unknown) => t.http().patch(path).set('Authorization', admin).send(body as object);

  it('lists the oidc and saml categories; only superusers change them', async () => {
    const list = await t.http().get('/api/v2/settings/').set('Authorization', admin).expect(200);
    const slugs = list.body.results.map((r: { slug: string }) => r.slug);
    assert.ok(slugs.includes('oidc') && slugs.includes('saml'), JSON.stringify(slugs));
    await t.http().get(OIDC).set('Authorization', basic('walter', 'Walter-pass-1')).expect(403);
    await t.http().patch(SAML).set('Authorization', basic('walter', 'Walter-pass-1')).send({}).expect(403);
    await t.http().get(SAML).expect(401);
  });

  it('SAML read-only URLs and the SP entity id come from PUBLIC_URL; read-only keys are not writable', async () => {
    const res = await t.http().get(SAML).set('Authorization', admin).expect(200);
    assert.equal(res.body.SOCIAL_AUTH_SAML_CALLBACK_URL, `${PUBLIC_URL}/sso/complete/saml/`);
    assert.equal(res.body.SOCIAL_AUTH_SAML_METADATA_URL, `${PUBLIC_URL}/sso/metadata/saml/`);
    assert.equal(res.body.SOCIAL_AUTH_SAML_SP_ENTITY_ID, PUBLIC_URL);
    assert.deepEqual(res.body.SOCIAL_AUTH_SAML_ENABLED_IDPS, {});
    const after = await patch(SAML, { SOCIAL_AUTH_SAML_CALLBACK_URL: 'https://evil.example/' }).expect(200);
    assert.equal(after.body.SOCIAL_AUTH_SAML_CALLBACK_URL, `${PUBLIC_URL}/sso/complete/saml/`);
  });

  it('OIDC providers: defaults filled in, the client secret write-only, stored encrypted, kept by "$encrypted$"', async () => {
    const res = await patch(OIDC, {
      SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: 'https://login.corp.example/realms/main', client_id: 'awx', client_secret: 'top-secret-value' } },
    }).expect(200);
    assert.deepEqual(res.body.SOCIAL_AUTH_OIDC_PROVIDERS, {
      corp: {
        issuer: 'https://login.corp.example/realms/main',
        client_id: 'awx',
        client_secret: '$encrypted$',
        scopes: 'openid profile email',
        attr_username: 'preferred_username',
        attr_email: 'email',
        attr_first_name: 'given_name',
        attr_last_name: 'family_name',
        // SPEC §21: the claim the maps read the user's groups from.
        groups_claim: 'groups',
      },
    });
    const stored = await t.app.get<DataSource>(getDataSourceToken()).query("SELECT value FROM conf_setting WHERE `key` = 'SOCIAL_AUTH_OIDC_PROVIDERS'");
    assert.ok(!String(stored[0].value).includes('top-secret-value'), 'stored encrypted');
    await patch(OIDC, {
      SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { ...res.body.SOCIAL_AUTH_OIDC_PROVIDERS.corp, scopes: 'openid email' } },
    }).expect(200);
    const value = t.app.get(SettingsService).get<Record<string, { client_secret: string; scopes: string }>>('SOCIAL_AUTH_OIDC_PROVIDERS');
    assert.equal(value.corp.client_secret, 'top-secret-value');
    assert.equal(value.corp.scopes, 'openid email');
    const read = await t.http().get(OIDC).set('Authorization', admin).expect(200);
    assert.ok(!JSON.stringify(read.body).includes('top-secret-value'));
  });

  const badOidc: [string, unknown, RegExp][] = [
    ['an issuer that is not a URL', { corp: { issuer: 'not a url', client_id: 'awx' } }, /corp: issuer: Enter a valid URL/],
    ['a plain-http issuer off loopback', { corp: { issuer: 'http://login.corp.example', client_id: 'awx' } }, /corp: issuer: .*https/],
    ['an issuer with a query', { corp: { issuer: 'https://login.corp.example/?x=1', client_id: 'awx' } }, /corp: issuer: .*query/],
    ['a missing client_id', { corp: { issuer: 'https://login.corp.example' } }, /corp: client_id: This field is required/],
    ['scopes without openid', { corp: { issuer: 'https://login.corp.example', client_id: 'awx', scopes: 'email' } }, /corp: scopes:/],
    ['an unknown key', { corp: { issuer: 'https://login.corp.example', client_id: 'awx', colour: 'red' } }, /corp: Invalid key names: colour/],
    ['a provider name unusable in a URL', { 'my corp': { issuer: 'https://login.corp.example', client_id: 'awx' } }, /not a valid provider name/],
    ['a list instead of a dictionary', [], /Expected a dictionary/],
  ];
  for (const [name, value, message] of badOidc) {
    it(`OIDC settings refuse ${name} with a 400 naming the field`, async () => {
      const res = await patch(OIDC, { SOCIAL_AUTH_OIDC_PROVIDERS: value }).expect(400);
      assert.deepEqual(Object.keys(res.body), ['SOCIAL_AUTH_OIDC_PROVIDERS']);
      assert.match(res.body.SOCIAL_AUTH_OIDC_PROVIDERS[0], message);
    });
  }

  it('SAML IdPs: PEM or bare base64 certificates, stored as PEM; SP key write-only', async () => {
    const res = await patch(SAML, {
      SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: spKeys.certPem,
      SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: spKeys.privateKeyPem,
      SOCIAL_AUTH_SAML_ENABLED_IDPS: {
        okta: { entity_id: 'http://www.okta.com/abc', url: 'https://corp.okta.com/app/sso/saml', x509cert: idpCert.certBody },
        adfs: {
          entity_id: 'http://adfs.corp.example/adfs/services/trust',
          url: 'https://adfs.corp.example/adfs/ls/',
          slo_url: ' https://adfs.corp.example/adfs/ls/?wa=wsignout1.0 ',
          x509cert: idpCert.certPem,
          attr_username: 'upn',
        },
      },
      SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR: { is_superuser_attr: 'groups', is_superuser_value: 'admins' },
    }).expect(200);
    assert.equal(res.body.SOCIAL_AUTH_SAML_SP_PRIVATE_KEY, '$encrypted$');
    assert.equal(res.body.SOCIAL_AUTH_SAML_SP_PUBLIC_CERT, spKeys.certPem.trim());
    assert.equal(res.body.SOCIAL_AUTH_SAML_ENABLED_IDPS.okta.x509cert.replace(/\s+/g, ''), idpCert.certPem.replace(/\s+/g, ''));
    assert.equal(res.body.SOCIAL_AUTH_SAML_ENABLED_IDPS.okta.attr_user_permanent_id, 'name_id');
    assert.equal(res.body.SOCIAL_AUTH_SAML_ENABLED_IDPS.okta.attr_email, 'urn:oid:0.9.2342.19200300.100.1.3');
    assert.equal(res.body.SOCIAL_AUTH_SAML_ENABLED_IDPS.adfs.attr_username, 'upn');
    // SPEC §17: the IdP's single logout service is optional, trimmed when given.
    assert.equal(res.body.SOCIAL_AUTH_SAML_ENABLED_IDPS.adfs.slo_url, 'https://adfs.corp.example/adfs/ls/?wa=wsignout1.0');
    assert.ok(!('slo_url' in res.body.SOCIAL_AUTH_SAML_ENABLED_IDPS.okta));
    assert.deepEqual(res.body.SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR, { is_superuser_attr: 'groups', is_superuser_value: ['admins'] });
    assert.ok(!JSON.stringify(res.body).includes('PRIVATE KEY'));
  });

  const badSaml: [string, Record<string, unknown>, string, RegExp][] = [
    [
      'a bad IdP certificate',
      { SOCIAL_AUTH_SAML_ENABLED_IDPS: { okta: { entity_id: 'x', url: 'https://idp.example/sso', x509cert: 'MIIBnotacert' } } },
      'SOCIAL_AUTH_SAML_ENABLED_IDPS',
      /okta: x509cert: Invalid certificate/,
    ],
    [
      'a bad IdP URL',
      { SOCIAL_AUTH_SAML_ENABLED_IDPS: { okta: { entity_id: 'x', url: 'ftp://idp.example/', x509cert: idpCert.certBody } } },
      'SOCIAL_AUTH_SAML_ENABLED_IDPS',
      /okta: url: Enter a valid URL/,
    ],
    [
      'a bad IdP single logout URL',
      { SOCIAL_AUTH_SAML_ENABLED_IDPS: { okta: { entity_id: 'x', url: 'https://idp.example/sso', slo_url: 'javascript:alert(1)', x509cert: idpCert.certBody } } },
      'SOCIAL_AUTH_SAML_ENABLED_IDPS',
      /okta: slo_url: Enter a valid URL/,
    ],
    [
      'a missing entity_id',
      { SOCIAL_AUTH_SAML_ENABLED_IDPS: { okta: { url: 'https://idp.example/sso', x509cert: idpCert.certBody } } },
      'SOCIAL_AUTH_SAML_ENABLED_IDPS',
      /okta: entity_id: This field is required/,
    ],
    ['a bad SP certificate', { SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }, 'SOCIAL_AUTH_SAML_SP_PUBLIC_CERT', /Invalid certificate/],
    ['a bad SP key', { SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: 'not a key' }, 'SOCIAL_AUTH_SAML_SP_PRIVATE_KEY', /Invalid private key/],
    ['an SP key that does not match the certificate', { SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: otherKeys.privateKeyPem }, 'SOCIAL_AUTH_SAML_SP_PRIVATE_KEY', /does not match/],
  ];
  it("SAML settings refuse an unknown flag key as AWX does: `Invalid field.` at its place (SPEC §21)", async () => {
    const res = await patch(SAML, { SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR: { is_admin_attr: 'x' } }).expect(400);
    assert.deepEqual(res.body, { SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR: { is_admin_attr: ['Invalid field.'] } });
  });

  for (const [name, body, field, message] of badSaml) {
    it(`SAML settings refuse ${name} with a 400 naming the field`, async () => {
      const res = await patch(SAML, body).expect(400);
      assert.deepEqual(Object.keys(res.body), [field]);
      assert.match(res.body[field][0], message);
    });
  }

  it('GET /api/v2/auth/ is public and lists every enabled method with AWX-shaped URLs', async () => {
    const res = await t.http().get('/api/v2/auth/').set('Authorization', 'Bearer rubbish').expect(200);
    assert.deepEqual(res.body, {
      'oidc:corp': {
        login_url: '/sso/login/oidc/?idp=corp',
        complete_url: `${PUBLIC_URL}/sso/complete/oidc/`,
        // SPEC §17: what to register at the provider for back-channel logout.
        backchannel_logout_url: `${PUBLIC_URL}/sso/backchannel/oidc/?idp=corp`,
      },
      'saml:adfs': {
        login_url: '/sso/login/saml/?idp=adfs',
        complete_url: `${PUBLIC_URL}/sso/complete/saml/`,
        metadata_url: '/sso/metadata/saml/',
        slo_url: `${PUBLIC_URL}/sso/logout/saml/`,
      },
      'saml:okta': {
        login_url: '/sso/login/saml/?idp=okta',
        complete_url: `${PUBLIC_URL}/sso/complete/saml/`,
        metadata_url: '/sso/metadata/saml/',
        slo_url: `${PUBLIC_URL}/sso/logout/saml/`,
      },
    });
  });

  it('the login page shows one button per method, carrying `next`, and the fixed text of an SSO failure', async () => {
    const res = await t.http().get('/api/login/?next=/api/v2/me/').expect(200);
    assert.match(res.text, /<a class="button" href="\/sso\/login\/oidc\/\?idp=corp&amp;next=%2Fapi%2Fv2%2Fme%2F">Log in with corp \(OpenID Connect\)<\/a>/);
    assert.match(res.text, /<a class="button" href="\/sso\/login\/saml\/\?idp=okta&amp;next=%2Fapi%2Fv2%2Fme%2F">Log in with okta \(SAML\)<\/a>/);
    assert.match(res.text, /Log in with adfs \(SAML\)/);
    const failed = await t.http().get('/api/login/?sso_error=replayed').expect(200);
    assert.match(failed.text, /<div class="alert" role="alert">Single sign-on failed: this login answer was already used\. Please log in again\.<\/div>/);
    const unknown = await t.http().get('/api/login/?sso_error=%3Cscript%3E').expect(200);
    assert.doesNotMatch(unknown.text, /role="alert"/);
  });

  it('DISABLE_LOCAL_AUTH may be turned on once a provider is configured (AWX rule)', async () => {
    const res = await patch('/api/v2/settings/authentication/', { DISABLE_LOCAL_AUTH: true }).expect(200);
    assert.equal(res.body.DISABLE_LOCAL_AUTH, true);
    await t.settings({ DISABLE_LOCAL_AUTH: false });
    await t.http().delete(OIDC).set('Authorization', admin).expect(204);
    await t.http().delete(SAML).set('Authorization', admin).expect(204);
    const refused = await patch('/api/v2/settings/authentication/', { DISABLE_LOCAL_AUTH: true }).expect(400);
    assert.ok(refused.body.DISABLE_LOCAL_AUTH);
    assert.deepEqual((await t.http().get('/api/v2/auth/').expect(200)).body, {});
    assert.doesNotMatch((await t.http().get('/api/login/').expect(200)).text, /Log in with/);
  });
});
