import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import { generate } from 'otplib';
import type { DataSource } from 'typeorm';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { browserLogin, cookieValue } from './support/browser-login';
import { registerApp, tokenRequest } from './support/oauth2';
import { certificateAuthority } from './support/x509';
import { freePort } from './support/free-port';
import { SlapdServer } from './support/slapd-server';
import { BASE, defaultDirectory, DN, GROUPS, PARTNERS, PASSWORDS, PEOPLE, READER_PASSWORD, startDirectory } from './support/ldap-directory';
import { runManage } from './support/service-process';
import { TEST_DB } from './support/test-db';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const UNAVAILABLE = { detail: 'The login directory is unavailable; try again later.' };
const LOGIN_FAILED = 'Please enter a correct username and password. Note that both fields may be case-sensitive.';

/** POSTs the login form as a browser does (in `agent`, to read its session afterwards); answers the response whatever its status. */
async function formLogin(t: TestApp, username: string, password: string, agent = t.agent()) {
  const page = await agent.get('/api/login/').expect(200);
  const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
  return agent.post('/api/login/').set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form').send({ username, password });
}

describe(`LDAP and Active Directory logins (SPEC §14, issue 30, ${TEST_DB})`, () => {
  let t: TestApp;
  let ldap: SlapdServer;
  let deadPort: number;

  const configure = async (values: Record<string, unknown>) => {
    const res = await t.http().patch('/api/v2/settings/ldap/').set('Authorization', ADMIN).send(values);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Record<string, unknown>;
  };
  const user = async (username: string) => {
    const res = await t.http().get(`/api/v2/users/?username=${encodeURIComponent(username)}`).set('Authorization', ADMIN).expect(200);
    return res.body.results[0] as Record<string, unknown> | undefined;
  };
  const events = (from: number, event: string) =>
    t.logs.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === event);

  before(async () => {
    ldap = await startDirectory();
    deadPort = await freePort();
    t = await startTestApp();
    await t.createUser('localuser', 'Local-own-pw-1');
  });
  after(async () => {
    await t?.close();
    await ldap?.destroy();
  });

  describe('settings (/api/v2/settings/ldap/)', () => {
    it("lists AWX's keys for six directories with their defaults; AUTH_LDAP_CACHE_SECONDS is an authentication setting", async () => {
      const res = await t.http().get('/api/v2/settings/ldap/').set('Authorization', ADMIN).expect(200);
      for (const prefix of ['AUTH_LDAP_', 'AUTH_LDAP_1_', 'AUTH_LDAP_2_', 'AUTH_LDAP_3_', 'AUTH_LDAP_4_', 'AUTH_LDAP_5_']) {
        assert.equal(res.body[`${prefix}SERVER_URI`], '');
        assert.equal(res.body[`${prefix}START_TLS`], false);
        assert.deepEqual(res.body[`${prefix}CONNECTION_OPTIONS`], { OPT_REFERRALS: 0, OPT_NETWORK_TIMEOUT: 30 });
        assert.deepEqual(res.body[`${prefix}USER_SEARCH`], []);
        assert.equal(res.body[`${prefix}USER_DN_TEMPLATE`], null);
        assert.deepEqual(res.body[`${prefix}USER_ATTR_MAP`], { first_name: 'givenName', last_name: 'sn', email: 'mail' });
        assert.equal(res.body[`${prefix}GROUP_TYPE`], 'MemberDNGroupType');
        assert.deepEqual(res.body[`${prefix}GROUP_TYPE_PARAMS`], { member_attr: 'member', name_attr: 'cn' });
        assert.equal(res.body[`${prefix}REQUIRE_GROUP`], null);
        assert.deepEqual(res.body[`${prefix}USER_FLAGS_BY_GROUP`], {});
        assert.equal(res.body[`${prefix}CA_CERT`], '');
        assert.deepEqual(res.body[`${prefix}ORGANIZATION_MAP`], {});
        assert.deepEqual(res.body[`${prefix}TEAM_MAP`], {});
      }
      // Fifteen keys of SPEC §14 and the two maps of SPEC §21 (ORGANIZATION_MAP, TEAM_MAP), for each directory.
      assert.equal(Object.keys(res.body).length, 6 * 17);
      const auth = await t.http().get('/api/v2/settings/authentication/').set('Authorization', ADMIN).expect(200);
      assert.equal(auth.body.AUTH_LDAP_CACHE_SECONDS, 60);
      const list = await t.http().get('/api/v2/settings/').set('Authorization', ADMIN).expect(200);
      assert.ok(list.body.results.some((c: { slug: string; name: string }) => c.slug === 'ldap' && c.name === 'LDAP'));
    });

    it('keeps the bind password write-only ("$encrypted$"), stored encrypted; only superusers write, auditors read', async () => {
      const body = await configure(defaultDirectory(ldap));
      assert.equal(body.AUTH_LDAP_BIND_PASSWORD, '$encrypted$');
      const keyColumn = TEST_DB === 'mysql' ? '`key`' : '"key"';
      const rows = await t.app.get<DataSource>(getDataSourceToken()).query(`SELECT value FROM conf_setting WHERE ${keyColumn} = 'AUTH_LDAP_BIND_PASSWORD'`);
      assert.ok(!String(rows[0].value).includes(READER_PASSWORD), 'stored encrypted');
      // "$encrypted$" written back keeps the stored password: the login below binds with it.
      await configure({ AUTH_LDAP_BIND_PASSWORD: '$encrypted$' });
      await t.createUser('auditor', 'Auditor-pass-1', { is_system_auditor: true });
      await t.createUser('plain', 'Plain-pass-1');
      const read = await t.http().get('/api/v2/settings/ldap/').set('Authorization', basic('auditor', 'Auditor-pass-1')).expect(200);
      assert.equal(read.body.AUTH_LDAP_BIND_PASSWORD, '$encrypted$');
      await t.http().patch('/api/v2/settings/ldap/').set('Authorization', basic('auditor', 'Auditor-pass-1')).send({ AUTH_LDAP_START_TLS: true }).expect(403);
      await t.http().get('/api/v2/settings/ldap/').set('Authorization', basic('plain', 'Plain-pass-1')).expect(403);
      await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', basic('auditor', 'Auditor-pass-1')).send({ username: 'alice', password: 'x' }).expect(403);
      await t.http().post('/api/v2/settings/ldap/test/').send({ username: 'alice', password: 'x' }).expect(401);
    });

    const bad: [string, Record<string, unknown>, RegExp][] = [
      ['a URI of another scheme', { AUTH_LDAP_SERVER_URI: 'http://127.0.0.1:389' }, /ldap:\/\/ or ldaps:\/\//],
      ['a URI with a path', { AUTH_LDAP_1_SERVER_URI: 'ldap://host/dc=x?uid' }, /only scheme, host and port/],
      ['a user filter without %(user)s', { AUTH_LDAP_USER_SEARCH: [PEOPLE, 'SCOPE_SUBTREE', '(uid=alice)'] }, /%\(user\)s/],
      ['a malformed filter', { AUTH_LDAP_GROUP_SEARCH: [GROUPS, 'SCOPE_SUBTREE', '(objectClass=groupOfNames'] }, /Invalid filter/],
      ['an unknown scope', { AUTH_LDAP_USER_SEARCH: [PEOPLE, 'SCOPE_EVERYWHERE', '(uid=%(user)s)'] }, /Invalid scope/],
      ['an unknown group type', { AUTH_LDAP_GROUP_TYPE: 'MagicGroupType' }, /not a valid choice/],
      ['a malformed DN', { AUTH_LDAP_REQUIRE_GROUP: 'cn=staff,,dc=example' }, /valid DN/],
      ['a malformed bind DN', { AUTH_LDAP_2_BIND_DN: 'not a dn' }, /valid DN/],
      ['a malformed flag group', { AUTH_LDAP_USER_FLAGS_BY_GROUP: { is_superuser: ['cn=ok,dc=x', 'oops'] } }, /valid DN/],
      ['an unknown flag', { AUTH_LDAP_USER_FLAGS_BY_GROUP: { is_god: [DN.admins] } }, /is_god/],
      ['a DN template without %(user)s', { AUTH_LDAP_USER_DN_TEMPLATE: 'uid=alice,dc=example,dc=org' }, /%\(user\)s/],
      ['a bad PEM', { AUTH_LDAP_CA_CERT: '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----' }, /certificate/],
      ['text that is no PEM', { AUTH_LDAP_3_CA_CERT: 'hello' }, /certificate/],
      ['an unknown connection option', { AUTH_LDAP_CONNECTION_OPTIONS: { OPT_X_TLS_REQUIRE_CERT: 0 } }, /OPT_X_TLS_REQUIRE_CERT/],
      ['an unknown attribute-map field', { AUTH_LDAP_USER_ATTR_MAP: { nickname: 'cn' } }, /nickname/],
      ['a cache period below zero', { AUTH_LDAP_CACHE_SECONDS: -1 }, /greater than or equal to 0/],
    ];
    for (const [name, values, message] of bad) {
      it(`refuses ${name} with a 400 naming the key, and stores nothing`, async () => {
        const key = Object.keys(values)[0];
        const category = key === 'AUTH_LDAP_CACHE_SECONDS' ? 'authentication' : 'ldap';
        const before = await t.http().get(`/api/v2/settings/${category}/`).set('Authorization', ADMIN).expect(200);
        const res = await t.http().patch(`/api/v2/settings/${category}/`).set('Authorization', ADMIN).send(values).expect(400);
        assert.deepEqual(Object.keys(res.body), [key], JSON.stringify(res.body));
        assert.match(res.body[key][0], message);
        const afterwards = await t.http().get(`/api/v2/settings/${category}/`).set('Authorization', ADMIN).expect(200);
        assert.deepEqual(afterwards.body, before.body);
      });
    }
  });

  describe('logging in through the directory', () => {
    it('form login: the first login creates the user (external_account "ldap", ldap_dn, mapped attributes, flags)', async () => {
      const res = await formLogin(t, 'alice', PASSWORDS.alice);
      assert.equal(res.status, 302, res.text.slice(0, 300));
      const alice = await user('alice');
      assert.ok(alice);
      assert.equal(alice.external_account, 'ldap');
      assert.equal(alice.ldap_dn, DN.alice);
      assert.equal(alice.first_name, 'Alice');
      assert.equal(alice.last_name, 'Liddell');
      assert.equal(alice.email, 'alice@example.org');
      assert.equal(alice.is_superuser, true, 'member of cn=admins');
      assert.equal(alice.is_system_auditor, false);
      assert.equal('password' in alice, false, 'no local password to show');
      const filtered = await t.http().get(`/api/v2/users/?ldap_dn=${encodeURIComponent(DN.alice)}`).set('Authorization', ADMIN).expect(200);
      assert.equal(filtered.body.count, 1);
      // The session works, and the profile says where the account lives.
      const browser = await browserLogin(t, 'alice', PASSWORDS.alice);
      const page = await browser.agent.get('/accounts/profile/').expect(200);
      assert.match(page.text, /LDAP directory \(uid=alice,ou=people,dc=example,dc=org\)/);
    });

    it('basic auth: a nested group (team-a inside auditors) makes bob an auditor; wrong passwords answer as for anyone', async () => {
      const res = await t.http().get('/api/v2/me/').set('Authorization', basic('bob', PASSWORDS.bob)).expect(200);
      assert.equal(res.body.results[0].username, 'bob');
      assert.equal(res.body.results[0].is_system_auditor, true);
      assert.equal(res.body.results[0].is_superuser, false);
      const wrong = await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'not-his')).expect(401);
      const unknown = await t.http().get('/api/v2/me/').set('Authorization', basic('nobody-at-all', 'whatever')).expect(401);
      assert.deepEqual(wrong.body, { detail: 'Invalid username/password.' });
      assert.deepEqual(unknown.body, wrong.body);
    });

    it('a directory user may add a second factor (SPEC §16): then the password alone is refused and the form asks for it', async () => {
      const bob = basic('bob', PASSWORDS.bob);
      const { secret } = (await t.http().post('/api/v2/me/mfa/totp/').set('Authorization', bob).send({}).expect(201)).body;
      const code = await generate({ secret, epoch: Math.floor(t.clock.now().getTime() / 1000) });
      await t.http().post('/api/v2/me/mfa/totp/confirm/').set('Authorization', bob).send({ code }).expect(200);
      const refused = await t.http().get('/api/v2/me/').set('Authorization', bob).expect(401);
      assert.deepEqual(refused.body, { detail: 'This account uses two-step verification; use a token.' });
      const form = await formLogin(t, 'bob', PASSWORDS.bob);
      assert.equal(form.status, 200);
      assert.match(form.text, /<label for="code">Authentication code<\/label>/);
      const id = (await user('bob'))!.id as number;
      await t.http().delete(`/api/v2/users/${id}/mfa/`).set('Authorization', ADMIN).expect(204);
      await t.http().get('/api/v2/me/').set('Authorization', bob).expect(200);
    });

    it('password grant: a directory user gets tokens once ALLOW_OAUTH2_FOR_EXTERNAL_USERS allows it', async () => {
      const app = await registerApp(t, ADMIN, { name: 'cli', client_type: 'public', authorization_grant_type: 'password' });
      const external = await tokenRequest(t, { grant_type: 'password', username: 'bob', password: PASSWORDS.bob }, { clientId: app.clientId });
      assert.equal(external.status, 403, JSON.stringify(external.body));
      assert.match(external.body.error_description, /external authentication provider \(ldap\)/);
      await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
      const res = await tokenRequest(t, { grant_type: 'password', username: 'bob', password: PASSWORDS.bob }, { clientId: app.clientId });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const me = await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
      assert.equal(me.body.results[0].username, 'bob');
      const wrong = await tokenRequest(t, { grant_type: 'password', username: 'bob', password: 'nope' }, { clientId: app.clientId });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, 'invalid_grant');
      await t.http().post('/api/v2/tokens/').set('Authorization', basic('bob', PASSWORDS.bob)).send({}).expect(201);
      await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
      const refused = await t.http().post('/api/v2/tokens/').set('Authorization', basic('bob', PASSWORDS.bob)).send({}).expect(403);
      assert.match(refused.body.detail, /external authentication provider \(ldap\)/);
    });

    it('a name is matched without case, and the directory spelling never makes a second user', async () => {
      await t.http().get('/api/v2/me/').set('Authorization', basic('ALICE', PASSWORDS.alice)).expect(200);
      const res = await t.http().get('/api/v2/users/?username__iexact=alice').set('Authorization', ADMIN).expect(200);
      assert.equal(res.body.count, 1);
    });

    it('flags follow the groups at every login: set, and later cleared', async () => {
      ldap.modify(`dn: ${DN.admins}\nchangetype: modify\nadd: member\nmember: ${DN.bob}\n-\ndelete: member\nmember: ${DN.alice}\n`);
      ldap.modify(`dn: ${DN.teamA}\nchangetype: modify\nadd: member\nmember: ${DN.alice}\n-\ndelete: member\nmember: ${DN.bob}\n`);
      assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, 302);
      assert.equal((await formLogin(t, 'bob', PASSWORDS.bob)).status, 302);
      const alice = await user('alice');
      const bob = await user('bob');
      assert.deepEqual([alice!.is_superuser, alice!.is_system_auditor], [false, true]);
      assert.deepEqual([bob!.is_superuser, bob!.is_system_auditor], [true, false]);
      // Attributes follow too.
      ldap.modify(`dn: ${DN.alice}\nchangetype: modify\nreplace: mail\nmail: alice.liddell@example.org\n`);
      assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, 302);
      assert.equal((await user('alice'))!.email, 'alice.liddell@example.org');
      // Back as they were, for the tests below.
      ldap.modify(`dn: ${DN.admins}\nchangetype: modify\nadd: member\nmember: ${DN.alice}\n-\ndelete: member\nmember: ${DN.bob}\n`);
      ldap.modify(`dn: ${DN.teamA}\nchangetype: modify\nadd: member\nmember: ${DN.bob}\n-\ndelete: member\nmember: ${DN.alice}\n`);
    });

    it('nested groups survive a cycle: cycle-a contains cycle-b, which contains cycle-a and dave', async () => {
      await configure({ AUTH_LDAP_USER_FLAGS_BY_GROUP: { is_system_auditor: [DN.cycleA] } });
      assert.equal((await formLogin(t, 'dave', PASSWORDS.dave)).status, 302);
      assert.equal((await user('dave'))!.is_system_auditor, true);
      const res = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'dave', password: PASSWORDS.dave }).expect(200);
      assert.deepEqual([...res.body.groups].sort(), [DN.cycleA, DN.cycleB].sort());
      // A non-nested type sees only the direct group.
      await configure({ AUTH_LDAP_GROUP_TYPE: 'GroupOfNamesType' });
      assert.equal((await formLogin(t, 'dave', PASSWORDS.dave)).status, 302);
      assert.equal((await user('dave'))!.is_system_auditor, false);
      await configure({ AUTH_LDAP_GROUP_TYPE: 'NestedGroupOfNamesType', AUTH_LDAP_USER_FLAGS_BY_GROUP: defaultDirectory(ldap).AUTH_LDAP_USER_FLAGS_BY_GROUP });
    });

    it('posixGroup: membership by memberUid and by the primary gidNumber', async () => {
      await configure({
        AUTH_LDAP_GROUP_TYPE: 'PosixGroupType',
        AUTH_LDAP_GROUP_SEARCH: [`ou=posix,${BASE}`, 'SCOPE_ONELEVEL', '(objectClass=posixGroup)'],
        AUTH_LDAP_USER_FLAGS_BY_GROUP: { is_superuser: DN.developers, is_system_auditor: [DN.ops] },
      });
      // alice: developers by gidNumber 5001, ops by memberUid; bob: developers by memberUid only.
      assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, 302);
      assert.equal((await formLogin(t, 'bob', PASSWORDS.bob)).status, 302);
      const alice = await user('alice');
      const bob = await user('bob');
      assert.deepEqual([alice!.is_superuser, alice!.is_system_auditor], [true, true]);
      assert.deepEqual([bob!.is_superuser, bob!.is_system_auditor], [true, false]);
    });

    it('groupOfUniqueNames: uniqueMember', async () => {
      await configure({
        AUTH_LDAP_GROUP_TYPE: 'GroupOfUniqueNamesType',
        AUTH_LDAP_GROUP_SEARCH: [`ou=unique,${BASE}`, 'SCOPE_SUBTREE', '(objectClass=groupOfUniqueNames)'],
        AUTH_LDAP_USER_FLAGS_BY_GROUP: { is_superuser: [DN.uniqueAdmins] },
      });
      assert.equal((await formLogin(t, 'bob', PASSWORDS.bob)).status, 302);
      assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, 302);
      assert.equal((await user('bob'))!.is_superuser, true);
      assert.equal((await user('alice'))!.is_superuser, false);
      await configure(defaultDirectory(ldap));
    });

    it('REQUIRE_GROUP and DENY_GROUP refuse exactly like a wrong password; the log event names the directory and reason', async () => {
      await configure({ AUTH_LDAP_REQUIRE_GROUP: DN.staff, AUTH_LDAP_DENY_GROUP: DN.banned });
      const from = t.logs.length;
      const outside = await formLogin(t, 'dave', PASSWORDS.dave);
      const banned = await formLogin(t, 'carol', PASSWORDS.carol);
      const wrong = await formLogin(t, 'alice', 'wrong-password');
      for (const res of [outside, banned, wrong]) {
        assert.equal(res.status, 401);
        assert.match(res.text, new RegExp(`role="alert">${LOGIN_FAILED.replace(/\./g, '\\.')}`));
      }
      const basicOutside = await t.http().get('/api/v2/me/').set('Authorization', basic('carol', PASSWORDS.carol)).expect(401);
      assert.deepEqual(basicOutside.body, { detail: 'Invalid username/password.' });
      const failed = events(from, 'login_failed');
      const reasons = failed.map((e) => [e.username, e.directory, e.reason]);
      assert.deepEqual(reasons.slice(0, 3), [
        // The gates are the maps' allow decisions (issue 55: decided once), named by the setting that refused.
        ['dave', 'default', 'access_refused: AUTH_LDAP_REQUIRE_GROUP'],
        ['carol', 'default', 'access_refused: AUTH_LDAP_DENY_GROUP'],
        ['alice', 'default', 'wrong_password'],
      ]);
      assert.equal(await user('carol'), undefined, 'a refused first login creates nobody');
      assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, 302, 'inside staff, outside banned');
      await configure({ AUTH_LDAP_REQUIRE_GROUP: null, AUTH_LDAP_DENY_GROUP: null });
    });

    it('a user search that finds more than one entry refuses the login (and says why in the log)', async () => {
      await configure({ AUTH_LDAP_USER_SEARCH: [PEOPLE, 'SCOPE_ONELEVEL', '(|(uid=%(user)s)(sn=Clash))'] });
      try {
        const from = t.logs.length;
        assert.equal((await formLogin(t, 'dave', PASSWORDS.dave)).status, 401);
        assert.deepEqual(events(from, 'login_failed').map((e) => [e.directory, e.reason]), [['default', 'ambiguous_user']]);
      } finally {
        await configure({ AUTH_LDAP_USER_SEARCH: defaultDirectory(ldap).AUTH_LDAP_USER_SEARCH });
      }
    });

    it('an empty password never binds: refused before any directory is asked', async () => {
      const from = t.logs.length;
      await t.http().get('/api/v2/me/').set('Authorization', 'Basic ' + Buffer.from('alice:').toString('base64')).expect(401);
      assert.equal(events(from, 'login_failed')[0]?.reason, 'empty_password');
      const res = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'alice', password: '' }).expect(200);
      assert.equal(res.body.would_login, false);
      assert.ok(res.body.steps.some((s: string) => /empty/.test(s)));
    });

    it('filter-injection usernames are refused and create nobody', async () => {
      const before = (await t.http().get('/api/v2/users/').set('Authorization', ADMIN).expect(200)).body.count;
      for (const name of ['*', 'a*', 'alice)(uid=*', '*)(|(uid=*', 'alice\\2a', '(uid=alice)', 'alice\u0000', 'al ice', 'uid=alice,ou=people']) {
        const res = await formLogin(t, name, PASSWORDS.alice);
        assert.equal(res.status, 401, name);
        await t.http().get('/api/v2/me/').set('Authorization', basic(name, PASSWORDS.alice)).expect(401);
      }
      assert.equal((await t.http().get('/api/v2/users/').set('Authorization', ADMIN).expect(200)).body.count, before);
    });

    it('USER_DN_TEMPLATE: the name is escaped per RFC 4514 ("+" in o+brien); without BIND_DN the search is anonymous', async () => {
      await configure({ AUTH_LDAP_USER_SEARCH: [], AUTH_LDAP_USER_DN_TEMPLATE: `uid=%(user)s,${PEOPLE}`, AUTH_LDAP_BIND_DN: '', AUTH_LDAP_BIND_PASSWORD: '' });
      const res = await formLogin(t, 'o+brien', PASSWORDS['o+brien']);
      assert.equal(res.status, 302, res.text.slice(0, 300));
      const miles = await user('o+brien');
      // The DN as the directory spells it (slapd answers the "+" as "\2B").
      assert.match(String(miles!.ldap_dn), /^uid=o(\\\+|\\2[Bb])brien,ou=people,dc=example,dc=org$/);
      assert.equal(miles!.last_name, "O'Brien");
      assert.equal((await formLogin(t, 'o+brien', 'wrong')).status, 401);
      await configure(defaultDirectory(ldap, { AUTH_LDAP_USER_DN_TEMPLATE: null }));
    });
  });

  describe('no takeover', () => {
    it('a local name, in any case, is never sent to a directory; a service account neither', async () => {
      await t.http().get('/api/v2/me/').set('Authorization', basic('localuser', 'Local-own-pw-1')).expect(200);
      // Three attempts in all: on MySQL the throttle's pairs match without case, so these are one pair.
      assert.equal((await formLogin(t, 'localuser', PASSWORDS.localuser)).status, 401);
      await t.http().get('/api/v2/me/').set('Authorization', basic('LocalUser', PASSWORDS.localuser)).expect(401);
      assert.equal((await formLogin(t, 'LOCALUSER', PASSWORDS.localuser)).status, 401);
      const local = await user('localuser');
      assert.equal(local!.external_account, null);
      await registerApp(t, ADMIN, { name: 'robot', client_type: 'confidential', authorization_grant_type: 'client-credentials' });
      const robot = await user('svc-robot');
      assert.equal(robot!.external_account, 'service');
      for (const name of ['svc-robot', 'SVC-Robot']) assert.equal((await formLogin(t, name, PASSWORDS['svc-robot'])).status, 401, name);
      const res = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'LocalUser', password: PASSWORDS.localuser }).expect(200);
      assert.equal(res.body.would_login, false);
      assert.match(res.body.steps.join('\n'), /belongs to the local user "localuser"/);
    });
  });

  describe('one account per directory entry (SPEC §14, issue 40)', () => {
    // slapd compares uid after Unicode preparation (RFC 4518: NFKC and case folding), so these bind as uid=lara.
    const LOOK_ALIKES = ['ｌａｒａ', '𝐥𝐚𝐫𝐚', 'ℓara'];
    const userCount = async () => (await t.http().get('/api/v2/users/').set('Authorization', ADMIN).expect(200)).body.count as number;
    const basicAs = (name: string, password = PASSWORDS.lara) => t.http().get('/api/v2/me/').set('Authorization', basic(name, password));
    /** The user a form login under `name` gives a session to, or the login's status when it gives none. */
    const sessionUser = async (name: string) => {
      const agent = t.agent();
      const res = await formLogin(t, name, PASSWORDS.lara, agent);
      if (res.status !== 302) return { status: res.status, text: res.text, agent };
      const me = await agent.get('/api/v2/me/').expect(200);
      return { status: res.status, text: res.text, agent, user: me.body.results[0] as Record<string, unknown> };
    };

    it('control: lara logs in under her own name (the first login creates her, a superuser by cn=admins)', async () => {
      const { status, user: lara } = await sessionUser('lara');
      assert.equal(status, 302);
      assert.equal(lara!.username, 'lara');
      assert.equal(lara!.ldap_dn, DN.lara);
      assert.equal(lara!.is_superuser, true);
    });

    it('look-alike spellings (fullwidth, mathematical bold, script ℓ) log in as lara\'s own account: same id, no new user', async () => {
      const lara = (await user('lara'))!;
      const before = await userCount();
      for (const name of LOOK_ALIKES) {
        const form = await sessionUser(name);
        assert.equal(form.status, 302, name);
        assert.deepEqual([form.user!.id, form.user!.username], [lara.id, 'lara'], name);
        const api = await basicAs(name).expect(200);
        assert.deepEqual([api.body.results[0].id, api.body.results[0].username], [lara.id, 'lara'], name);
      }
      assert.equal(await userCount(), before, 'no user was created');
      const bySpelling = await t.http().get(`/api/v2/users/?ldap_dn=${encodeURIComponent(DN.lara)}`).set('Authorization', ADMIN).expect(200);
      assert.equal(bySpelling.body.count, 1, 'one account holds the entry');
      // The explainer reads the name as a login does.
      const explained = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'ｌａｒａ', password: PASSWORDS.lara }).expect(200);
      assert.equal(explained.body.would_login, true);
      assert.match(explained.body.steps.join('\n'), new RegExp(`"lara" is a user of LDAP here \\(id ${String(lara.id)},`));
    });

    it('a deactivated lara is refused under every spelling, and no spelling mints an active account', async () => {
      const lara = (await user('lara'))!;
      const before = await userCount();
      await t.settings({ LOGIN_FAILURES_ALLOWED: 50 });
      await t.http().patch(`/api/v2/users/${String(lara.id)}/`).set('Authorization', ADMIN).send({ is_active: false }).expect(200);
      try {
        for (const name of ['lara', ...LOOK_ALIKES]) {
          const form = await sessionUser(name);
          assert.equal(form.status, 401, name);
          assert.match(form.text, new RegExp(`role="alert">${LOGIN_FAILED.replace(/\./g, '\\.')}`), name);
          const api = await basicAs(name).expect(401);
          assert.deepEqual(api.body, { detail: 'Invalid username/password.' }, name);
        }
        assert.equal(await userCount(), before, 'no user was created');
        assert.equal((await user('lara'))!.is_active, false);
      } finally {
        await t.http().patch(`/api/v2/users/${String(lara.id)}/`).set('Authorization', ADMIN).send({ is_active: true }).expect(200);
      }
      try {
        // Re-activated by a superuser, she logs in again (and the success clears this test's failures from the throttle).
        await basicAs('lara').expect(200);
      } finally {
        await t.settings({ LOGIN_FAILURES_ALLOWED: 5 });
      }
    });

    it('lara with a second factor still owes the second step under a look-alike spelling', async () => {
      const laraAuth = basic('lara', PASSWORDS.lara);
      const lara = (await user('lara'))!;
      const { secret } = (await t.http().post('/api/v2/me/mfa/totp/').set('Authorization', laraAuth).send({}).expect(201)).body;
      const code = await generate({ secret, epoch: Math.floor(t.clock.now().getTime() / 1000) });
      await t.http().post('/api/v2/me/mfa/totp/confirm/').set('Authorization', laraAuth).send({ code }).expect(200);
      try {
        for (const name of LOOK_ALIKES) {
          const form = await sessionUser(name);
          assert.equal(form.status, 200, name);
          assert.match(form.text, /<label for="code">Authentication code<\/label>/, name);
          await form.agent.get('/api/v2/me/').expect(401);
          const api = await basicAs(name).expect(401);
          assert.deepEqual(api.body, { detail: 'This account uses two-step verification; use a token.' }, name);
        }
      } finally {
        await t.http().delete(`/api/v2/users/${String(lara.id)}/mfa/`).set('Authorization', ADMIN).expect(204);
      }
    });

    it('the entry decides, not the typed name: a search that also matches mail logs lara in as lara (found by ldap_dn)', async () => {
      const lara = (await user('lara'))!;
      const before = await userCount();
      await configure({ AUTH_LDAP_USER_SEARCH: [PEOPLE, 'SCOPE_ONELEVEL', '(|(uid=%(user)s)(mail=%(user)s))'] });
      try {
        const form = await sessionUser('lara@example.org');
        assert.equal(form.status, 302);
        assert.deepEqual([form.user!.id, form.user!.username], [lara.id, 'lara']);
        const api = await basicAs('LARA@example.org').expect(200);
        assert.equal(api.body.results[0].id, lara.id);
        assert.equal(await userCount(), before, 'no user was created');
      } finally {
        await configure({ AUTH_LDAP_USER_SEARCH: defaultDirectory(ldap).AUTH_LDAP_USER_SEARCH });
      }
    });

    it('a look-alike of a local name is that local account: never sent to a directory, never a new user', async () => {
      const before = await userCount();
      const local = await t.http().get('/api/v2/me/').set('Authorization', basic('ｌｏｃａｌｕｓｅｒ', 'Local-own-pw-1')).expect(200);
      assert.equal(local.body.results[0].username, 'localuser');
      // The directory's localuser entry has its own password: it proves nothing here.
      assert.equal((await formLogin(t, 'ｌｏｃａｌｕｓｅｒ', PASSWORDS.localuser)).status, 401);
      await t.http().get('/api/v2/me/').set('Authorization', basic('ａｄｍｉｎ', ADMIN_PASSWORD)).expect(200);
      assert.equal(await userCount(), before, 'no user was created');
    });
  });

  describe('the API and the directory', () => {
    it('refuses changes to what the directory owns: username, mapped fields, mapped flags, password', async () => {
      const alice = (await user('alice'))!;
      const url = `/api/v2/users/${alice.id}/`;
      for (const [field, value] of [['username', 'alice2'], ['first_name', 'Al'], ['email', 'x@example.org'], ['is_superuser', !alice.is_superuser], ['password', 'New-pass-123']] as const) {
        const res = await t.http().patch(url).set('Authorization', ADMIN).send({ [field]: value }).expect(400);
        assert.deepEqual(res.body, { [field]: [`Unable to change ${field} on user managed by LDAP.`] });
      }
      // The same values, and what the directory does not own, may be sent.
      await t.http().patch(url).set('Authorization', ADMIN).send({ first_name: alice.first_name, is_active: true }).expect(200);
      const own = await t.http().patch(url).set('Authorization', basic('alice', PASSWORDS.alice)).send({ password: 'Mine-123', old_password: PASSWORDS.alice }).expect(400);
      assert.deepEqual(own.body, { password: ['Unable to change password on user managed by LDAP.'] });
    });

    it('DISABLE_LOCAL_AUTH: a configured directory counts as a remote method, and its users keep logging in', async () => {
      await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ DISABLE_LOCAL_AUTH: true }).expect(200);
      try {
        assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, 302);
        await t.http().get('/api/v2/me/').set('Authorization', basic('bob', PASSWORDS.bob)).expect(200);
        const local = await t.http().get('/api/v2/me/').set('Authorization', basic('localuser', 'Local-own-pw-1')).expect(401);
        assert.equal(local.body.detail, 'Local authentication is disabled.');
        // Still no takeover while local logins are off.
        await t.http().get('/api/v2/me/').set('Authorization', basic('LOCALUSER', PASSWORDS.localuser)).expect(401);
      } finally {
        await t.settings({ DISABLE_LOCAL_AUTH: false });
      }
    });
  });

  describe('the directory down, and TLS', () => {
    it('directory down: 503 on form, basic and password grant, uncounted by the throttle; local users unaffected', async () => {
      await t.settings({ LOGIN_FAILURES_ALLOWED: 2 });
      const app = await registerApp(t, ADMIN, { name: 'outage', client_type: 'public', authorization_grant_type: 'password' });
      await ldap.stop();
      try {
        for (let i = 0; i < 4; i++) {
          const form = await formLogin(t, 'alice', PASSWORDS.alice);
          assert.equal(form.status, 503);
          assert.match(form.text, /<div class="alert" role="alert">The login directory is unavailable; try again later\.<\/div>/);
          const api = await t.http().get('/api/v2/me/').set('Authorization', basic('alice', `${PASSWORDS.alice}-${i}`)).expect(503);
          assert.deepEqual(api.body, UNAVAILABLE);
          const grant = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: PASSWORDS.alice }, { clientId: app.clientId });
          assert.equal(grant.status, 503);
          assert.deepEqual(grant.body, UNAVAILABLE);
        }
        // Local users log in as ever; names of local accounts never reach the directory, so no 503 for them.
        await t.http().get('/api/v2/me/').set('Authorization', ADMIN).expect(200);
        assert.equal((await formLogin(t, 'admin', ADMIN_PASSWORD)).status, 302);
        await t.createUser('outsider', 'Outsider-pass-1');
        assert.equal((await formLogin(t, 'OUTSIDER', 'Outsider-pass-1')).status, 401);
        // Injection-shaped names are refused before any directory: 401, not 503.
        await t.http().get('/api/v2/me/').set('Authorization', basic('*)(cn=*', 'x')).expect(401);
        const ds = t.app.get<DataSource>(getDataSourceToken());
        const rows = (await ds.query('SELECT failures, pending FROM login_failure WHERE username = ?', ['alice'])) as { failures: number; pending: number }[];
        assert.ok(rows.length >= 1);
        for (const row of rows) assert.deepEqual([Number(row.failures), Number(row.pending)], [0, 0]);
      } finally {
        await ldap.start();
      }
      assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, 302, 'the throttle did not move: no 429');
      await t.settings({ LOGIN_FAILURES_ALLOWED: 5 });
    });

    it('a service account the directory refuses (wrong BIND_PASSWORD) is a 503, not the user\'s failure', async () => {
      await configure({ AUTH_LDAP_BIND_PASSWORD: 'not-the-reader-password' });
      try {
        const res = await t.http().get('/api/v2/me/').set('Authorization', basic('alice', `${PASSWORDS.alice}!`)).expect(503);
        assert.deepEqual(res.body, UNAVAILABLE);
        const explained = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'alice', password: PASSWORDS.alice }).expect(200);
        assert.equal(explained.body.would_login, false);
        assert.match(explained.body.steps.join('\n'), /refused BIND_DN .*check AUTH_LDAP_BIND_DN and its password/);
      } finally {
        await configure({ AUTH_LDAP_BIND_PASSWORD: READER_PASSWORD });
      }
    });

    it('failover: the URIs are tried in order; an unreachable first one is skipped', async () => {
      await configure({ AUTH_LDAP_SERVER_URI: `ldap://127.0.0.1:${deadPort}, ${ldap.ldapUrl}` });
      assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, 302);
      const res = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'alice', password: PASSWORDS.alice }).expect(200);
      assert.equal(res.body.would_login, true);
      assert.match(res.body.steps.join('\n'), new RegExp(`Could not use ldap://127\\.0\\.0\\.1:${deadPort}: ECONNREFUSED`));
      assert.match(res.body.steps.join('\n'), new RegExp(`Connected to ${ldap.ldapUrl.replace(/\./g, '\\.')}`));
      await configure({ AUTH_LDAP_SERVER_URI: `ldap://127.0.0.1:${deadPort}` });
      await t.http().get('/api/v2/me/').set('Authorization', basic('alice', PASSWORDS.alice + 'x')).expect(503);
    });

    it('StartTLS and ldaps:// with CA_CERT; a wrong CA, or none, is refused as unavailable', async () => {
      const wrongCa = certificateAuthority('Somebody else').certPem;
      const cases: [string, Record<string, unknown>, number][] = [
        ['StartTLS, right CA', { AUTH_LDAP_SERVER_URI: ldap.ldapUrl, AUTH_LDAP_START_TLS: true, AUTH_LDAP_CA_CERT: ldap.ca.certPem }, 302],
        ['ldaps, right CA', { AUTH_LDAP_SERVER_URI: ldap.ldapsUrl, AUTH_LDAP_START_TLS: false, AUTH_LDAP_CA_CERT: ldap.ca.certPem }, 302],
        ['StartTLS, wrong CA', { AUTH_LDAP_SERVER_URI: ldap.ldapUrl, AUTH_LDAP_START_TLS: true, AUTH_LDAP_CA_CERT: wrongCa }, 503],
        ['ldaps, wrong CA', { AUTH_LDAP_SERVER_URI: ldap.ldapsUrl, AUTH_LDAP_START_TLS: false, AUTH_LDAP_CA_CERT: wrongCa }, 503],
        ['ldaps, no CA_CERT', { AUTH_LDAP_SERVER_URI: ldap.ldapsUrl, AUTH_LDAP_CA_CERT: '' }, 503],
      ];
      for (const [name, values, status] of cases) {
        await configure(values);
        assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, status, name);
      }
      const res = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'alice', password: PASSWORDS.alice }).expect(200);
      assert.equal(res.body.would_login, false);
      assert.match(res.body.steps.join('\n'), /certificate|UNABLE_TO_VERIFY|SELF_SIGNED/i);
      assert.match(res.body.steps.join('\n'), /would answer 503/);
      await configure(defaultDirectory(ldap, { AUTH_LDAP_START_TLS: false, AUTH_LDAP_CA_CERT: '' }));
    });
  });

  describe('more directories, and the basic-auth re-check', () => {
    it('a second directory: the default one does not know erin, directory 1 does', async () => {
      await configure({
        AUTH_LDAP_1_SERVER_URI: ldap.ldapUrl,
        AUTH_LDAP_1_USER_DN_TEMPLATE: `uid=%(user)s,ou=people,${PARTNERS}`,
        AUTH_LDAP_1_USER_FLAGS_BY_GROUP: {},
      });
      const from = t.logs.length;
      await t.http().get('/api/v2/me/').set('Authorization', basic('erin', PASSWORDS.erin)).expect(200);
      const erin = await user('erin');
      assert.equal(erin!.ldap_dn, `uid=erin,ou=people,${PARTNERS}`);
      assert.equal(erin!.email, 'erin@partners.org');
      assert.ok(t.logs.slice(from).some((l) => l.includes('"event":"ldap_user_created"') && l.includes('"directory":"1"')));
      // The first directory that finds a name decides: alice is the default directory's.
      const res = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'erin', password: PASSWORDS.erin, server: '1' }).expect(200);
      assert.equal(res.body.would_login, true);
      assert.equal(res.body.dn, `uid=erin,ou=people,${PARTNERS}`);
    });

    it('the login throttle covers directory logins: wrong directory passwords count, then 429 even for the right one', async () => {
      await t.settings({ LOGIN_FAILURES_ALLOWED: 2 });
      try {
        assert.equal((await formLogin(t, 'erin', 'wrong-1')).status, 401);
        await t.http().get('/api/v2/me/').set('Authorization', basic('erin', 'wrong-2')).expect(401);
        const throttled = await formLogin(t, 'erin', PASSWORDS.erin);
        assert.equal(throttled.status, 429);
        assert.ok(Number(throttled.headers['retry-after']) > 0);
      } finally {
        await t.settings({ LOGIN_FAILURES_ALLOWED: 5 });
      }
    });

    it('basic auth re-checks a directory user after AUTH_LDAP_CACHE_SECONDS: a password changed there stops the old one', async () => {
      await t.settings({ AUTH_LDAP_CACHE_SECONDS: 60 });
      const old = basic('bob', PASSWORDS.bob);
      await t.http().get('/api/v2/me/').set('Authorization', old).expect(200);
      const next = 'Bob-dir-pw-2';
      ldap.modify(`dn: ${DN.bob}\nchangetype: modify\nreplace: userPassword\nuserPassword: ${next}\n`);
      // Within the period the repeat is trusted; once it has passed, the directory is asked again.
      await t.http().get('/api/v2/me/').set('Authorization', old).expect(200);
      t.clock.advance(61);
      await t.http().get('/api/v2/me/').set('Authorization', old).expect(401);
      await t.http().get('/api/v2/me/').set('Authorization', basic('bob', next)).expect(200);
      // 0: every request asks the directory.
      await t.settings({ AUTH_LDAP_CACHE_SECONDS: 0 });
      await t.http().get('/api/v2/me/').set('Authorization', basic('bob', next)).expect(200);
      ldap.modify(`dn: ${DN.bob}\nchangetype: modify\nreplace: userPassword\nuserPassword: ${PASSWORDS.bob}\n`);
      await t.http().get('/api/v2/me/').set('Authorization', basic('bob', next)).expect(401);
      await t.http().get('/api/v2/me/').set('Authorization', basic('bob', PASSWORDS.bob)).expect(200);
      await t.settings({ AUTH_LDAP_CACHE_SECONDS: 60 });
    });
  });

  describe('the explainer', () => {
    it('POST /api/v2/settings/ldap/test/ tells what a login would do and why, changing nothing', async () => {
      await configure({ AUTH_LDAP_REQUIRE_GROUP: DN.staff, AUTH_LDAP_DENY_GROUP: DN.banned });
      const bobBefore = await user('bob');
      const res = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ server: 'default', username: 'bob', password: PASSWORDS.bob }).expect(200);
      assert.deepEqual(Object.keys(res.body).sort(), ['dn', 'flags', 'groups', 'maps', 'steps', 'would_login']);
      assert.equal(res.body.would_login, true);
      assert.equal(res.body.dn, DN.bob);
      assert.deepEqual([...res.body.groups].sort(), [DN.auditors, DN.staff, DN.teamA].sort());
      assert.deepEqual(res.body.flags, { is_superuser: false, is_system_auditor: true });
      const text = res.body.steps.join('\n');
      assert.match(text, /USER_SEARCH \(uid=bob\) under ou=people,dc=example,dc=org: found uid=bob/);
      assert.match(text, /Group cn=staff,ou=groups,dc=example,dc=org: member/);
      assert.match(text, /Group cn=banned,ou=groups,dc=example,dc=org: not a member/);
      // The flags as the login sets them: decided once, by the maps (issue 55).
      assert.match(text, /is_system_auditor: set, by AUTH_LDAP_USER_FLAGS_BY_GROUP\.is_system_auditor/);
      assert.match(text, /is_superuser: cleared, by AUTH_LDAP_USER_FLAGS_BY_GROUP\.is_superuser/);
      const carol = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'carol', password: PASSWORDS.carol }).expect(200);
      assert.equal(carol.body.would_login, false);
      assert.match(carol.body.steps.join('\n'), /Verdict: refused by AUTH_LDAP_DENY_GROUP \(an allow decision of the maps\)/);
      const newcomer = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'o+brien', password: PASSWORDS['o+brien'] }).expect(200);
      assert.equal(newcomer.body.would_login, true);
      // Nothing changed: no user created, no flag moved.
      assert.deepEqual(await user('bob'), bobBefore);
      assert.equal(await user('carol'), undefined);
      const bad = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ server: '9', username: 'bob', password: 'x' }).expect(400);
      assert.ok(bad.body.server);
      await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'bob' }).expect(400);
      await configure({ AUTH_LDAP_REQUIRE_GROUP: null, AUTH_LDAP_DENY_GROUP: null });
    });

    it('ldap_test prints the steps and exits 0 when the login would succeed, 1 otherwise', () => {
      const env = { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey };
      const ok = runManage(['ldap_test', '--username', 'alice', '--password', PASSWORDS.alice], env);
      assert.equal(ok.status, 0, ok.stderr + ok.stdout);
      assert.match(ok.stdout, /found uid=alice,ou=people,dc=example,dc=org/);
      assert.match(ok.stdout, /^DN: uid=alice,ou=people,dc=example,dc=org$/m);
      assert.match(ok.stdout, /^Flags: is_superuser=true is_system_auditor=false$/m);
      assert.match(ok.stdout, /^Result: the login would succeed\.$/m);
      const wrong = runManage(['ldap_test', '--server', 'default', '--username', 'alice'], { ...env, MANAGE_PASSWORD: 'wrong-one' });
      assert.equal(wrong.status, 1);
      assert.match(wrong.stdout, /Binding as uid=alice,ou=people,dc=example,dc=org failed: invalid credentials/);
      assert.match(wrong.stdout, /^Result: the login would be refused\.$/m);
      const partner = runManage(['ldap_test', '--server', '1', '--username', 'erin', '--password', PASSWORDS.erin], env);
      assert.equal(partner.status, 0, partner.stdout);
      const unknownServer = runManage(['ldap_test', '--server', '7', '--username', 'alice', '--password', 'x'], env);
      assert.equal(unknownServer.status, 1);
      assert.match(unknownServer.stderr, /^Error: --server must be one of default, 1, 2, 3, 4, 5\.$/m);
      // The directory owns an LDAP user's password: changepassword refuses it as the API does.
      const change = runManage(['changepassword', 'alice', '--password', 'Local-pw-123'], env);
      assert.equal(change.status, 1);
      assert.match(change.stderr, /^Error: password: Unable to change password on user managed by LDAP\.$/m);
      const noName = runManage(['ldap_test', '--password', 'x'], env);
      assert.equal(noName.status, 1);
      assert.match(noName.stderr, /--username is required/);
      for (const out of [ok, wrong, partner]) assert.ok(!(out.stdout + out.stderr).includes(PASSWORDS.alice) && !out.stdout.includes(PASSWORDS.erin));
    });
  });

  it('never puts a password in a log line, an error body or a settings read', () => {
    const joined = t.logs.join('\n');
    for (const secret of [...Object.values(PASSWORDS), READER_PASSWORD, 'Bob-dir-pw-2']) assert.ok(!joined.includes(secret), secret);
  });
});
