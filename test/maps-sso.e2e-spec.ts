import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { CLIENT_ID, CLIENT_SECRET, OidcAccount, OidcIdp } from './support/oidc-idp';
import { SamlIdp, SamlUser } from './support/saml-idp';
import { Browser } from './support/sso-browser';
import { lastEvent, sessionCount, userCount } from './support/sso-assertions';
import { selfSignedCertificate } from './support/x509';
import { TEST_DB } from './support/test-db';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const NOT_ALLOWED = 'Your account is not allowed to log in here.';

const ACCOUNTS: Record<string, OidcAccount> = {
  'sub-olga': { preferred_username: 'olga', email: 'olga@corp.example', groups: ['awx-users', 'awx-admins'] },
  'sub-oscar': { preferred_username: 'oscar', email: 'oscar@corp.example', groups: ['awx-users'], department: 'ops' },
  'sub-otto': { preferred_username: 'otto', email: 'otto@corp.example', groups: 'contractors' },
  // Entra ID's group overage sends no list: a groups claim of another shape is no groups.
  'sub-olive': { preferred_username: 'olive', email: 'olive@corp.example', groups: { overage: true } as unknown as string[] },
};

const UID = 'urn:oid:0.9.2342.19200300.100.1.1';
const MAIL = 'urn:oid:0.9.2342.19200300.100.1.3';
const SAML_USERS: Record<string, SamlUser> = {
  sara: { nameId: 'sara@idp.example', attributes: { [UID]: 'sara', [MAIL]: 'sara@idp.example', orgs: ['Sales', 'Ops'], teams: ['blue'], Role: ['admins'], memberOf: ['g-sales'] } },
  sam: { nameId: 'sam@idp.example', attributes: { [UID]: 'sam', [MAIL]: 'sam@idp.example', orgs: 'Ops', teams: ['red'], memberOf: ['g-other'] } },
};

/** SPEC §21 through single sign-on against real providers (oidc-provider, a samlify IdP). */
describe(`What single sign-on grants: OIDC and SAML maps (SPEC §21, issue 42, ${TEST_DB})`, () => {
  let t: TestApp;
  let oidc: OidcIdp;
  let saml: SamlIdp;
  const sp = selfSignedCertificate('automation-service-sp');

  const organization = async (name: string) => {
    const res = await t.http().get(`/api/v2/organizations/?name=${encodeURIComponent(name)}`).set('Authorization', ADMIN).expect(200);
    return res.body.results[0] as { id: number; summary_fields: { object_roles: Record<string, { id: number }> } } | undefined;
  };
  const holders = async (target: { summary_fields: { object_roles: Record<string, { id: number }> } }, role: string) => {
    const res = await t.http().get(`/api/v2/roles/${target.summary_fields.object_roles[role].id}/users/`).set('Authorization', ADMIN).expect(200);
    return (res.body.results as { username: string }[]).map((u) => u.username).sort();
  };
  const teamHolders = async (org: string, team: string) => {
    const o = await organization(org);
    if (!o) return undefined;
    const res = await t.http().get(`/api/v2/teams/?organization=${o.id}&name=${encodeURIComponent(team)}`).set('Authorization', ADMIN).expect(200);
    return res.body.results[0] ? holders(res.body.results[0], 'member_role') : undefined;
  };
  const userNamed = async (username: string) => {
    const res = await t.http().get(`/api/v2/users/?username=${encodeURIComponent(username)}`).set('Authorization', ADMIN).expect(200);
    return res.body.results[0] as Record<string, unknown> | undefined;
  };

  async function oidcLogin(browser: Browser, account: string) {
    const start = await browser.get('/sso/login/oidc/?idp=corp').expect(302);
    return browser.get(await oidc.authenticate(browser, start.headers.location, account));
  }
  async function samlLogin(browser: Browser, username: string) {
    const start = await browser.get('/sso/login/saml/?idp=okta').expect(302);
    const page = await browser.get(start.headers.location);
    assert.equal(page.status, 200, page.text);
    const posted = saml.respond(page.text, username, {});
    return browser.postForm(posted.acs, { SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState });
  }
  /** A refusal of the maps: the login page with its alert saying so, and no session. */
  async function assertNotAllowed(browser: Browser, res: { status: number; headers: Record<string, string> }, sessionsBefore: number) {
    assert.equal(res.status, 302);
    const location = new URL(res.headers.location, 'http://x');
    assert.equal(location.pathname, '/api/login/');
    assert.equal(await sessionCount(t), sessionsBefore, 'no session row');
    const page = await browser.get(res.headers.location).expect(200);
    assert.match(page.text, new RegExp(`role="alert">${NOT_ALLOWED}<`));
  }

  before(async () => {
    t = await startTestApp();
    oidc = await OidcIdp.start({ redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`, accounts: ACCOUNTS });
    saml = await SamlIdp.start({ users: SAML_USERS, wantAuthnRequestsSigned: true });
    await t.settings({
      SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: oidc.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } },
      SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: sp.certPem,
      SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: sp.privateKeyPem,
      SOCIAL_AUTH_SAML_ENABLED_IDPS: { okta: { entity_id: saml.entityId, url: saml.ssoUrl, x509cert: saml.keys.certBody, attr_groups: 'memberOf' } },
    });
    saml.useServiceProviderMetadata((await t.http().get('/sso/metadata/saml/').expect(200)).text);
  });
  after(async () => {
    await oidc?.close();
    await saml?.close();
    await t?.close();
  });

  describe('OpenID Connect', () => {
    it('the global social maps apply (OIDC maps null): a /regex/ on the email grants, the named organizations are made', async () => {
      await t.settings({
        SOCIAL_AUTH_ORGANIZATION_MAP: { Corp: { users: '/^o.*@corp\\.example$/', admins: ['olga'] }, Unused: { users: false } },
        SOCIAL_AUTH_TEAM_MAP: { Admins: { organization: 'Corp', users: ['olga@corp.example'] } },
      });
      const browser = new Browser(t);
      assert.equal((await oidcLogin(browser, 'sub-olga')).status, 302);
      const corp = (await organization('Corp'))!;
      assert.deepEqual(await holders(corp, 'member_role'), ['olga']);
      assert.deepEqual(await holders(corp, 'admin_role'), ['olga']);
      assert.ok(await organization('Unused'), 'an OIDC login makes every organization its maps name');
      assert.deepEqual(await teamHolders('Corp', 'Admins'), ['olga']);
    });

    it("organization_alias acts on another organization than the key; a DRF boolean text is stored as the boolean", async () => {
      const saved = await t.http().patch('/api/v2/settings/oidc/').set('Authorization', ADMIN)
        .send({ SOCIAL_AUTH_OIDC_ORGANIZATION_MAP: { corp: { organization_alias: 'Corp Alias', users: 'yes' } }, SOCIAL_AUTH_OIDC_TEAM_MAP: {} }).expect(200);
      assert.deepEqual(saved.body.SOCIAL_AUTH_OIDC_ORGANIZATION_MAP, { corp: { organization_alias: 'Corp Alias', users: true } });
      assert.equal((await oidcLogin(new Browser(t), 'sub-olga')).status, 302);
      assert.deepEqual(await holders((await organization('Corp Alias'))!, 'member_role'), ['olga']);
      assert.equal(await organization('corp'), undefined, 'the key itself names nothing');
      // Back to the `authentication` maps (null reads them).
      await t.http().patch('/api/v2/settings/oidc/').set('Authorization', ADMIN).send({ SOCIAL_AUTH_OIDC_ORGANIZATION_MAP: null, SOCIAL_AUTH_OIDC_TEAM_MAP: null }).expect(200);
    });

    it('a groups claim of another shape (group overage) is no groups, and the log says so', async () => {
      assert.equal((await oidcLogin(new Browser(t), 'sub-olive')).status, 302);
      const event = lastEvent(t, 'sso_groups_unreadable');
      assert.equal(event?.provider, 'oidc:corp');
      assert.equal(event?.claim, 'groups');
      const replay = await t.http().post('/api/v2/settings/maps/test/').set('Authorization', ADMIN).send({ source: 'oidc:corp', username: 'olive' }).expect(200);
      assert.deepEqual(replay.body.claims.groups, []);
    });

    it('AUTHENTICATION_MAPS is the OIDC group gate (#13226): outside the groups, refused with the alert and no user made', async () => {
      await t.settings({
        AUTHENTICATION_MAPS: [
          { name: 'AWX users only', sources: ['oidc:corp'], map_type: 'allow', triggers: { groups: { has_or: ['awx-users', 'awx-admins'] } } },
          { name: 'AWX admins', sources: ['oidc:corp'], map_type: 'is_superuser', triggers: { groups: { has_or: ['awx-admins'] } }, revoke: true },
          { name: 'Ops by department', sources: ['oidc'], map_type: 'team', organization: 'Corp', team: 'Ops', triggers: { attributes: { department: { in: ['ops', 'sre'] } } } },
        ],
      });
      const users = await userCount(t);
      const sessions = await sessionCount(t);
      const browser = new Browser(t);
      await assertNotAllowed(browser, await oidcLogin(browser, 'sub-otto'), sessions);
      assert.equal(await userCount(t), users, 'a refused first login makes no user');
      assert.equal(lastEvent(t, 'sso_login')?.reason, 'not_allowed');
      assert.equal((await oidcLogin(new Browser(t), 'sub-olga')).status, 302);
      assert.equal((await userNamed('olga'))!.is_superuser, true);
      assert.equal((await oidcLogin(new Browser(t), 'sub-oscar')).status, 302);
      assert.equal((await userNamed('oscar'))!.is_superuser, false);
      assert.deepEqual(await teamHolders('Corp', 'Ops'), ['oscar']);
    });

    it('the dry run replays the stored OIDC claims: groups and text attributes, never a token', async () => {
      const res = await t.http().post('/api/v2/settings/maps/test/').set('Authorization', ADMIN).send({ source: 'oidc:corp', username: 'oscar' }).expect(200);
      assert.deepEqual(res.body.claims.groups, ['awx-users']);
      assert.deepEqual(res.body.claims.attributes.department, ['ops']);
      for (const secret of ['nonce', 'at_hash', 'access_token', 'id_token']) assert.equal(res.body.claims.attributes[secret], undefined, secret);
      assert.equal(res.body.current.flags.is_superuser.decided_by, 'AUTHENTICATION_MAPS[1]');
    });
  });

  describe('SAML', () => {
    it("SAML's attribute maps: organizations and teams from the assertion, flags from Role, grants and revokes", async () => {
      await t.settings({
        AUTHENTICATION_MAPS: [],
        SOCIAL_AUTH_SAML_ORGANIZATION_MAP: {},
        SOCIAL_AUTH_SAML_ORGANIZATION_ATTR: { saml_attr: 'orgs', remove: true },
        SOCIAL_AUTH_SAML_TEAM_ATTR: { saml_attr: 'teams', remove: true, team_org_map: [{ team: 'blue', organization: 'Sales' }, { team: 'red', team_alias: 'Red team', organization: 'Ops' }] },
        SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR: { is_superuser_role: ['admins'], remove_superusers: true },
      });
      assert.equal((await samlLogin(new Browser(t), 'sara')).status, 302);
      assert.equal((await samlLogin(new Browser(t), 'sam')).status, 302);
      assert.deepEqual(await holders((await organization('Sales'))!, 'member_role'), ['sara']);
      assert.deepEqual(await holders((await organization('Ops'))!, 'member_role'), ['sam', 'sara']);
      assert.deepEqual(await teamHolders('Sales', 'blue'), ['sara']);
      assert.deepEqual(await teamHolders('Ops', 'Red team'), ['sam']);
      assert.equal((await userNamed('sara'))!.is_superuser, true);
      assert.equal((await userNamed('sam'))!.is_superuser, false);
      // An organization the assertion does not name loses sara with `remove` true: a hand grant in Corp goes.
      const sara = (await userNamed('sara'))!;
      const corp = (await organization('Corp'))!;
      await t.http().post(`/api/v2/organizations/${corp.id}/users/`).set('Authorization', ADMIN).send({ id: sara.id }).expect(204);
      assert.equal((await samlLogin(new Browser(t), 'sara')).status, 302);
      assert.ok(!(await holders(corp, 'member_role')).includes('sara'));
    });

    it('SAML_AUTO_CREATE_OBJECTS false: a grant naming a missing organization is dropped', async () => {
      await t.settings({ SAML_AUTO_CREATE_OBJECTS: false, SOCIAL_AUTH_SAML_ORGANIZATION_MAP: { Nowhere: { users: true } } });
      assert.equal((await samlLogin(new Browser(t), 'sam')).status, 302);
      assert.equal(await organization('Nowhere'), undefined);
      await t.settings({ SAML_AUTO_CREATE_OBJECTS: true });
      assert.equal((await samlLogin(new Browser(t), 'sam')).status, 302);
      assert.deepEqual(await holders((await organization('Nowhere'))!, 'member_role'), ['sam']);
    });

    it('a refused existing SAML user: the alert, and their sessions end with access_revoked', async () => {
      const browser = new Browser(t);
      assert.equal((await samlLogin(browser, 'sam')).status, 302);
      await browser.get('/api/v2/me/').expect(200);
      await t.settings({ AUTHENTICATION_MAPS: [{ name: 'Sales only', sources: ['saml:okta'], map_type: 'allow', triggers: { groups: { has_or: ['g-sales'] } } }] });
      const sessions = await sessionCount(t);
      const again = new Browser(t);
      await assertNotAllowed(again, await samlLogin(again, 'sam'), sessions);
      await browser.get('/api/v2/me/').expect(401);
      assert.equal(lastEvent(t, 'sessions_cut_off')?.reason, 'access_revoked');
      assert.equal((await userNamed('sam'))!.is_active, true);
      assert.equal((await samlLogin(new Browser(t), 'sara')).status, 302);
    });
  });
});
