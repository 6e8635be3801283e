import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { browserLogin, submitLoginForm } from './support/browser-login';
import { SlapdServer } from './support/slapd-server';
import { defaultDirectory, DN, PASSWORDS, startDirectory } from './support/ldap-directory';
import { TEST_DB } from './support/test-db';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ClaimsSweeper } from '../src/maps/claims-sweeper.service';
import { registerApp, tokenRequest } from './support/oauth2';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const INVALID = { detail: 'Invalid username/password.' };
const LOGIN_FAILED = 'Please enter a correct username and password. Note that both fields may be case-sensitive.';

/** The login form's answer, whatever its status. */
const formLogin = async (t: TestApp, username: string, password: string) => (await submitLoginForm(t, username, password)).response;

/**
 * SPEC §21 through LDAP against a real slapd: AWX's organization and team maps, the directory's gates as
 * allow decisions, AUTHENTICATION_MAPS, what a refused login ends, the stored claims and the dry run.
 */
describe(`What an LDAP directory grants: AWX's maps and AUTHENTICATION_MAPS (SPEC §21, issue 42, ${TEST_DB})`, () => {
  let t: TestApp;
  let ldap: SlapdServer;

  const settings = async (category: string, values: Record<string, unknown>) => {
    const res = await t.http().patch(`/api/v2/settings/${category}/`).set('Authorization', ADMIN).send(values);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  const userNamed = async (username: string) => {
    const res = await t.http().get(`/api/v2/users/?username=${encodeURIComponent(username)}`).set('Authorization', ADMIN).expect(200);
    return res.body.results[0] as Record<string, unknown> | undefined;
  };
  const organization = async (name: string) => {
    const res = await t.http().get(`/api/v2/organizations/?name=${encodeURIComponent(name)}`).set('Authorization', ADMIN).expect(200);
    return res.body.results[0] as { id: number; summary_fields: { object_roles: Record<string, { id: number }> } } | undefined;
  };
  const team = async (org: number, name: string) => {
    const res = await t.http().get(`/api/v2/teams/?organization=${org}&name=${encodeURIComponent(name)}`).set('Authorization', ADMIN).expect(200);
    return res.body.results[0] as { id: number; summary_fields: { object_roles: Record<string, { id: number }> } } | undefined;
  };
  /** The usernames holding `role` of the organization or team. */
  const holders = async (target: { summary_fields: { object_roles: Record<string, { id: number }> } }, role: string) => {
    const res = await t.http().get(`/api/v2/roles/${target.summary_fields.object_roles[role].id}/users/`).set('Authorization', ADMIN).expect(200);
    return (res.body.results as { username: string }[]).map((u) => u.username).sort();
  };
  const events = (from: number, event: string) =>
    t.logs.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === event);
  const dryRun = (body: Record<string, unknown>, auth = ADMIN) => t.http().post('/api/v2/settings/maps/test/').set('Authorization', auth).send(body);

  before(async () => {
    ldap = await startDirectory();
    t = await startTestApp();
    await settings('ldap', defaultDirectory(ldap));
  });
  after(async () => {
    await t?.close();
    await ldap?.destroy();
  });

  it("AWX's LDAP maps: a login makes every organization and team its directory's maps name, and grants by group", async () => {
    await settings('ldap', {
      AUTH_LDAP_ORGANIZATION_MAP: {
        Ops: { admins: DN.admins, users: [DN.staff], remove_users: false },
        Partners: { users: 'cn=nobody,ou=groups,dc=example,dc=org' },
      },
      AUTH_LDAP_TEAM_MAP: { 'On call': { organization: 'Ops', users: [DN.teamA], remove: true } },
    });
    const from = t.logs.length;
    assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, 302);
    const ops = await organization('Ops');
    const partners = await organization('Partners');
    assert.ok(ops && partners, 'both organizations the map names were made');
    assert.deepEqual(await holders(ops, 'admin_role'), ['alice']);
    assert.deepEqual(await holders(ops, 'member_role'), ['alice']);
    assert.deepEqual(await holders(partners, 'member_role'), []);
    const onCall = await team(ops.id, 'On call');
    assert.ok(onCall, 'the team the map names was made');
    assert.deepEqual(await holders(onCall, 'member_role'), []);
    // bob is in team-a (and staff): member of Ops and of the team, not an admin.
    assert.equal((await formLogin(t, 'bob', PASSWORDS.bob)).status, 302);
    assert.deepEqual(await holders(ops, 'member_role'), ['alice', 'bob']);
    assert.deepEqual(await holders(onCall, 'member_role'), ['bob']);
    // maps_applied lists the changes and the deciding paths, never a claim's value (no DN, no email).
    const applied = events(from, 'maps_applied');
    assert.ok(applied.length >= 2, JSON.stringify(applied));
    const paths = applied.flatMap((e) => (e.changes as { decided_by: string }[]).map((c) => c.decided_by));
    assert.ok(paths.includes('AUTH_LDAP_ORGANIZATION_MAP["Ops"].admins'), paths.join(' '));
    assert.ok(paths.includes('AUTH_LDAP_TEAM_MAP["On call"].users'), paths.join(' '));
    for (const line of applied) assert.doesNotMatch(JSON.stringify(line), /ou=people|example\.org/);
  });

  it('a revoke removes a hand grant in a named organization; a false remove flag keeps it; an unnamed organization is never touched', async () => {
    const ops = (await organization('Ops'))!;
    const carolId = await t.createUser('carol-local', 'Carol-local-pw-1');
    // carol logs in through LDAP: she is in staff (member of Ops), not in admins.
    assert.equal((await formLogin(t, 'carol', PASSWORDS.carol)).status, 302);
    const carol = (await userNamed('carol'))!;
    // A hand grant of Ops admin: the map's admins entry (remove_admins defaults to true) revokes it at her next login.
    await t.http().post(`/api/v2/roles/${ops.summary_fields.object_roles.admin_role.id}/users/`).set('Authorization', ADMIN).send({ id: carol.id }).expect(204);
    // A hand-made organization no setting names: kept.
    const made = await t.http().post('/api/v2/organizations/').set('Authorization', ADMIN).send({ name: 'Hand made' }).expect(201);
    await t.http().post(`/api/v2/organizations/${made.body.id}/users/`).set('Authorization', ADMIN).send({ id: carol.id }).expect(204);
    assert.equal((await formLogin(t, 'carol', PASSWORDS.carol)).status, 302);
    assert.deepEqual(await holders(ops, 'admin_role'), ['alice']);
    const handMade = (await organization('Hand made'))!;
    assert.deepEqual(await holders(handMade, 'member_role'), ['carol']);
    // remove_users false: a hand-granted member outside staff stays a member.
    await t.http().post(`/api/v2/organizations/${ops.id}/users/`).set('Authorization', ADMIN).send({ id: carolId }).expect(204);
    assert.ok((await holders(ops, 'member_role')).includes('carol-local'));
  });

  it('AUTHENTICATION_MAPS: an allow rule refuses like a wrong password, makes no user on a first login, and counts for the throttle', async () => {
    await settings('authentication', {
      AUTHENTICATION_MAPS: [{ name: 'Staff only', sources: ['ldap'], map_type: 'allow', triggers: { groups: { has_or: [DN.staff] } } }],
    });
    const from = t.logs.length;
    // dave is in no staff group: refused on his first login, and no user is made.
    const refused = await t.http().get('/api/v2/me/').set('Authorization', basic('dave', PASSWORDS.dave)).expect(401);
    assert.deepEqual(refused.body, INVALID);
    assert.equal(await userNamed('dave'), undefined);
    const failed = events(from, 'login_failed');
    assert.equal(failed.length, 1, JSON.stringify(failed));
    assert.match(String(failed[0].reason), /AUTHENTICATION_MAPS\[0\]/);
    // alice is staff: admitted.
    await t.http().get('/api/v2/me/').set('Authorization', basic('alice', PASSWORDS.alice)).expect(200);
  });

  it('a refused existing user: every session ends with access_revoked and every token is revoked; the account stays active', async () => {
    const browser = await browserLogin(t, 'bob', PASSWORDS.bob);
    await browser.agent.get('/api/v2/me/').expect(200);
    await settings('authentication', { ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
    const token = await t.http().post('/api/v2/tokens/').set('Authorization', basic('bob', PASSWORDS.bob)).send({}).expect(201);
    // A client-credentials application bob owns: its service account's tokens derive from bob's access (issue 55).
    const ci = await registerApp(t, basic('bob', PASSWORDS.bob), { name: 'bob-ci', client_type: 'confidential', authorization_grant_type: 'client-credentials' });
    const ciClient = { clientId: ci.clientId, secret: ci.clientSecret };
    const svca = await tokenRequest(t, { grant_type: 'client_credentials' }, ciClient);
    assert.equal(svca.status, 200, JSON.stringify(svca.body));
    await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${svca.body.access_token}`).expect(200);
    // bob leaves staff: the allow rule refuses his next login.
    ldap.modify(`dn: ${DN.staff}\nchangetype: modify\ndelete: member\nmember: ${DN.bob}\n`);
    try {
      const from = t.logs.length;
      const refused = await formLogin(t, 'bob', PASSWORDS.bob);
      const wrong = await formLogin(t, 'bob', 'not-his-password');
      assert.equal(refused.status, wrong.status, 'the form answers as to a wrong password');
      assert.match(wrong.text, new RegExp(`role="alert">${LOGIN_FAILED.replace(/\./g, '\\.')}`));
      assert.match(refused.text, new RegExp(`role="alert">${LOGIN_FAILED.replace(/\./g, '\\.')}`));
      await browser.agent.get('/api/v2/me/').expect(401);
      await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${token.body.token}`).expect(401);
      // Every credential derived from bob ends: the service account's token, and the grant issues none (SPEC §21, §15).
      await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${svca.body.access_token}`).expect(401);
      const grant = await tokenRequest(t, { grant_type: 'client_credentials' }, ciClient);
      assert.ok([400, 401].includes(grant.status), `grant answered ${grant.status}`);
      assert.equal(grant.body.access_token, undefined);
      const bobId = (await userNamed('bob'))!.id;
      const whose = (e: Record<string, unknown>) => (e.user_id === bobId ? 'bob' : e.user_id === ci.body.service_account ? 'service account' : e.user_id);
      // Each subscriber of the event hears it in its own order: the set of ends is the verdict.
      const ends = (event: string) => events(from, event).map((e) => `${String(whose(e))}: ${String(e.reason)}`).sort();
      assert.deepEqual(ends('sessions_cut_off'), ['bob: access_revoked', 'service account: user_disabled']);
      // bob's own tokens for access_revoked, then his application's service account's, deactivated with him (SPEC §15).
      assert.deepEqual(ends('user_tokens_revoked'), ['bob: access_revoked', 'service account: user_disabled']);
      assert.equal((await userNamed('bob'))!.is_active, true);
      // A wrong password ends nothing.
      const again = await browserLogin(t, 'alice', PASSWORDS.alice);
      assert.equal((await formLogin(t, 'alice', 'not-her-password')).status, 401);
      await again.agent.get('/api/v2/me/').expect(200);
    } finally {
      ldap.modify(`dn: ${DN.staff}\nchangetype: modify\nadd: member\nmember: ${DN.bob}\n`);
    }
    // Admitted again, bob logs in.
    await t.http().get('/api/v2/me/').set('Authorization', basic('bob', PASSWORDS.bob)).expect(200);
  });

  it('REQUIRE_GROUP refusing an existing user ends their sessions too (the directory gate is an allow decision)', async () => {
    const browser = await browserLogin(t, 'carol', PASSWORDS.carol);
    await settings('ldap', { AUTH_LDAP_REQUIRE_GROUP: DN.admins });
    try {
      const from = t.logs.length;
      await t.http().get('/api/v2/me/').set('Authorization', basic('carol', PASSWORDS.carol)).expect(401);
      await browser.agent.get('/api/v2/me/').expect(401);
      const revoked = events(from, 'access_revoked');
      assert.equal(revoked[0]?.refused_by, 'AUTH_LDAP_REQUIRE_GROUP');
    } finally {
      await settings('ldap', { AUTH_LDAP_REQUIRE_GROUP: null });
    }
  });

  it('AUTHENTICATION_MAPS grants: a team needing two groups (has_and), a flag with revoke, the last rule deciding', async () => {
    await settings('authentication', {
      AUTHENTICATION_MAPS: [
        { name: 'Staff only', sources: ['ldap'], map_type: 'allow', triggers: { groups: { has_or: [DN.staff] } } },
        { name: 'Admins and staff', sources: ['ldap:default'], map_type: 'team', organization: 'Ops', team: 'Core', triggers: { groups: { has_and: [DN.staff, DN.admins] } }, revoke: true },
        { name: 'No auditors by LDAP', map_type: 'is_system_auditor', triggers: { never: {} }, revoke: true },
        { name: 'Mail rule', map_type: 'organization', organization: 'Mailers', role: 'auditor', triggers: { attributes: { mail: { ends_with: '@example.org' } } } },
      ],
    });
    assert.equal((await formLogin(t, 'alice', PASSWORDS.alice)).status, 302);
    assert.equal((await formLogin(t, 'bob', PASSWORDS.bob)).status, 302);
    const ops = (await organization('Ops'))!;
    const core = (await team(ops.id, 'Core'))!;
    assert.deepEqual(await holders(core, 'member_role'), ['alice']);
    // bob is in auditors through team-a (USER_FLAGS_BY_GROUP), but the later rule revokes the flag.
    assert.equal((await userNamed('bob'))!.is_system_auditor, false);
    const mailers = (await organization('Mailers'))!;
    assert.deepEqual(await holders(mailers, 'auditor_role'), ['alice', 'bob']);
  });

  it('stores the claims of the latest login through each source, never a secret; deleted with the user', async () => {
    const alice = (await userNamed('alice'))!;
    const res = await dryRun({ source: 'ldap:default', username: 'alice' }).expect(200);
    assert.equal(res.body.source, 'ldap:default');
    assert.equal(res.body.username, 'alice');
    assert.equal(res.body.claims.username, 'alice');
    assert.ok(res.body.claims.groups.includes(DN.staff));
    assert.equal(res.body.claims.attributes.mail?.[0], 'alice@example.org');
    assert.equal(res.body.claims.attributes.userpassword, undefined, 'never a password hash');
    // Only what the maps can read is kept (issue 55): USER_ATTR_MAP's and the rules' attributes, not the entry less a list.
    for (const unnamed of ['uidnumber', 'gidnumber', 'homedirectory', 'objectclass', 'cn', 'uid']) assert.equal(res.body.claims.attributes[unnamed], undefined, unnamed);
    assert.ok(res.body.claims.login_at);
    assert.equal(res.body.current.allowed, true);
    assert.equal(res.body.current.refused_by, null);
    const core = res.body.current.teams.find((x: { team: string }) => x.team === 'Core');
    assert.deepEqual(core, { organization: 'Ops', team: 'Core', role: 'member', creates: false, verdict: 'grant', before: true, after: true, decided_by: 'AUTHENTICATION_MAPS[1]' });
    assert.ok(Array.isArray(res.body.current.steps) && res.body.current.steps.length > 0);
    assert.equal(alice.is_superuser, true);
  });

  it('the dry run: candidate settings, the verdict that decided, and the impact over the last logins; it changes nothing', async () => {
    const before = await t.http().get('/api/v2/organizations/').set('Authorization', ADMIN).expect(200);
    const candidate = {
      AUTHENTICATION_MAPS: [
        { name: 'Admins only', sources: ['ldap'], map_type: 'allow', triggers: { groups: { has_or: [DN.admins] } } },
        { name: 'New org', map_type: 'organization', organization: 'Brand new', triggers: { always: {} } },
      ],
    };
    const res = await dryRun({ source: 'ldap:default', username: 'bob', settings: candidate }).expect(200);
    assert.equal(res.body.current.allowed, true);
    assert.equal(res.body.candidate.allowed, false);
    assert.equal(res.body.candidate.refused_by, 'AUTHENTICATION_MAPS[0]');
    assert.deepEqual(res.body.candidate.organizations, []);
    const impact = res.body.impact;
    assert.ok(impact.users_compared >= 3, JSON.stringify(impact));
    const bob = impact.users.find((u: { username: string }) => u.username === 'bob');
    assert.deepEqual(bob.changes.find((c: { kind: string }) => c.kind === 'allow'), { kind: 'allow', current: true, candidate: false, decided_by: 'AUTHENTICATION_MAPS[0]' });
    const alice = impact.users.find((u: { username: string }) => u.username === 'alice');
    assert.equal(alice?.changes.some((c: { kind: string }) => c.kind === 'allow') ?? false, false, 'alice is an admin: still allowed');
    assert.deepEqual(impact.organizations_created, ['Brand new']);
    // Nothing written.
    const afterwards = await t.http().get('/api/v2/organizations/').set('Authorization', ADMIN).expect(200);
    assert.equal(afterwards.body.count, before.body.count);
    const settingsNow = await t.http().get('/api/v2/settings/authentication/').set('Authorization', ADMIN).expect(200);
    assert.equal(settingsNow.body.AUTHENTICATION_MAPS[0].name, 'Staff only');
  });

  it('the dry run with claims alone: a new user who holds nothing', async () => {
    const res = await dryRun({ source: 'ldap:1', claims: { username: 'newcomer', email: 'n@example.org', groups: [DN.staff], attributes: { mail: ['n@example.org'] } } }).expect(200);
    assert.equal(res.body.username, null);
    assert.equal(res.body.claims.login_at, null);
    assert.equal(res.body.current.allowed, true);
    assert.ok(res.body.current.organizations.some((o: { organization: string; role: string; before: boolean }) => o.organization === 'Mailers' && o.role === 'auditor' && !o.before));
  });

  it('the dry run refuses what is not a question: others 403, bad source, unknown user, no stored login, bad candidate', async () => {
    await t.createUser('plain-maps', 'Plain-maps-pw-1');
    await dryRun({ source: 'ldap:default', username: 'alice' }, basic('plain-maps', 'Plain-maps-pw-1')).expect(403);
    await t.http().post('/api/v2/settings/maps/test/').send({ source: 'ldap:default', username: 'alice' }).expect(401);
    const bad = await dryRun({ source: 'ldap:9', username: 'alice' }).expect(400);
    assert.deepEqual(Object.keys(bad.body), ['source']);
    const unknown = await dryRun({ source: 'ldap:default', username: 'nobody-here' }).expect(400);
    assert.deepEqual(Object.keys(unknown.body), ['username']);
    const none = await dryRun({ source: 'ldap:1', username: 'alice' }).expect(400);
    assert.deepEqual(Object.keys(none.body), ['username']);
    const candidate = await dryRun({ source: 'ldap:default', username: 'alice', settings: { AUTHENTICATION_MAPS: [{ name: 'x', map_type: 'allow' }] } }).expect(400);
    assert.deepEqual(Object.keys(candidate.body), ['settings']);
    const other = await dryRun({ source: 'ldap:default', username: 'alice', settings: { SESSION_COOKIE_AGE: 60 } }).expect(400);
    assert.deepEqual(Object.keys(other.body.settings), ['SESSION_COOKIE_AGE']);
  });

  it('ldap_test shows the maps outcome of the login it explains', async () => {
    const res = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'alice', password: PASSWORDS.alice }).expect(200);
    assert.equal(res.body.would_login, true);
    assert.equal(res.body.maps.allowed, true);
    assert.ok(res.body.maps.teams.some((x: { team: string; after: boolean }) => x.team === 'Core' && x.after));
    const dave = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'dave', password: PASSWORDS.dave }).expect(200);
    assert.equal(dave.body.would_login, false);
    assert.equal(dave.body.maps.refused_by, 'AUTHENTICATION_MAPS[0]');
    const wrong = await t.http().post('/api/v2/settings/ldap/test/').set('Authorization', ADMIN).send({ username: 'alice', password: 'nope' }).expect(200);
    assert.equal(wrong.body.maps, null);
  });

  it('AUTH_CLAIMS_RETENTION_DAYS: the sweep deletes records older than it; deleting a user deletes theirs', async () => {
    await settings('authentication', { AUTH_CLAIMS_RETENTION_DAYS: 1 });
    t.clock.advance(2 * 24 * 3600);
    assert.ok((await t.app.get(ClaimsSweeper).sweepOnce()) >= 3);
    const none = await dryRun({ source: 'ldap:default', username: 'alice' }).expect(400);
    assert.deepEqual(Object.keys(none.body), ['username']);
    await settings('authentication', { AUTH_CLAIMS_RETENTION_DAYS: 90, AUTHENTICATION_MAPS: [] });
    assert.equal((await formLogin(t, 'lara', PASSWORDS.lara)).status, 302);
    const lara = (await userNamed('lara'))!;
    await dryRun({ source: 'ldap:default', username: 'lara' }).expect(200);
    await t.http().delete(`/api/v2/users/${lara.id}/`).set('Authorization', ADMIN).expect(204);
    const rows = await t.app.get<DataSource>(getDataSourceToken()).query('SELECT COUNT(*) AS n FROM auth_login_claims WHERE user_id = ?', [lara.id]);
    assert.equal(Number(rows[0].n), 0);
  });

  it('racing logins: however many race, one organization and one team of a name results, and every grant lands', async () => {
    await settings('ldap', {
      AUTH_LDAP_ORGANIZATION_MAP: { Race: { users: [DN.staff], admins: DN.admins } },
      AUTH_LDAP_TEAM_MAP: { Runners: { organization: 'Race', users: [DN.staff] } },
    });
    const racers = ['alice', 'bob', 'carol', 'o+brien'];
    const answers = await Promise.all(racers.flatMap((name) => [0, 1, 2, 3, 4].map(() => formLogin(t, name, PASSWORDS[name]))));
    assert.deepEqual(answers.map((a) => a.status), answers.map(() => 302));
    const all = await t.http().get('/api/v2/organizations/?name=Race').set('Authorization', ADMIN).expect(200);
    assert.equal(all.body.count, 1, 'one organization of the name');
    const race = all.body.results[0];
    const teams = await t.http().get(`/api/v2/teams/?organization=${race.id}&name=Runners`).set('Authorization', ADMIN).expect(200);
    assert.equal(teams.body.count, 1, 'one team of the name');
    assert.deepEqual(await holders(race, 'member_role'), ['alice', 'bob', 'carol', 'o+brien']);
    assert.deepEqual(await holders(race, 'admin_role'), ['alice']);
    assert.deepEqual(await holders(teams.body.results[0], 'member_role'), ['alice', 'bob', 'carol', 'o+brien']);
  });
});
