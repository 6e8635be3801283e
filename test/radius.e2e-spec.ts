import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import { generate } from 'otplib';
import type { DataSource } from 'typeorm';
import { cookieValue } from './support/browser-login';
import { FreeRadiusServer, RadiusAccount } from './support/freeradius-server';
import { defaultDirectory, PASSWORDS as LDAP_PASSWORDS, startDirectory } from './support/ldap-directory';
import { registerApp, tokenRequest } from './support/oauth2';
import { ATTRIBUTE, CODE, readRequest, requestMacVerifies, revealPassword } from './support/radius-replies';
import { RadiusStandIn } from './support/radius-stand-in';
import { runManage } from './support/service-process';
import type { SlapdServer } from './support/slapd-server';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const UNAVAILABLE = { detail: 'The RADIUS server is unavailable; try again later.' };
const WRONG_PASSWORD = { detail: 'Invalid username/password.' };
const LOGIN_FAILED = 'Please enter a correct username and password. Note that both fields may be case-sensitive.';
const FLAGS = { is_superuser_attr: 'Class', is_superuser_value: 'awx-admins', is_system_auditor_attr: 'Filter-Id', is_system_auditor_value: ['awx-auditors', 'auditors'] };

/** The RADIUS server's accounts (their passwords are RADIUS's: none of them may ever show up anywhere). */
const PASSWORDS = {
  rita: 'Rita-radius-pw-1',
  ravi: 'Ravi-radius-pw-1',
  chuck: 'Chuck-radius-pw-1',
  nomac: 'Nomac-radius-pw-1',
  basil: 'Basil-radius-pw-1',
  basilNext: 'Basil-radius-pw-2',
  tess: 'Tess-radius-pw-1',
  mona: 'Mona-radius-pw-1',
  una: 'Una-radius-pw-1',
  nina: 'Nina-radius-pw-1',
  localuser: 'Local-in-radius-pw-1',
  alice: 'Alice-in-radius-pw-1',
};
const ACCOUNTS: Record<string, RadiusAccount> = {
  rita: { password: PASSWORDS.rita, reply: [['Class', 'awx-admins'], ['Filter-Id', 'awx-auditors']] },
  ravi: { password: PASSWORDS.ravi, reply: [['Filter-Id', 'ops']] },
  chuck: { password: PASSWORDS.chuck, challenge: true },
  nomac: { password: PASSWORDS.nomac, reply: [['Class', 'awx-admins']], noMessageAuthenticator: true },
  rejected: { reject: true },
  basil: { password: PASSWORDS.basil },
  tess: { password: PASSWORDS.tess },
  mona: { password: PASSWORDS.mona },
  una: { password: PASSWORDS.una },
  nina: { password: PASSWORDS.nina, reply: [['Class', 'awx-admins']] },
  // Names another source holds: RADIUS knows them too, and must never be asked about them.
  localuser: { password: PASSWORDS.localuser },
  alice: { password: PASSWORDS.alice },
};

describe(`RADIUS logins (SPEC §20, issue 41, ${TEST_DB})`, () => {
  let t: TestApp;
  let radius: FreeRadiusServer;
  let standIn: RadiusStandIn;
  let ldap: SlapdServer;

  const patch = (values: Record<string, unknown>, auth = ADMIN) => t.http().patch('/api/v2/settings/radius/').set('Authorization', auth).send(values);
  const configure = async (values: Record<string, unknown>) => {
    const res = await patch(values);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Record<string, unknown>;
  };
  /** Points the service at a RADIUS server on loopback: a new address, so the secret comes again in clear. */
  const pointAt = (port: number, extra: Record<string, unknown> = {}) =>
    configure({ RADIUS_SERVER: '127.0.0.1', RADIUS_PORT: port, RADIUS_SECRET: radius.secret, ...extra });
  const user = async (username: string) => {
    const res = await t.http().get(`/api/v2/users/?username=${encodeURIComponent(username)}`).set('Authorization', ADMIN).expect(200);
    return res.body.results[0] as Record<string, unknown> | undefined;
  };
  const from = (address: string) => ({ 'X-Forwarded-For': address });
  const basicAs = (username: string, password: string, headers: Record<string, string> = {}) =>
    t.http().get('/api/v2/me/').set(headers).set('Authorization', basic(username, password));
  /** POSTs the login form as a browser does; answers the response whatever its status. */
  const formLogin = async (username: string, password: string, agent = t.agent()) => {
    const page = await agent.get('/api/login/').expect(200);
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    return agent.post('/api/login/').set('X-CSRFToken', csrf).set('Referer', `${t.url}/api/login/`).type('form').send({ username, password });
  };
  const events = (since: number, event: string) =>
    t.logs.slice(since).map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.event === event);
  const explain = (username: string, password: string) =>
    t.http().post('/api/v2/settings/radius/test/').set('Authorization', ADMIN).send({ username, password }).expect(200);

  before(async () => {
    radius = new FreeRadiusServer();
    await radius.start(ACCOUNTS);
    standIn = new RadiusStandIn(radius.secret);
    await standIn.start();
    ldap = await startDirectory();
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    await t.createUser('localuser', 'Local-own-pw-1');
  });
  after(async () => {
    await t?.close();
    standIn?.close();
    await radius?.destroy();
    await ldap?.destroy();
  });

  describe('settings (/api/v2/settings/radius/)', () => {
    it("lists AWX's keys and ours with their defaults, in the category list and in all", async () => {
      const res = await t.http().get('/api/v2/settings/radius/').set('Authorization', ADMIN).expect(200);
      assert.deepEqual(res.body, {
        RADIUS_SERVER: '',
        RADIUS_PORT: 1812,
        RADIUS_SECRET: '',
        RADIUS_TIMEOUT: 5,
        RADIUS_RETRIES: 2,
        RADIUS_NAS_IDENTIFIER: 'awx',
        RADIUS_CACHE_SECONDS: 60,
        RADIUS_USER_FLAGS_BY_ATTR: {},
      });
      const list = await t.http().get('/api/v2/settings/').set('Authorization', ADMIN).expect(200);
      assert.ok(list.body.results.some((c: { slug: string; name: string }) => c.slug === 'radius' && c.name === 'RADIUS'));
      const all = await t.http().get('/api/v2/settings/all/').set('Authorization', ADMIN).expect(200);
      assert.equal(all.body.RADIUS_NAS_IDENTIFIER, 'awx');
    });

    const bad: [string, Record<string, unknown>, RegExp][] = [
      ['a scheme in the server', { RADIUS_SERVER: 'radius://radius.example.org' }, /without a scheme/],
      ['a port in the server', { RADIUS_SERVER: 'radius.example.org:1812' }, /without a port/],
      ['a bracketed IPv6 address with a port', { RADIUS_SERVER: '[2001:db8::1]:1812' }, /without a port/],
      ['a space in the server', { RADIUS_SERVER: 'radius example.org' }, /without spaces/],
      ['a server that is no host name', { RADIUS_SERVER: 'radius_1!.example.org' }, /valid host name or IP address/],
      ['port 0', { RADIUS_PORT: 0 }, /greater than or equal to 1/],
      ['port 65536', { RADIUS_PORT: 65536 }, /less than or equal to 65535/],
      ['a port that is text', { RADIUS_PORT: '1812' }, /valid integer/],
      ['a timeout of 0', { RADIUS_TIMEOUT: 0 }, /greater than or equal to 1/],
      ['a timeout over 60', { RADIUS_TIMEOUT: 61 }, /less than or equal to 60/],
      ['retries below 0', { RADIUS_RETRIES: -1 }, /greater than or equal to 0/],
      ['retries over 10', { RADIUS_RETRIES: 11 }, /less than or equal to 10/],
      ['an empty NAS-Identifier', { RADIUS_NAS_IDENTIFIER: '' }, /1 to 253 octets/],
      ['a NAS-Identifier of 254 octets', { RADIUS_NAS_IDENTIFIER: 'é'.repeat(127) }, /1 to 253 octets/],
      ['a cache period below 0', { RADIUS_CACHE_SECONDS: -1 }, /greater than or equal to 0/],
      ['an unknown flag key', { RADIUS_USER_FLAGS_BY_ATTR: { is_god_attr: 'Class' } }, /is_god_attr/],
      ['an attribute other than Class or Filter-Id', { RADIUS_USER_FLAGS_BY_ATTR: { is_superuser_attr: 'User-Name' } }, /not a valid choice/],
      ['a flag value that is no text', { RADIUS_USER_FLAGS_BY_ATTR: { is_superuser_attr: 'Class', is_superuser_value: [7] } }, /valid string/],
      ['a secret with a NUL', { RADIUS_SECRET: 'abc\u0000def' }, /NUL/],
    ];
    for (const [name, values, message] of bad) {
      it(`refuses ${name} with a 400 naming the key, and stores nothing`, async () => {
        const key = Object.keys(values)[0];
        const before = await t.http().get('/api/v2/settings/radius/').set('Authorization', ADMIN).expect(200);
        const res = await patch(values).expect(400);
        assert.deepEqual(Object.keys(res.body), [key], JSON.stringify(res.body));
        assert.match(res.body[key][0], message);
        const afterwards = await t.http().get('/api/v2/settings/radius/').set('Authorization', ADMIN).expect(200);
        assert.deepEqual(afterwards.body, before.body);
      });
    }

    it('a server needs its secret; the secret is write-only, stored encrypted; only superusers write, auditors read', async () => {
      const lonely = await patch({ RADIUS_SERVER: '127.0.0.1' }).expect(400);
      assert.deepEqual(Object.keys(lonely.body), ['RADIUS_SECRET']);
      assert.match(lonely.body.RADIUS_SECRET[0], /needs its shared secret/);
      assert.equal((await t.http().get('/api/v2/settings/radius/').set('Authorization', ADMIN)).body.RADIUS_SERVER, '', 'nothing stored');
      // Server and secret in one write, as AWX's form sends them.
      const body = await pointAt(radius.port, { RADIUS_TIMEOUT: 1, RADIUS_RETRIES: 0, RADIUS_USER_FLAGS_BY_ATTR: FLAGS });
      assert.equal(body.RADIUS_SECRET, '$encrypted$');
      assert.deepEqual(body.RADIUS_USER_FLAGS_BY_ATTR, { ...FLAGS, is_superuser_value: ['awx-admins'] }, 'a string value is a one-item list');
      const all = await t.http().get('/api/v2/settings/all/').set('Authorization', ADMIN).expect(200);
      assert.equal(all.body.RADIUS_SECRET, '$encrypted$');
      const keyColumn = TEST_DB === 'mysql' ? '`key`' : '"key"';
      const rows = await t.app.get<DataSource>(getDataSourceToken()).query(`SELECT value FROM conf_setting WHERE ${keyColumn} = 'RADIUS_SECRET'`);
      assert.ok(!String(rows[0].value).includes(radius.secret), 'stored encrypted');
      // An empty secret for a configured server is refused too.
      assert.deepEqual(Object.keys((await patch({ RADIUS_SECRET: '' }).expect(400)).body), ['RADIUS_SECRET']);
      await t.createUser('auditor', 'Auditor-pass-1', { is_system_auditor: true });
      await t.createUser('plain', 'Plain-pass-1');
      const read = await t.http().get('/api/v2/settings/radius/').set('Authorization', basic('auditor', 'Auditor-pass-1')).expect(200);
      assert.equal(read.body.RADIUS_SECRET, '$encrypted$');
      await patch({ RADIUS_TIMEOUT: 2 }, basic('auditor', 'Auditor-pass-1')).expect(403);
      await t.http().get('/api/v2/settings/radius/').set('Authorization', basic('plain', 'Plain-pass-1')).expect(403);
    });

    it('a new address needs the secret again in clear; "$encrypted$" or no secret is a 400; turning RADIUS off never needs it', async () => {
      for (const values of [{ RADIUS_PORT: 1645 }, { RADIUS_SERVER: 'localhost' }, { RADIUS_SERVER: '127.0.0.2', RADIUS_SECRET: '$encrypted$' }]) {
        const res = await patch(values).expect(400);
        assert.deepEqual(Object.keys(res.body), ['RADIUS_SECRET'], JSON.stringify(values));
        assert.match(res.body.RADIUS_SECRET[0], /address changed/);
      }
      // The same address, written back as a GET showed it: the stored secret is kept.
      const shown = (await t.http().get('/api/v2/settings/radius/').set('Authorization', ADMIN).expect(200)).body;
      await t.http().put('/api/v2/settings/radius/').set('Authorization', ADMIN).send(shown).expect(200);
      await configure({ RADIUS_SERVER: '127.0.0.2', RADIUS_SECRET: radius.secret });
      await configure({ RADIUS_SERVER: '' });
      const off = await t.http().get('/api/v2/settings/radius/').set('Authorization', ADMIN).expect(200);
      assert.deepEqual([off.body.RADIUS_SERVER, off.body.RADIUS_SECRET], ['', '$encrypted$']);
      await pointAt(radius.port);
    });

    it('the stored secret stays tied to the address it was typed with, also through RADIUS off (PATCH, PUT, all; every node)', async () => {
      const read = async () => (await t.http().get('/api/v2/settings/radius/').set('Authorization', ADMIN).expect(200)).body as Record<string, unknown>;
      const refusedAndNothingStored = async (res: { status: number; body: Record<string, string[]> }, what: string) => {
        assert.equal(res.status, 400, what);
        assert.deepEqual(Object.keys(res.body), ['RADIUS_SECRET'], what);
        assert.match(res.body.RADIUS_SECRET[0], /address changed/, what);
        const now = await read();
        assert.deepEqual([now.RADIUS_SERVER, now.RADIUS_PORT, now.RADIUS_TIMEOUT], ['', radius.port, 1], `${what}: nothing of the write stored`);
      };
      await configure({ RADIUS_SERVER: '' });
      const shown = await read();
      assert.ok(!('RADIUS_SECRET_ADDRESS' in shown), 'the address the secret belongs to is not shown');
      const elsewhere = { RADIUS_SERVER: '127.0.0.2', RADIUS_TIMEOUT: 3 };
      await refusedAndNothingStored(await patch(elsewhere), 'PATCH at another host');
      await refusedAndNothingStored(await patch({ ...elsewhere, RADIUS_SECRET: '$encrypted$' }), 'PATCH with "$encrypted$"');
      await refusedAndNothingStored(await patch({ RADIUS_SERVER: '127.0.0.1', RADIUS_PORT: radius.port + 1, RADIUS_TIMEOUT: 3 }), 'PATCH: the port moved');
      await refusedAndNothingStored(await t.http().put('/api/v2/settings/radius/').set('Authorization', ADMIN).send({ ...shown, ...elsewhere }), 'PUT');
      await refusedAndNothingStored(await t.http().patch('/api/v2/settings/all/').set('Authorization', ADMIN).send(elsewhere), 'PATCH of all');
      // Another node (or this one after a restart) reads the same binding from the database.
      const other = await startTestApp({ db: t.db, env: { TRUSTED_PROXIES: '127.0.0.1' } });
      try {
        const res = await other.http().patch('/api/v2/settings/radius/').set('Authorization', ADMIN).send(elsewhere);
        await refusedAndNothingStored(res, 'PATCH on another node');
      } finally {
        await other.close();
      }
      assert.equal((await patch({ RADIUS_SECRET_ADDRESS: { server: '127.0.0.2', port: radius.port } }).expect(400)).body.RADIUS_SECRET_ADDRESS.length, 1);
      // The same address again needs nothing: the secret was typed for it.
      assert.equal((await configure({ RADIUS_SERVER: '127.0.0.1' })).RADIUS_SERVER, '127.0.0.1');
      assert.equal((await explain('ravi', PASSWORDS.ravi)).body.reply, 'Access-Accept', 'the kept secret still works at its address');
      // With the secret in clear the new address is taken, and the secret is now tied to it, not to the old one.
      await configure({ RADIUS_SERVER: '' });
      await configure({ ...elsewhere, RADIUS_SECRET: radius.secret, RADIUS_TIMEOUT: 1 });
      await configure({ RADIUS_SERVER: '' });
      const back = await patch({ RADIUS_SERVER: '127.0.0.1' }).expect(400);
      assert.match(back.body.RADIUS_SECRET[0], /address changed/);
      // A secret typed while RADIUS is off belongs to no address: the next server needs it again.
      await configure({ RADIUS_SECRET: radius.secret });
      await patch({ RADIUS_SERVER: '127.0.0.2' }).expect(400);
      await pointAt(radius.port);
    });
  });

  describe('logging in', () => {
    it('the login form: the first Access-Accept creates the user (external_account "radius", flags from Class and Filter-Id)', async () => {
      assert.equal(await user('rita'), undefined);
      const agent = t.agent();
      const res = await formLogin('rita', PASSWORDS.rita, agent);
      assert.equal(res.status, 302, res.text.slice(0, 300));
      const rita = (await user('rita'))!;
      assert.deepEqual(
        [rita.external_account, rita.is_superuser, rita.is_system_auditor, rita.first_name, rita.last_name, rita.email],
        ['radius', true, true, '', '', ''],
      );
      assert.equal((await agent.get('/api/v2/me/').expect(200)).body.results[0].id, rita.id);
      const page = await agent.get('/accounts/profile/').expect(200);
      assert.match(page.text, /<dd>RADIUS<\/dd>/);
      assert.match(page.text, /id="tab-security"/);
    });

    it('basic auth: ravi is created without flags; a wrong password answers as for anyone', async () => {
      const res = await basicAs('ravi', PASSWORDS.ravi).expect(200);
      assert.deepEqual([res.body.results[0].username, res.body.results[0].is_superuser, res.body.results[0].is_system_auditor], ['ravi', false, false]);
      const wrong = await basicAs('ravi', 'not-his').expect(401);
      const unknown = await basicAs('nobody-at-all', 'whatever').expect(401);
      assert.deepEqual(wrong.body, WRONG_PASSWORD);
      assert.deepEqual(unknown.body, WRONG_PASSWORD);
    });

    it('one account per person with a server that ignores case: Émile is émile, never a second account (issue 55)', async () => {
      // An AD-backed server matches names without case: both spellings carry the one account's password.
      radius.setAccount('émile', { password: 'Emile-radius-pw-1', reply: [] });
      radius.setAccount('Émile', { password: 'Emile-radius-pw-1', reply: [] });
      const first = await basicAs('émile', 'Emile-radius-pw-1').expect(200);
      const again = await basicAs('Émile', 'Emile-radius-pw-1').expect(200);
      assert.equal(again.body.results[0].id, first.body.results[0].id, 'the same user');
      const all = await t.http().get('/api/v2/users/?username__iexact=émile').set('Authorization', ADMIN).expect(200);
      assert.equal(all.body.results.filter((u: { external_account: string }) => u.external_account === 'radius').length, 1);
      // Disabled under one spelling, refused under every spelling.
      await t.http().patch(`/api/v2/users/${String(first.body.results[0].id)}/`).set('Authorization', ADMIN).send({ is_active: false }).expect(200);
      await basicAs('Émile', 'Emile-radius-pw-1').expect(401);
      await basicAs('émile', 'Emile-radius-pw-1').expect(401);
    });

    it('flags follow every Access-Accept: set and cleared by their attribute; a flag without _attr is left as it is', async () => {
      radius.setAccount('rita', { password: PASSWORDS.rita, reply: [['Class', 'awx-admins'], ['Filter-Id', 'ops']] });
      await basicAs('rita', PASSWORDS.rita).expect(200);
      assert.deepEqual([(await user('rita'))!.is_superuser, (await user('rita'))!.is_system_auditor], [true, false]);
      // Only is_superuser mapped now: the auditor flag a superuser gives ravi stays through his logins (the form
      // always asks the server; basic would trust its repeat of ravi's earlier login).
      await configure({ RADIUS_USER_FLAGS_BY_ATTR: { is_superuser_attr: 'Class', is_superuser_value: ['awx-admins'] } });
      const ravi = (await user('ravi'))!;
      await t.http().patch(`/api/v2/users/${ravi.id}/`).set('Authorization', ADMIN).send({ is_system_auditor: true, is_superuser: true }).expect(200);
      assert.equal((await formLogin('ravi', PASSWORDS.ravi)).status, 302);
      assert.deepEqual([(await user('ravi'))!.is_superuser, (await user('ravi'))!.is_system_auditor], [false, true]);
      radius.setAccount('rita', ACCOUNTS.rita);
      await configure({ RADIUS_USER_FLAGS_BY_ATTR: FLAGS });
    });

    it('an Access-Reject is a wrong password: the same 401, page and body; the log event names RADIUS and its reply', async () => {
      const since = t.logs.length;
      const wrong = await formLogin('rita', 'not-the-password');
      const rejected = await formLogin('rejected', 'anything');
      for (const res of [wrong, rejected]) {
        assert.equal(res.status, 401);
        assert.match(res.text, new RegExp(`role="alert">${LOGIN_FAILED.replace(/\./g, '\\.')}`));
      }
      assert.deepEqual((await basicAs('rejected', 'anything').expect(401)).body, WRONG_PASSWORD);
      const failed = events(since, 'login_failed').map((e) => [e.username, e.directory, String(e.reason).split(' from ')[0]]);
      assert.deepEqual(failed, [
        ['rita', 'radius', 'Access-Reject'],
        ['rejected', 'radius', 'Access-Reject'],
        ['rejected', 'radius', 'Access-Reject'],
      ]);
      assert.equal(await user('rejected'), undefined, 'a refused first login creates nobody');
    });

    it('an Access-Challenge is refused exactly like a wrong password (the service has no challenge page)', async () => {
      const since = t.logs.length;
      const form = await formLogin('chuck', PASSWORDS.chuck);
      assert.equal(form.status, 401);
      assert.match(form.text, new RegExp(`role="alert">${LOGIN_FAILED.replace(/\./g, '\\.')}`));
      assert.deepEqual((await basicAs('chuck', PASSWORDS.chuck).expect(401)).body, WRONG_PASSWORD);
      assert.deepEqual(events(since, 'login_failed').map((e) => String(e.reason).split(' from ')[0]), ['Access-Challenge', 'Access-Challenge']);
      assert.equal(await user('chuck'), undefined);
    });

    it('an empty password, or one over 128 octets, is refused without a request', async () => {
      const since = t.logs.length;
      await t.http().get('/api/v2/me/').set('Authorization', 'Basic ' + Buffer.from('nina:').toString('base64')).expect(401);
      await basicAs('nina', 'ü'.repeat(65)).expect(401);
      assert.deepEqual(events(since, 'login_failed').map((e) => e.reason), ['empty_password', 'password_too_long']);
      await basicAs('nina', PASSWORDS.nina).expect(200);
      assert.equal(await radius.waitForRequests('nina', 1), 1, 'only the last attempt reached the server');
    });

    it('the password grant and tokens follow ALLOW_OAUTH2_FOR_EXTERNAL_USERS; the users API refuses username and password', async () => {
      const app = await registerApp(t, ADMIN, { name: 'cli', client_type: 'public', authorization_grant_type: 'password' });
      const refused = await tokenRequest(t, { grant_type: 'password', username: 'ravi', password: PASSWORDS.ravi }, { clientId: app.clientId });
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.match(refused.body.error_description, /external authentication provider \(radius\)/);
      await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
      try {
        const grant = await tokenRequest(t, { grant_type: 'password', username: 'ravi', password: PASSWORDS.ravi }, { clientId: app.clientId });
        assert.equal(grant.status, 200, JSON.stringify(grant.body));
        const wrong = await tokenRequest(t, { grant_type: 'password', username: 'ravi', password: 'nope' }, { clientId: app.clientId });
        assert.deepEqual([wrong.status, wrong.body.error], [400, 'invalid_grant']);
      } finally {
        await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
      }
      const ravi = (await user('ravi'))!;
      const url = `/api/v2/users/${ravi.id}/`;
      const name = await t.http().patch(url).set('Authorization', ADMIN).send({ username: 'ravi2' }).expect(400);
      assert.deepEqual(name.body, { username: ['Unable to change username on user managed by RADIUS.'] });
      const password = await t.http().patch(url).set('Authorization', ADMIN).send({ password: 'Local-pw-123' }).expect(400);
      assert.deepEqual(password.body, { password: ['Unable to change password on user managed by RADIUS.'] });
      await t.http().patch(url).set('Authorization', ADMIN).send({ first_name: 'Ravi' }).expect(200);
    });

    it('DISABLE_LOCAL_AUTH: a configured RADIUS server counts as a remote method, and its users keep logging in', async () => {
      await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ DISABLE_LOCAL_AUTH: true }).expect(200);
      try {
        assert.equal((await formLogin('rita', PASSWORDS.rita)).status, 302);
        const local = await basicAs('localuser', 'Local-own-pw-1').expect(401);
        assert.equal(local.body.detail, 'Local authentication is disabled.');
      } finally {
        await t.settings({ DISABLE_LOCAL_AUTH: false });
      }
      await configure({ RADIUS_SERVER: '' });
      await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ DISABLE_LOCAL_AUTH: true }).expect(400);
      await configure({ RADIUS_SERVER: '127.0.0.1' });
    });
  });

  describe('whose name it is: local, then LDAP, then RADIUS', () => {
    it('a local name, in any case, and a name an LDAP directory finds are never sent to RADIUS', async () => {
      await t.http().patch('/api/v2/settings/ldap/').set('Authorization', ADMIN).send(defaultDirectory(ldap)).expect(200);
      try {
        for (const name of ['localuser', 'LocalUser']) assert.equal((await formLogin(name, PASSWORDS.localuser)).status, 401, name);
        await basicAs('LOCALUSER', PASSWORDS.localuser).expect(401);
        assert.equal((await user('localuser'))!.external_account, null);
        // alice is the directory's: its password logs her in as an LDAP user, RADIUS's password does not.
        assert.equal((await formLogin('alice', PASSWORDS.alice)).status, 401);
        assert.equal((await formLogin('alice', LDAP_PASSWORDS.alice)).status, 302);
        assert.equal((await user('alice'))!.external_account, 'ldap');
        await basicAs('alice', PASSWORDS.alice).expect(401);
        // A name the directory does not know goes on to RADIUS.
        await basicAs('mona', PASSWORDS.mona).expect(200);
        const explained = await explain('LocalUser', PASSWORDS.localuser);
        assert.equal(explained.body.reply, null);
        assert.match(explained.body.steps.join('\n'), /The name belongs to the local user "localuser": a login checks that account and never asks RADIUS \(no takeover\)/);
        const newcomer = await explain('newcomer', 'whatever');
        assert.match(newcomer.body.steps.join('\n'), /A login asks LDAP first: if it knows the name, that decides and RADIUS is never asked/);
      } finally {
        await t.http().patch('/api/v2/settings/ldap/').set('Authorization', ADMIN).send({ AUTH_LDAP_SERVER_URI: '' }).expect(200);
      }
      // The server's own log: mona's request reached it (and so every earlier one did), none for the others' names.
      assert.equal(await radius.waitForRequests('mona', 1), 1);
      assert.equal(radius.requestsFor('localuser'), 0);
      assert.equal(radius.requestsFor('alice'), 0);
    });
  });

  describe('the throttle, and the server out of reach', () => {
    it('counts Access-Rejects per (username, address) before the request: at most LOGIN_FAILURES_ALLOWED reach the server', async () => {
      await t.settings({ LOGIN_FAILURES_ALLOWED: 2 });
      try {
        await basicAs('tess', 'wrong-1', from('198.51.100.7')).expect(401);
        assert.equal((await formLogin('tess', 'wrong-2', t.agent())).status, 401, 'another address');
        await basicAs('tess', 'wrong-3', from('198.51.100.7')).expect(401);
        const throttled = await basicAs('tess', PASSWORDS.tess, from('198.51.100.7')).expect(429);
        assert.ok(Number(throttled.headers['retry-after']) > 0);
        await basicAs('tess', 'wrong-4', from('198.51.100.7')).expect(429);
        // Another address is not locked out, and the server saw only what the throttle let through.
        await basicAs('tess', PASSWORDS.tess, from('198.51.100.8')).expect(200);
        assert.equal(await radius.waitForRequests('tess', 4), 4);
      } finally {
        await t.settings({ LOGIN_FAILURES_ALLOWED: 5 });
      }
    });

    it('a silent server: 503 on the form, basic and the password grant, uncounted, nobody created; local users unaffected', async () => {
      standIn.relayTo = undefined;
      standIn.received.length = 0;
      await pointAt(standIn.port, { RADIUS_RETRIES: 1 });
      await t.settings({ LOGIN_FAILURES_ALLOWED: 2, ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
      const app = await registerApp(t, ADMIN, { name: 'outage', client_type: 'public', authorization_grant_type: 'password' });
      const since = t.logs.length;
      try {
        const form = await formLogin('una', PASSWORDS.una);
        assert.equal(form.status, 503);
        assert.match(form.text, /<div class="alert" role="alert">The RADIUS server is unavailable; try again later\.<\/div>/);
        assert.deepEqual((await basicAs('una', `${PASSWORDS.una}-2`).expect(503)).body, UNAVAILABLE);
        const grant = await tokenRequest(t, { grant_type: 'password', username: 'una', password: PASSWORDS.una }, { clientId: app.clientId });
        assert.deepEqual([grant.status, grant.body], [503, UNAVAILABLE]);
        await t.http().get('/api/v2/me/').set('Authorization', ADMIN).expect(200);
        assert.equal((await formLogin('admin', ADMIN_PASSWORD)).status, 302);
        assert.equal(await user('una'), undefined, 'no reply, nobody created');
        // Three 503s beyond an allowance of two, none counted: with the server back, the right password works at once.
        await pointAt(radius.port, { RADIUS_RETRIES: 0 });
        assert.equal((await formLogin('una', PASSWORDS.una)).status, 302);
      } finally {
        await t.settings({ LOGIN_FAILURES_ALLOWED: 5, ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
      }
      const unavailable = events(since, 'login_failed').filter((e) => e.outcome === 'directory_unavailable');
      assert.equal(unavailable.length, 3);
      assert.match(String(unavailable[0].reason), /no valid reply from 127\.0\.0\.1:\d+ within 2 s \(2 transmissions\)/);
      // Each attempt sent one packet twice, byte for byte: RADIUS_RETRIES 1 after RADIUS_TIMEOUT.
      assert.equal(standIn.received.length, 6);
      for (let i = 0; i < 6; i += 2) assert.deepEqual(standIn.received[i + 1], standIn.received[i]);
      assert.notDeepEqual(standIn.received[2], standIn.received[0], 'each attempt is a new request');
    });

    it('the request as sent: Message-Authenticator first and valid, the password hidden, User-Name and NAS-Identifier', () => {
      const request = readRequest(standIn.received[0]);
      assert.equal(request.code, CODE.accessRequest);
      assert.deepEqual(request.attributes.map(([type]) => type), [ATTRIBUTE.messageAuthenticator, ATTRIBUTE.userName, ATTRIBUTE.userPassword, ATTRIBUTE.nasIdentifier]);
      assert.ok(requestMacVerifies(standIn.received[0], radius.secret));
      assert.equal(request.attributes[1][1].toString(), 'una');
      assert.equal(revealPassword(request.attributes[2][1], radius.secret, request.authenticator), PASSWORDS.una);
      assert.ok(!standIn.received[0].includes(Buffer.from(PASSWORDS.una)), 'never in clear');
      assert.equal(request.attributes[3][1].toString(), 'awx');
    });

    it('a wrong shared secret: the server drops the request (its Message-Authenticator fails), so the login is a 503', async () => {
      await configure({ RADIUS_SECRET: `${radius.secret}-wrong` });
      try {
        // The form: basic would trust its repeat of rita's earlier login for RADIUS_CACHE_SECONDS.
        assert.equal((await formLogin('rita', PASSWORDS.rita)).status, 503);
      } finally {
        await configure({ RADIUS_SECRET: radius.secret });
      }
      assert.ok(await radius.waitForLine(/invalid Message-Authenticator!\s+\(Shared secret is incorrect\.\)/), 'the server says why it dropped it');
    });

    it('an Access-Accept without Message-Authenticator (BlastRADIUS) is dropped: 503 after the retries, nobody created', async () => {
      const since = t.logs.length;
      assert.deepEqual((await basicAs('nomac', PASSWORDS.nomac).expect(503)).body, UNAVAILABLE);
      assert.equal(await radius.waitForRequests('nomac', 1), 1, 'the server did accept it');
      assert.equal(await user('nomac'), undefined);
      assert.match(String(events(since, 'login_failed')[0].reason), /dropped: 1 × no message authenticator/);
    });

    it('forged Access-Accepts (another port, another Identifier, no or a wrong Message-Authenticator, a wrong Response Authenticator) are dropped; the genuine reply decides', async () => {
      standIn.relayTo = radius.port;
      standIn.forgeries = ['other_port', 'wrong_identifier', 'no_message_authenticator', 'wrong_message_authenticator', 'wrong_response_authenticator'];
      await pointAt(standIn.port, { RADIUS_RETRIES: 0 });
      const since = t.logs.length;
      try {
        // Each forgery claims superuser rights for a user FreeRADIUS rejects.
        assert.deepEqual((await basicAs('rejected', 'anything').expect(401)).body, WRONG_PASSWORD);
        assert.equal(await user('rejected'), undefined);
        const reason = String(events(since, 'login_failed')[0].reason);
        for (const why of ['wrong source', 'wrong identifier', 'no message authenticator', 'bad message authenticator', 'bad response authenticator']) {
          assert.match(reason, new RegExp(`1 × ${why}`), reason);
        }
        // The honest path through the same relay: ravi's genuine Accept logs him in, with no flag the forgeries claimed.
        assert.equal((await formLogin('ravi', PASSWORDS.ravi)).status, 302);
        assert.equal((await user('ravi'))!.is_superuser, false);
      } finally {
        standIn.forgeries = [];
        await pointAt(radius.port);
      }
    });
  });

  describe("basic auth's repeat cache and RADIUS off", () => {
    it('a repeat is trusted RADIUS_CACHE_SECONDS; a password changed or an account removed there stops working after it', async () => {
      await configure({ RADIUS_CACHE_SECONDS: 60 });
      await basicAs('basil', PASSWORDS.basil).expect(200);
      assert.equal(await radius.waitForRequests('basil', 1), 1);
      radius.setAccount('basil', { password: PASSWORDS.basilNext });
      await basicAs('basil', PASSWORDS.basil).expect(200);
      t.clock.advance(61);
      await basicAs('basil', PASSWORDS.basil).expect(401);
      await basicAs('basil', PASSWORDS.basilNext).expect(200);
      assert.equal(await radius.waitForRequests('basil', 3), 3, 'the repeat within the period did not ask the server');
      // 0: every request asks; the form always does.
      await configure({ RADIUS_CACHE_SECONDS: 0 });
      await basicAs('basil', PASSWORDS.basilNext).expect(200);
      assert.equal((await formLogin('basil', PASSWORDS.basilNext)).status, 302);
      assert.equal(await radius.waitForRequests('basil', 5), 5);
      radius.setAccount('basil', null);
      await basicAs('basil', PASSWORDS.basilNext).expect(401);
      radius.setAccount('basil', ACCOUNTS.basil);
      await configure({ RADIUS_CACHE_SECONDS: 60 });
    });

    it('while RADIUS_SERVER is "", a RADIUS user is refused like a wrong password at once, cached credentials included', async () => {
      await basicAs('basil', PASSWORDS.basil).expect(200);
      await configure({ RADIUS_SERVER: '' });
      try {
        assert.deepEqual((await basicAs('basil', PASSWORDS.basil).expect(401)).body, WRONG_PASSWORD);
        assert.equal((await formLogin('rita', PASSWORDS.rita)).status, 401);
      } finally {
        await configure({ RADIUS_SERVER: '127.0.0.1' });
      }
      await basicAs('basil', PASSWORDS.basil).expect(200);
    });
  });

  describe('two-step verification, as for LDAP users', () => {
    it('MFA_REQUIRED_FOR=all: the form sets up a factor only after an Access-Accept; basic and the password grant are refused', async () => {
      const app = await registerApp(t, ADMIN, { name: 'mfa-grant', client_type: 'public', authorization_grant_type: 'password' });
      await t.settings({ MFA_REQUIRED_FOR: 'all', ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
      try {
        assert.equal((await formLogin('mona', 'not-her-password')).status, 401, 'no second page before an Accept');
        const form = await formLogin('mona', PASSWORDS.mona);
        assert.equal(form.status, 200);
        assert.match(form.text, /Set up two-step verification/);
        assert.equal(cookieValue(form.headers['set-cookie'], t.config.sessionCookieName), undefined, 'no session before the second step');
        assert.deepEqual((await basicAs('mona', PASSWORDS.mona).expect(401)).body, { detail: 'This account uses two-step verification; use a token.' });
        const grant = await tokenRequest(t, { grant_type: 'password', username: 'mona', password: PASSWORDS.mona }, { clientId: app.clientId });
        assert.deepEqual([grant.status, grant.body.error, grant.body.error_description], [400, 'invalid_grant', 'This account uses two-step verification; use a token.']);
      } finally {
        await t.settings({ MFA_REQUIRED_FOR: 'none', ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
      }
    });

    it('a RADIUS user may add an authenticator app: then the password alone is refused and the form asks for the code', async () => {
      const mona = basic('mona', PASSWORDS.mona);
      const { secret } = (await t.http().post('/api/v2/me/mfa/totp/').set('Authorization', mona).send({}).expect(201)).body;
      const code = await generate({ secret, epoch: Math.floor(t.clock.now().getTime() / 1000) });
      await t.http().post('/api/v2/me/mfa/totp/confirm/').set('Authorization', mona).send({ code }).expect(200);
      assert.deepEqual((await t.http().get('/api/v2/me/').set('Authorization', mona).expect(401)).body, { detail: 'This account uses two-step verification; use a token.' });
      const form = await formLogin('mona', PASSWORDS.mona);
      assert.equal(form.status, 200);
      assert.match(form.text, /<label for="code">Authentication code<\/label>/);
      const id = (await user('mona'))!.id as number;
      await t.http().delete(`/api/v2/users/${id}/mfa/`).set('Authorization', ADMIN).expect(204);
    });
  });

  describe('the explainer', () => {
    it('POST /api/v2/settings/radius/test/ tells what a login would do and why, changing nothing', async () => {
      const ritaBefore = await user('rita');
      const res = await explain('rita', PASSWORDS.rita);
      assert.deepEqual(Object.keys(res.body).sort(), ['attributes', 'flags', 'maps', 'reply', 'steps', 'would_login']);
      assert.equal(res.body.would_login, true);
      assert.equal(res.body.reply, 'Access-Accept');
      assert.deepEqual(res.body.attributes, { Class: ['awx-admins'], 'Filter-Id': ['awx-auditors'] });
      assert.deepEqual(res.body.flags, { is_superuser: true, is_system_auditor: true });
      const text = res.body.steps.join('\n');
      assert.match(text, new RegExp(`Access-Request for "rita" to 127\\.0\\.0\\.1:${radius.port}`));
      assert.match(text, /Reply: Access-Accept from .*Message-Authenticator verified/);
      // The flags as the login sets them: decided once, by the maps (issue 55).
      assert.match(text, /is_superuser: set, by RADIUS_USER_FLAGS_BY_ATTR\.is_superuser_attr/);
      assert.match(text, /is_system_auditor: set, by RADIUS_USER_FLAGS_BY_ATTR\.is_system_auditor_attr/);
      const challenge = await explain('chuck', PASSWORDS.chuck);
      assert.deepEqual([challenge.body.would_login, challenge.body.reply], [false, 'Access-Challenge']);
      assert.deepEqual(challenge.body.attributes, { 'Reply-Message': ['Enter the code from your token'], State: ['0x01020304'] });
      const reject = await explain('rita', 'not-the-password');
      assert.deepEqual([reject.body.would_login, reject.body.reply], [false, 'Access-Reject']);
      const newcomer = await explain('nina2', 'x');
      assert.equal(newcomer.body.reply, 'Access-Reject');
      radius.setAccount('nora', { password: 'Nora-radius-pw-1', reply: [['Filter-Id', 'auditors']] });
      const nora = await explain('nora', 'Nora-radius-pw-1');
      assert.equal(nora.body.would_login, true);
      assert.match(nora.body.steps.join('\n'), /It would create the user "nora" \(external_account "radius"; is_superuser cleared, is_system_auditor set\)/);
      const dropped = await explain('nomac', PASSWORDS.nomac);
      assert.deepEqual([dropped.body.would_login, dropped.body.reply], [false, null]);
      assert.match(dropped.body.steps.join('\n'), /Dropped a datagram .*no message authenticator[\s\S]*would answer 503/);
      // Nothing changed: no user created, no flag moved, nobody logged in.
      assert.deepEqual(await user('rita'), ritaBefore);
      assert.equal(await user('nora'), undefined);
      assert.deepEqual(Object.keys((await t.http().post('/api/v2/settings/radius/test/').set('Authorization', ADMIN).send({ username: 'rita' }).expect(400)).body), ['password']);
      assert.deepEqual(Object.keys((await t.http().post('/api/v2/settings/radius/test/').set('Authorization', ADMIN).send({ password: 'x' }).expect(400)).body), ['username']);
      await t.http().post('/api/v2/settings/radius/test/').set('Authorization', basic('auditor', 'Auditor-pass-1')).send({ username: 'rita', password: 'x' }).expect(403);
      await t.http().post('/api/v2/settings/radius/test/').send({ username: 'rita', password: 'x' }).expect(401);
    });

    it('radius_test prints the steps and exits 0 when the login would succeed, 1 otherwise, never showing a secret', () => {
      const env = { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey };
      const ok = runManage(['radius_test', '--username', 'rita', '--password', PASSWORDS.rita], env);
      assert.equal(ok.status, 0, ok.stderr + ok.stdout);
      assert.match(ok.stdout, /Reply: Access-Accept from 127\.0\.0\.1/);
      assert.match(ok.stdout, /^Attributes: Class=awx-admins; Filter-Id=awx-auditors$/m);
      assert.match(ok.stdout, /^Flags: is_superuser=true is_system_auditor=true$/m);
      assert.match(ok.stdout, /^Result: the login would succeed\.$/m);
      const wrong = runManage(['radius_test', '--username', 'rita'], { ...env, MANAGE_PASSWORD: 'wrong-one-1' });
      assert.equal(wrong.status, 1);
      assert.match(wrong.stdout, /^Reply: Access-Reject$/m);
      assert.match(wrong.stdout, /^Result: the login would be refused\.$/m);
      const noName = runManage(['radius_test', '--password', 'x'], env);
      assert.equal(noName.status, 1);
      assert.match(noName.stderr, /^Error: --username is required\.$/m);
      const help = runManage(['--help'], env);
      assert.match(help.stdout, /radius_test/);
      for (const out of [ok, wrong, noName]) {
        const text = out.stdout + out.stderr;
        for (const secret of [radius.secret, PASSWORDS.rita, 'wrong-one-1']) assert.ok(!text.includes(secret), secret);
      }
    });
  });

  describe('what a RADIUS server grants (SPEC §21, ansible/awx #4068)', () => {
    const GINA = 'Gina-radius-pw-1';
    const GUS = 'Gus-radius-pw-1';
    const dryRun = (body: Record<string, unknown>) => t.http().post('/api/v2/settings/maps/test/').set('Authorization', ADMIN).send(body);

    it("Class values are the groups and the reply's attributes the attributes: an allow rule and organization rules", async () => {
      await pointAt(radius.port, { RADIUS_USER_FLAGS_BY_ATTR: FLAGS });
      radius.setAccount('gina', { password: GINA, reply: [['Class', 'awx-users'], ['Filter-Id', 'ops']] });
      radius.setAccount('gus', { password: GUS, reply: [['Filter-Id', 'ops']] });
      const maps = [
        { name: 'RADIUS users only', sources: ['radius'], map_type: 'allow', triggers: { groups: { has_or: ['awx-users', 'awx-admins'] } } },
        { name: 'Ops by filter', sources: ['radius'], map_type: 'organization', organization: 'Radius Ops', triggers: { attributes: { 'Filter-Id': { equals: 'ops' } } }, revoke: true },
        { name: 'Ops team', sources: ['radius'], map_type: 'team', organization: 'Radius Ops', team: 'Night', role: 'admin', triggers: { groups: { has_and: ['awx-users'] } } },
      ];
      const saved = await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ AUTHENTICATION_MAPS: maps });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      try {
        const since = t.logs.length;
        // gus has no Class: refused exactly as a wrong password, counted, and no user is made.
        const refused = await basicAs('gus', GUS).expect(401);
        assert.deepEqual(refused.body, WRONG_PASSWORD);
        assert.equal(await user('gus'), undefined);
        assert.match(String(events(since, 'login_failed')[0]?.reason), /AUTHENTICATION_MAPS\[0\]/);
        await basicAs('gina', GINA).expect(200);
        const orgs = await t.http().get('/api/v2/organizations/?name=Radius%20Ops').set('Authorization', ADMIN).expect(200);
        const org = orgs.body.results[0];
        assert.ok(org, 'the rule made its organization when it granted');
        const members = await t.http().get(`/api/v2/organizations/${org.id}/users/`).set('Authorization', ADMIN).expect(200);
        assert.deepEqual(members.body.results.map((u: { username: string }) => u.username), ['gina']);
        const teams = await t.http().get(`/api/v2/teams/?organization=${org.id}&name=Night`).set('Authorization', ADMIN).expect(200);
        const admins = await t.http().get(`/api/v2/roles/${teams.body.results[0].summary_fields.object_roles.admin_role.id}/users/`).set('Authorization', ADMIN).expect(200);
        assert.deepEqual(admins.body.results.map((u: { username: string }) => u.username), ['gina']);
        const applied = events(since, 'maps_applied');
        assert.ok(applied.some((e) => (e.changes as { decided_by: string }[]).some((c) => c.decided_by === 'AUTHENTICATION_MAPS[1]')), JSON.stringify(applied));
        for (const line of applied) assert.doesNotMatch(JSON.stringify(line), /awx-users|"ops"/, 'no claim value in the log');

        // The explainer says what the maps would do; the dry run replays the stored Access-Accept.
        const explained = await explain('gus', GUS);
        assert.equal(explained.body.would_login, false);
        assert.equal(explained.body.maps.refused_by, 'AUTHENTICATION_MAPS[0]');
        const replay = await dryRun({ source: 'radius', username: 'gina' }).expect(200);
        assert.deepEqual(replay.body.claims.groups, ['awx-users']);
        assert.deepEqual(replay.body.claims.attributes['Filter-Id'], ['ops']);
        for (const secret of ['User-Password', 'State', 'Message-Authenticator']) assert.equal(replay.body.claims.attributes[secret], undefined, secret);
        assert.equal(replay.body.current.flags.is_system_auditor.decided_by, 'RADIUS_USER_FLAGS_BY_ATTR.is_system_auditor_attr');

        // gina loses her Class: her next login is refused, her tokens and sessions end, she stays active.
        const session = await formLogin('gina', GINA);
        assert.equal(session.status, 302);
        radius.setAccount('gina', { password: GINA, reply: [['Filter-Id', 'ops']] });
        const cut = t.logs.length;
        t.clock.advance(3600); // past RADIUS_CACHE_SECONDS: basic asks the server again
        await basicAs('gina', GINA).expect(401);
        assert.deepEqual(events(cut, 'sessions_cut_off').map((e) => e.reason), ['access_revoked']);
        assert.equal((await user('gina'))!.is_active, true);
      } finally {
        await t.http().patch('/api/v2/settings/authentication/').set('Authorization', ADMIN).send({ AUTHENTICATION_MAPS: [] }).expect(200);
      }
    });
  });

  it('never puts the shared secret or a RADIUS password in a log line, an answer or a settings read', async () => {
    const joined = t.logs.join('\n');
    for (const secret of [radius.secret, ...Object.values(PASSWORDS), 'Nora-radius-pw-1']) assert.ok(!joined.includes(secret), secret);
    const all = await t.http().get('/api/v2/settings/all/').set('Authorization', ADMIN).expect(200);
    assert.ok(!JSON.stringify(all.body).includes(radius.secret));
  });
});
