import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';

const ORG_FIELDS = ['id', 'type', 'url', 'related', 'summary_fields', 'created', 'modified', 'name', 'description', 'max_hosts', 'custom_virtualenv', 'default_environment'];
const TEAM_FIELDS = ['id', 'type', 'url', 'related', 'summary_fields', 'created', 'modified', 'name', 'description', 'organization'];

/** SPEC §21: organizations, teams, their roles and AWX's association POSTs, through HTTP. */
describe(`organizations and teams (SPEC §21, ${TEST_DB})`, () => {
  let t: TestApp;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  const as = (name: string) => basic(name, `${name}-Pass-1`);
  const ids: Record<string, number> = {};

  async function user(name: string, extra: Record<string, unknown> = {}): Promise<number> {
    ids[name] = await t.createUser(name, `${name}-Pass-1`, extra);
    return ids[name];
  }

  async function org(name: string, extra: Record<string, unknown> = {}) {
    const res = await t.http().post('/api/v2/organizations/').set('Authorization', admin()).send({ name, ...extra });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: number; summary_fields: { object_roles: Record<string, { id: number }> } };
  }

  async function team(name: string, organization: number) {
    const res = await t.http().post('/api/v2/teams/').set('Authorization', admin()).send({ name, organization });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: number; summary_fields: { object_roles: Record<string, { id: number }> } };
  }

  async function grant(roleId: number, userId: number, auth = admin(), status = 204) {
    const res = await t.http().post(`/api/v2/roles/${roleId}/users/`).set('Authorization', auth).send({ id: userId });
    assert.equal(res.status, status, res.text);
  }

  async function names(path: string, auth = admin()): Promise<string[]> {
    const res = await t.http().get(path).set('Authorization', auth);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body.results.map((r: { name?: string; username?: string }) => r.name ?? r.username);
  }

  before(async () => {
    t = await startTestApp();
    for (const name of ['oa', 'oaud', 'mem', 'ta', 'tm', 'stranger', 'other']) await user(name);
    await user('sysaud', { is_system_auditor: true });
  });
  after(() => t.close());

  describe('shapes', () => {
    it('an organization has AWX fields, three roles, counts and capabilities', async () => {
      const made = await org('Shapes', { description: 'd', max_hosts: 5 });
      const res = await t.http().get(`/api/v2/organizations/${made.id}/`).set('Authorization', admin()).expect(200);
      assert.deepEqual(Object.keys(res.body), ORG_FIELDS);
      assert.equal(res.body.type, 'organization');
      assert.equal(res.body.url, `/api/v2/organizations/${made.id}/`);
      assert.equal(res.body.max_hosts, 5);
      assert.equal(res.body.custom_virtualenv, null);
      assert.equal(res.body.default_environment, null);
      const url = res.body.url;
      assert.deepEqual(res.body.related, { users: `${url}users/`, admins: `${url}admins/`, teams: `${url}teams/`, object_roles: `${url}object_roles/`, activity_stream: `${url}activity_stream/` });
      const roles = res.body.summary_fields.object_roles;
      assert.deepEqual(Object.keys(roles).sort(), ['admin_role', 'auditor_role', 'member_role']);
      assert.deepEqual({ ...roles.admin_role, id: 0 }, { id: 0, name: 'Admin', description: 'Can manage all aspects of the organization', user_only: true });
      assert.deepEqual({ ...roles.auditor_role, id: 0 }, { id: 0, name: 'Auditor', description: 'Can view all aspects of the organization' });
      assert.deepEqual({ ...roles.member_role, id: 0 }, { id: 0, name: 'Member', description: 'User is a member of the organization', user_only: true });
      assert.equal(new Set([roles.admin_role.id, roles.auditor_role.id, roles.member_role.id]).size, 3);
      assert.deepEqual(res.body.summary_fields.user_capabilities, { edit: true, delete: true });
      assert.deepEqual(res.body.summary_fields.related_field_counts, { inventories: 0, teams: 0, users: 0, admins: 0, job_templates: 0, projects: 0 });
      const defaults = await org('Defaults');
      assert.equal((defaults as unknown as { description: string }).description, '');
      assert.equal((defaults as unknown as { max_hosts: number }).max_hosts, 0);
    });

    it('a team has AWX fields, two roles and its organization summary; a role reads as AWX', async () => {
      const o = await org('TeamShapes', { description: 'org d' });
      const made = await team('Blue', o.id);
      const res = await t.http().get(`/api/v2/teams/${made.id}/`).set('Authorization', admin()).expect(200);
      assert.deepEqual(Object.keys(res.body), TEAM_FIELDS);
      assert.equal(res.body.type, 'team');
      assert.equal(res.body.organization, o.id);
      assert.deepEqual(res.body.related, { organization: `/api/v2/organizations/${o.id}/`, users: `/api/v2/teams/${made.id}/users/`, object_roles: `/api/v2/teams/${made.id}/object_roles/`, activity_stream: `/api/v2/teams/${made.id}/activity_stream/` });
      assert.deepEqual(res.body.summary_fields.organization, { id: o.id, name: 'TeamShapes', description: 'org d' });
      const roles = res.body.summary_fields.object_roles;
      assert.deepEqual({ ...roles.admin_role, id: 0 }, { id: 0, name: 'Admin', description: 'Can manage all aspects of the team' });
      assert.deepEqual({ ...roles.member_role, id: 0 }, { id: 0, name: 'Member', description: 'User is a member of the team' });
      const role = await t.http().get(`/api/v2/roles/${roles.member_role.id}/`).set('Authorization', admin()).expect(200);
      assert.deepEqual(role.body, {
        id: roles.member_role.id,
        type: 'role',
        url: `/api/v2/roles/${roles.member_role.id}/`,
        related: { users: `/api/v2/roles/${roles.member_role.id}/users/`, teams: `/api/v2/roles/${roles.member_role.id}/teams/`, team: `/api/v2/teams/${made.id}/` },
        summary_fields: { resource_name: 'Blue', resource_type: 'team', resource_type_display_name: 'Team', resource_id: made.id },
        name: 'Member',
        description: 'User is a member of the team',
      });
      const orgRole = await t.http().get(`/api/v2/roles/${o.summary_fields.object_roles.auditor_role.id}/`).set('Authorization', admin()).expect(200);
      assert.equal(orgRole.body.related.organization, `/api/v2/organizations/${o.id}/`);
      assert.deepEqual(orgRole.body.summary_fields, { resource_name: 'TeamShapes', resource_type: 'organization', resource_type_display_name: 'Organization', resource_id: o.id });
      const objectRoles = await t.http().get(`/api/v2/organizations/${o.id}/object_roles/`).set('Authorization', admin()).expect(200);
      assert.deepEqual(objectRoles.body.results.map((r: { name: string }) => r.name), ['Admin', 'Auditor', 'Member']);
      assert.deepEqual(await names(`/api/v2/teams/${made.id}/object_roles/?name=Member`), ['Member']);
      assert.deepEqual(await names(`/api/v2/organizations/${o.id}/object_roles/?order_by=-name`), ['Member', 'Auditor', 'Admin']);
    });

    it('refuses bad bodies field by field, and any default_environment but null', async () => {
      const bad = await t.http().post('/api/v2/organizations/').set('Authorization', admin()).send({ name: '', max_hosts: -1, default_environment: 3 }).expect(400);
      assert.deepEqual(Object.keys(bad.body).sort(), ['default_environment', 'max_hosts', 'name']);
      assert.deepEqual(bad.body.default_environment, ['Invalid pk "3" - object does not exist.']);
      const long = await t.http().post('/api/v2/organizations/').set('Authorization', admin()).send({ name: 'x'.repeat(513) }).expect(400);
      assert.deepEqual(long.body, { name: ['Ensure this field has no more than 512 characters.'] });
      await t.http().post('/api/v2/organizations/').set('Authorization', admin()).send({ name: 'x'.repeat(512), default_environment: null }).expect(201);
      const missing = await t.http().post('/api/v2/teams/').set('Authorization', admin()).send({ name: 'T' }).expect(400);
      assert.deepEqual(missing.body, { organization: ['This field is required.'] });
      const nowhere = await t.http().post('/api/v2/teams/').set('Authorization', admin()).send({ name: 'T', organization: 999999 }).expect(400);
      assert.deepEqual(nowhere.body, { organization: ['Invalid pk "999999" - object does not exist.'] });
    });
  });

  describe('names', () => {
    it('compare exactly: Ops and ops are two organizations; a taken name is 400', async () => {
      const upper = await org('Ops');
      const lower = await org('ops');
      assert.notEqual(upper.id, lower.id);
      const taken = await t.http().post('/api/v2/organizations/').set('Authorization', admin()).send({ name: 'Ops' }).expect(400);
      assert.deepEqual(taken.body, { name: ['organization with this name already exists.'] });
      const renamed = await t.http().patch(`/api/v2/organizations/${lower.id}/`).set('Authorization', admin()).send({ name: 'Ops' }).expect(400);
      assert.deepEqual(renamed.body, { name: ['organization with this name already exists.'] });
      assert.deepEqual(await names('/api/v2/organizations/?name=Ops'), ['Ops']);
      assert.deepEqual(await names('/api/v2/organizations/?name=ops'), ['ops']);
      assert.deepEqual(await names('/api/v2/organizations/?name__iexact=OPS&order_by=name'), ['Ops', 'ops']);
    });

    it('a team name is unique within its organization only', async () => {
      const a = await org('TeamNamesA');
      const b = await org('TeamNamesB');
      await team('Dev', a.id);
      await team('Dev', b.id);
      await team('dev', a.id);
      const taken = await t.http().post('/api/v2/teams/').set('Authorization', admin()).send({ name: 'Dev', organization: a.id }).expect(400);
      assert.deepEqual(taken.body, { __all__: ['Team with this Organization and Name already exists.'] });
      const lower = await t.http().get(`/api/v2/teams/?name=dev&organization=${a.id}`).set('Authorization', admin()).expect(200);
      const renamed = await t.http().patch(`/api/v2/teams/${lower.body.results[0].id}/`).set('Authorization', admin()).send({ name: 'Dev' }).expect(400);
      assert.deepEqual(renamed.body, { __all__: ['Team with this Organization and Name already exists.'] });
      assert.deepEqual(await names(`/api/v2/teams/?name=Dev&organization=${a.id}`), ['Dev']);
      assert.deepEqual(await names(`/api/v2/teams/?organization__name=TeamNamesB`), ['Dev']);
    });
  });

  describe('teams and their organization', () => {
    it('a team never changes organization: 403 for superusers too; POST on organizations/N/teams/ makes it in N', async () => {
      const a = await org('MoveA');
      const b = await org('MoveB');
      const made = await team('Stay', a.id);
      const moved = await t.http().patch(`/api/v2/teams/${made.id}/`).set('Authorization', admin()).send({ organization: b.id }).expect(403);
      assert.deepEqual(moved.body, { detail: 'Unable to change organization on a team.' });
      await t.http().put(`/api/v2/teams/${made.id}/`).set('Authorization', admin()).send({ name: 'Stay', organization: b.id }).expect(403);
      const same = await t.http().put(`/api/v2/teams/${made.id}/`).set('Authorization', admin()).send({ name: 'Stayed', organization: a.id, description: 'x' }).expect(200);
      assert.equal(same.body.name, 'Stayed');
      const inB = await t.http().post(`/api/v2/organizations/${b.id}/teams/`).set('Authorization', admin()).send({ name: 'Here', organization: a.id }).expect(201);
      assert.equal(inB.body.organization, b.id);
      await t.http().post(`/api/v2/organizations/${b.id}/teams/`).set('Authorization', admin()).send({ id: made.id }).expect(400);
      assert.deepEqual(await names(`/api/v2/organizations/${b.id}/teams/`), ['Here']);
      assert.deepEqual(await names(`/api/v2/organizations/${a.id}/teams/`), ['Stayed']);
    });
  });

  describe('association POSTs', () => {
    let o: Awaited<ReturnType<typeof org>>;
    before(async () => {
      o = await org('Assoc');
    });

    it('grant, grant again, revoke, revoke again: each 204 with no body; associate:true means nothing', async () => {
      const path = `/api/v2/organizations/${o.id}/users/`;
      const first = await t.http().post(path).set('Authorization', admin()).send({ id: ids.mem, associate: true }).expect(204);
      assert.equal(first.text, '');
      await t.http().post(path).set('Authorization', admin()).send({ id: ids.mem }).expect(204);
      assert.deepEqual(await names(path), ['mem']);
      assert.deepEqual(await names(`/api/v2/users/${ids.mem}/organizations/`), ['Assoc']);
      await t.http().post(path).set('Authorization', admin()).send({ id: ids.mem, disassociate: false }).expect(204);
      assert.deepEqual(await names(path), [], 'disassociate acts on its presence, whatever its value');
      await t.http().post(path).set('Authorization', admin()).send({ id: ids.mem, disassociate: true }).expect(204);
      await t.http().post(`/api/v2/organizations/${o.id}/admins/`).set('Authorization', admin()).send({ id: ids.oa }).expect(204);
      assert.deepEqual(await names(`/api/v2/organizations/${o.id}/admins/`), ['oa']);
      assert.deepEqual(await names(`/api/v2/users/${ids.oa}/admin_of_organizations/`), ['Assoc']);
      const counts = await t.http().get(`/api/v2/organizations/${o.id}/`).set('Authorization', admin()).expect(200);
      assert.equal(counts.body.summary_fields.related_field_counts.admins, 1);
      await t.http().post(`/api/v2/organizations/${o.id}/admins/`).set('Authorization', admin()).send({ id: ids.oa, disassociate: true }).expect(204);
    });

    it('refuses an id that is not an integer, a missing id, an unknown user', async () => {
      const path = `/api/v2/organizations/${o.id}/users/`;
      for (const id of ['3', 1.5, true, [1], { a: 1 }]) {
        const res = await t.http().post(path).set('Authorization', admin()).send({ id }).expect(400);
        assert.deepEqual(res.body, { msg: '"id" field must be an integer.' }, JSON.stringify(id));
      }
      const unknown = await t.http().post(path).set('Authorization', admin()).send({ id: 999999 }).expect(400);
      assert.deepEqual(unknown.body, { detail: 'User matching query does not exist.' });
      const role = o.summary_fields.object_roles.auditor_role.id;
      const noUser = await t.http().post(`/api/v2/roles/${role}/users/`).set('Authorization', admin()).send({}).expect(400);
      assert.deepEqual(noUser.body, { msg: "User 'id' field is missing." });
      const noRole = await t.http().post(`/api/v2/users/${ids.mem}/roles/`).set('Authorization', admin()).send({ associate: true }).expect(400);
      assert.deepEqual(noRole.body, { msg: "Role 'id' field is missing." });
      const badRole = await t.http().post(`/api/v2/users/${ids.mem}/roles/`).set('Authorization', admin()).send({ id: 'x' }).expect(400);
      assert.deepEqual(badRole.body, { msg: '"id" field must be an integer.' });
      const team = await t.http().post(`/api/v2/roles/${role}/teams/`).set('Authorization', admin()).send({ id: 1 }).expect(400);
      assert.deepEqual(team.body, { msg: 'Granting a role to a team is not supported.' });
      const teams = await t.http().get(`/api/v2/roles/${role}/teams/`).set('Authorization', admin()).expect(200);
      assert.deepEqual(teams.body, { count: 0, next: null, previous: null, results: [] });
      await t.http().get(`/api/v2/roles/${role}/teams/?nope=1`).set('Authorization', admin()).expect(400);
      for (const list of ['organizations', 'admin_of_organizations', 'teams']) {
        await t.http().post(`/api/v2/users/${ids.mem}/${list}/`).set('Authorization', admin()).send({ id: o.id }).expect(405);
      }
    });

    it('grants and revokes through /roles/N/users/ and /users/N/roles/', async () => {
      const role = o.summary_fields.object_roles.auditor_role.id;
      await grant(role, ids.oaud);
      assert.deepEqual(await names(`/api/v2/roles/${role}/users/`), ['oaud']);
      const held = await t.http().get(`/api/v2/users/${ids.oaud}/roles/`).set('Authorization', admin()).expect(200);
      assert.deepEqual(held.body.results.map((r: { id: number }) => r.id), [role]);
      await t.http().post(`/api/v2/users/${ids.oaud}/roles/`).set('Authorization', admin()).send({ id: role, disassociate: true }).expect(204);
      assert.deepEqual(await names(`/api/v2/roles/${role}/users/`), []);
      await t.http().post(`/api/v2/users/${ids.oaud}/roles/`).set('Authorization', admin()).send({ id: role }).expect(204);
      assert.deepEqual(await names(`/api/v2/roles/${role}/users/`), ['oaud']);
      const missing = await t.http().post(`/api/v2/users/${ids.oaud}/roles/`).set('Authorization', admin()).send({ id: 999999 }).expect(400);
      assert.deepEqual(missing.body, { detail: 'Role matching query does not exist.' });
    });

    it('without id makes a user as POST /api/v2/users/ does and grants the role: 201 with Location', async () => {
      const made = await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', admin()).send({ username: 'newbie', password: 'Newbie-pass-1', email: 'n@example.org' }).expect(201);
      assert.equal(made.body.username, 'newbie');
      assert.equal(made.body.type, 'user');
      assert.equal(made.headers.location, made.body.url);
      assert.ok((await names(`/api/v2/organizations/${o.id}/users/`)).includes('newbie'));
      const dup = await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', admin()).send({ username: 'newbie', password: 'Newbie-pass-1' }).expect(400);
      assert.deepEqual(dup.body, { username: ['A user with that username already exists.'] });
      const noPassword = await t.http().post(`/api/v2/organizations/${o.id}/admins/`).set('Authorization', admin()).send({ username: 'nopass' }).expect(400);
      assert.deepEqual(noPassword.body, { password: ['Password required for new User.'] });
      const tm = await team('AssocTeam', o.id);
      const inTeam = await t.http().post(`/api/v2/teams/${tm.id}/users/`).set('Authorization', admin()).send({ username: 'teamie', password: 'Teamie-pass-1' }).expect(201);
      assert.deepEqual(await names(`/api/v2/teams/${tm.id}/users/`), ['teamie']);
      assert.deepEqual(await names(`/api/v2/users/${inTeam.body.id}/teams/`), ['AssocTeam']);
    });
  });

  describe('who may', () => {
    let o: Awaited<ReturnType<typeof org>>;
    let hidden: Awaited<ReturnType<typeof org>>;
    let tm: Awaited<ReturnType<typeof team>>;
    before(async () => {
      o = await org('Rights');
      hidden = await org('Hidden');
      tm = await team('RightsTeam', o.id);
      await t.http().post(`/api/v2/organizations/${o.id}/admins/`).set('Authorization', admin()).send({ id: ids.oa }).expect(204);
      await grant(o.summary_fields.object_roles.auditor_role.id, ids.oaud);
      await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', admin()).send({ id: ids.mem }).expect(204);
      await grant(tm.summary_fields.object_roles.admin_role.id, ids.ta);
      await grant(tm.summary_fields.object_roles.member_role.id, ids.tm);
    });

    it('hides what the caller cannot read (404) and shows what it can', async () => {
      // A team's role gives no right to read its organization (only the organization's own roles do).
      for (const name of ['stranger', 'tm', 'ta']) await t.http().get(`/api/v2/organizations/${o.id}/`).set('Authorization', as(name)).expect(404);
      for (const name of ['oa', 'oaud', 'mem', 'sysaud']) await t.http().get(`/api/v2/organizations/${o.id}/`).set('Authorization', as(name)).expect(200);
      await t.http().get(`/api/v2/organizations/${hidden.id}/`).set('Authorization', as('oa')).expect(404);
      await t.http().get(`/api/v2/organizations/${hidden.id}/users/`).set('Authorization', as('oa')).expect(404);
      await t.http().patch(`/api/v2/organizations/${hidden.id}/`).set('Authorization', as('oa')).send({ description: 'x' }).expect(404);
      await t.http().get(`/api/v2/teams/${tm.id}/`).set('Authorization', as('stranger')).expect(404);
      await t.http().get(`/api/v2/roles/${tm.summary_fields.object_roles.admin_role.id}/`).set('Authorization', as('stranger')).expect(404);
      await t.http().get(`/api/v2/teams/${tm.id}/`).set('Authorization', as('tm')).expect(200);
      await t.http().get(`/api/v2/teams/${tm.id}/`).set('Authorization', as('mem')).expect(200);
      assert.deepEqual(await names('/api/v2/organizations/', as('mem')), ['Rights']);
      assert.deepEqual(await names('/api/v2/organizations/', as('stranger')), []);
      assert.deepEqual(await names('/api/v2/teams/', as('tm')), ['RightsTeam']);
      assert.deepEqual(await names(`/api/v2/teams/?organization=${o.id}`, as('oaud')), ['RightsTeam']);
      assert.ok((await names('/api/v2/organizations/', as('sysaud'))).includes('Hidden'), 'a system auditor reads everything');
      const detail = await t.http().get(`/api/v2/organizations/${o.id}/`).set('Authorization', as('mem')).expect(200);
      assert.deepEqual(detail.body.summary_fields.user_capabilities, { edit: false, delete: false });
    });

    it('an organization admin changes it (not max_hosts), manages its teams and grants its roles; a member may not', async () => {
      const changed = await t.http().patch(`/api/v2/organizations/${o.id}/`).set('Authorization', as('oa')).send({ description: 'by oa', max_hosts: 0 }).expect(200);
      assert.equal(changed.body.description, 'by oa');
      assert.deepEqual(changed.body.summary_fields.user_capabilities, { edit: true, delete: true });
      const hosts = await t.http().patch(`/api/v2/organizations/${o.id}/`).set('Authorization', as('oa')).send({ max_hosts: 10 }).expect(400);
      assert.deepEqual(hosts.body, { __all__: ['Cannot change max_hosts.'] });
      await t.http().post('/api/v2/organizations/').set('Authorization', as('oa')).send({ name: 'ByOa' }).expect(403);
      await t.http().patch(`/api/v2/organizations/${o.id}/`).set('Authorization', as('mem')).send({ description: 'x' }).expect(403);
      await t.http().patch(`/api/v2/organizations/${o.id}/`).set('Authorization', as('oaud')).send({ description: 'x' }).expect(403);
      await t.http().delete(`/api/v2/organizations/${o.id}/`).set('Authorization', as('mem')).expect(403);
      const made = await t.http().post('/api/v2/teams/').set('Authorization', as('oa')).send({ name: 'OaTeam', organization: o.id }).expect(201);
      assert.deepEqual(made.body.summary_fields.user_capabilities, { edit: true, delete: true });
      await t.http().post('/api/v2/teams/').set('Authorization', as('mem')).send({ name: 'MemTeam', organization: o.id }).expect(403);
      const invisible = await t.http().post('/api/v2/teams/').set('Authorization', as('oa')).send({ name: 'X', organization: hidden.id }).expect(400);
      assert.deepEqual(invisible.body, { organization: [`Invalid pk "${hidden.id}" - object does not exist.`] });
      await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', as('oa')).send({ id: ids.other }).expect(204);
      await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', as('oa')).send({ id: ids.other, disassociate: true }).expect(204);
      await grant(tm.summary_fields.object_roles.member_role.id, ids.other, as('oa'));
      await t.http().post(`/api/v2/organizations/${o.id}/admins/`).set('Authorization', as('mem')).send({ id: ids.mem }).expect(403);
      await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', as('oa')).send({ username: 'byoa', password: 'Byoa-pass-1' }).expect(403);
      await t.http().delete(`/api/v2/teams/${made.body.id}/`).set('Authorization', as('oa')).expect(204);
    });

    it('a team admin changes the team and grants its roles, but not the organization; an auditor only reads', async () => {
      await t.http().patch(`/api/v2/teams/${tm.id}/`).set('Authorization', as('ta')).send({ description: 'by ta' }).expect(200);
      // A team admin sees the members of the team's organization (issue 56): whom it may add, itself among them.
      await grant(tm.summary_fields.object_roles.member_role.id, ids.ta, as('ta'));
      await grant(tm.summary_fields.object_roles.member_role.id, ids.mem, as('ta'));
      await grant(o.summary_fields.object_roles.member_role.id, ids.ta, as('ta'), 404);
      await t.http().patch(`/api/v2/teams/${tm.id}/`).set('Authorization', as('tm')).send({ description: 'by tm' }).expect(403);
      await grant(tm.summary_fields.object_roles.admin_role.id, ids.tm, as('tm'), 403);
      await t.http().patch(`/api/v2/teams/${tm.id}/`).set('Authorization', as('oaud')).send({ description: 'x' }).expect(403);
      await grant(o.summary_fields.object_roles.member_role.id, ids.other, as('oaud'), 403);
      assert.deepEqual(await names(`/api/v2/teams/${tm.id}/users/`, as('oaud')), ['mem', 'ta', 'tm', 'other'], 'holders in id order');
      await t.http().patch(`/api/v2/teams/${tm.id}/`).set('Authorization', as('sysaud')).send({ description: 'x' }).expect(403);
      assert.deepEqual(await names(`/api/v2/organizations/${o.id}/admins/`, as('sysaud')), ['oa']);
    });

    it("a team's admin sees the members of the team's organization, whom it may add; a team member does not (issue 56)", async () => {
      assert.deepEqual(await names('/api/v2/users/?order_by=username', as('ta')), ['mem', 'ta']);
      const seen = await t.http().get(`/api/v2/users/${ids.mem}/`).set('Authorization', as('ta')).expect(200);
      assert.equal(seen.body.username, 'mem');
      assert.deepEqual(await names('/api/v2/users/?username=mem', as('ta')), ['mem']);
      await t.http().get(`/api/v2/users/${ids.stranger}/`).set('Authorization', as('ta')).expect(404);
      assert.deepEqual(await names('/api/v2/users/', as('tm')), ['tm'], 'a member of the team only sees itself');
      const path = `/api/v2/teams/${tm.id}/users/`;
      await t.http().post(path).set('Authorization', as('ta')).send({ id: ids.mem, disassociate: true }).expect(204);
      assert.ok(!(await names(path)).includes('mem'));
      await t.http().post(path).set('Authorization', as('ta')).send({ id: ids.mem }).expect(204);
      assert.ok((await names(path)).includes('mem'));
      // Someone outside the organization is no one the team admin sees: the 400 of a caller who may grant there.
      const outside = await t.http().post(path).set('Authorization', as('ta')).send({ id: ids.stranger });
      assert.equal(outside.status, 400, outside.text);
      assert.deepEqual(outside.body, { detail: 'User matching query does not exist.' });
    });

    it('the right is decided before the body is read: without it, 403 with one body whatever id the body names (issue 56)', async () => {
      const orgRole = o.summary_fields.object_roles.member_role.id;
      const teamAdminRole = tm.summary_fields.object_roles.admin_role.id;
      const refusals: [string, string, unknown[]][] = [
        // A member of the organization, and of the team through it: reads all of these, may grant none.
        ['mem', `/api/v2/organizations/${o.id}/users/`, [{ id: ids.other }, { id: ids.mem }, { id: 999999 }, { id: 999999, disassociate: true }, { id: 'x' }, {}]],
        ['mem', `/api/v2/organizations/${o.id}/admins/`, [{ id: ids.mem }, { id: 999999 }]],
        ['mem', `/api/v2/roles/${orgRole}/users/`, [{ id: ids.other }, { id: 999999 }, {}]],
        ['mem', `/api/v2/teams/${tm.id}/users/`, [{ id: ids.other }, { id: 999999 }]],
        ['mem', `/api/v2/users/${ids.mem}/roles/`, [{ id: orgRole }, { id: teamAdminRole }, { id: 999999 }, {}]],
        // A member of the team: the same.
        ['tm', `/api/v2/teams/${tm.id}/users/`, [{ id: ids.tm }, { id: 999999 }, { id: ids.tm, disassociate: true }]],
        ['tm', `/api/v2/roles/${teamAdminRole}/users/`, [{ id: ids.tm }, { id: 999999 }]],
        ['tm', `/api/v2/users/${ids.tm}/roles/`, [{ id: teamAdminRole }, { id: 999999 }]],
        // An auditor of the organization reads it and its holders, and grants nothing.
        ['oaud', `/api/v2/organizations/${o.id}/users/`, [{ id: ids.other }, { id: 999999 }]],
      ];
      const denied = { detail: 'You do not have permission to perform this action.' };
      for (const [name, path, bodies] of refusals) {
        for (const body of bodies) {
          const res = await t.http().post(path).set('Authorization', as(name)).send(body as object);
          assert.equal(res.status, 403, `${name} ${path} ${JSON.stringify(body)}: ${res.status} ${res.text}`);
          assert.deepEqual(res.body, denied, `${name} ${path} ${JSON.stringify(body)}`);
        }
      }
      assert.deepEqual(await names(`/api/v2/organizations/${o.id}/admins/`), ['oa'], 'nothing granted');
      assert.deepEqual(await names(`/api/v2/roles/${teamAdminRole}/users/`), ['ta']);
      // Who may grant there still gets the 400s: an unknown user or role, a missing or wrong id.
      const unknownUser = await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', as('oa')).send({ id: 999999 }).expect(400);
      assert.deepEqual(unknownUser.body, { detail: 'User matching query does not exist.' });
      const unknownRole = await t.http().post(`/api/v2/users/${ids.mem}/roles/`).set('Authorization', as('ta')).send({ id: 999999 }).expect(400);
      assert.deepEqual(unknownRole.body, { detail: 'Role matching query does not exist.' });
      const unseenRole = await t.http().post(`/api/v2/users/${ids.mem}/roles/`).set('Authorization', as('ta')).send({ id: orgRole }).expect(400);
      assert.deepEqual(unseenRole.body, { detail: 'Role matching query does not exist.' }, "the organization's roles are hidden from the team's admin");
      const noId = await t.http().post(`/api/v2/roles/${teamAdminRole}/users/`).set('Authorization', as('ta')).send({}).expect(400);
      assert.deepEqual(noId.body, { msg: "User 'id' field is missing." });
    });

    it('MANAGE_ORGANIZATION_AUTH false: only superusers manage teams and grant roles', async () => {
      await t.settings({ MANAGE_ORGANIZATION_AUTH: false });
      try {
        await t.http().patch(`/api/v2/teams/${tm.id}/`).set('Authorization', as('ta')).send({ description: 'no' }).expect(403);
        await t.http().post('/api/v2/teams/').set('Authorization', as('oa')).send({ name: 'NoTeam', organization: o.id }).expect(403);
        await grant(tm.summary_fields.object_roles.member_role.id, ids.other, as('oa'), 403);
        await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', as('oa')).send({ id: ids.other }).expect(403);
        await t.http().patch(`/api/v2/organizations/${o.id}/`).set('Authorization', as('oa')).send({ description: 'still mine' }).expect(200);
        const read = await t.http().get(`/api/v2/teams/${tm.id}/`).set('Authorization', as('ta')).expect(200);
        assert.deepEqual(read.body.summary_fields.user_capabilities, { edit: false, delete: false });
        await grant(tm.summary_fields.object_roles.member_role.id, ids.other);
      } finally {
        await t.settings({ MANAGE_ORGANIZATION_AUTH: true });
      }
    });

    it('role_level keeps the objects the caller holds that role on; another value or another list is 400', async () => {
      assert.deepEqual(await names(`/api/v2/organizations/?name__in=Rights,Hidden&role_level=admin_role`, as('oa')), ['Rights']);
      assert.deepEqual(await names(`/api/v2/organizations/?name__in=Rights,Hidden&role_level=member_role`, as('oa')), ['Rights'], 'an admin is a member');
      assert.deepEqual(await names(`/api/v2/organizations/?name__in=Rights,Hidden&role_level=auditor_role`, as('oa')), []);
      assert.deepEqual(await names(`/api/v2/organizations/?name__in=Rights,Hidden&role_level=auditor_role`, as('oaud')), ['Rights']);
      assert.deepEqual(await names(`/api/v2/organizations/?name__in=Rights,Hidden&role_level=member_role`, as('oaud')), []);
      assert.deepEqual(await names(`/api/v2/organizations/?name__in=Rights,Hidden&role_level=read_role`, as('oaud')), ['Rights']);
      assert.deepEqual(await names(`/api/v2/teams/?organization=${o.id}&role_level=admin_role`, as('oa')), ['RightsTeam'], "an organization admin administers its teams");
      assert.deepEqual(await names(`/api/v2/teams/?organization=${o.id}&role_level=admin_role`, as('ta')), ['RightsTeam']);
      assert.deepEqual(await names(`/api/v2/teams/?organization=${o.id}&role_level=member_role`, as('ta')), ['RightsTeam']);
      assert.deepEqual(await names(`/api/v2/teams/?organization=${o.id}&role_level=admin_role`, as('tm')), []);
      assert.deepEqual(await names(`/api/v2/teams/?organization=${o.id}&role_level=member_role`, as('tm')), ['RightsTeam']);
      const all = await names('/api/v2/organizations/?role_level=admin_role');
      assert.ok(all.includes('Hidden'), 'a superuser holds every role');
      await t.http().get('/api/v2/organizations/?role_level=owner_role').set('Authorization', admin()).expect(400);
      for (const path of ['/api/v2/users/', '/api/v2/hosts/', `/api/v2/organizations/${o.id}/users/`, `/api/v2/users/${ids.oa}/roles/`]) {
        const res = await t.http().get(`${path}?role_level=admin_role`).set('Authorization', admin()).expect(400);
        assert.deepEqual(res.body, { detail: 'Cannot apply role_level filter to this list because its model does not use roles for access control.' }, path);
      }
    });
  });

  describe('users seen by non-superusers', () => {
    it('themselves and members of organizations they read; every user to admins and auditors while ORG_ADMINS_CAN_SEE_ALL_USERS', async () => {
      const o = await org('Seen');
      await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', admin()).send({ id: ids.other }).expect(204);
      const loner = await user('loner');
      const watcher = await user('watcher');
      const boss = await user('boss');
      await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', admin()).send({ id: watcher }).expect(204);
      await t.http().post(`/api/v2/organizations/${o.id}/admins/`).set('Authorization', admin()).send({ id: boss }).expect(204);
      assert.deepEqual(await names('/api/v2/users/', as('loner')), ['loner']);
      await t.http().get(`/api/v2/users/${watcher}/`).set('Authorization', as('loner')).expect(404);
      assert.deepEqual(await names('/api/v2/users/?order_by=username', as('watcher')), ['other', 'watcher']);
      const seen = await t.http().get(`/api/v2/users/${ids.other}/`).set('Authorization', as('watcher')).expect(200);
      assert.equal(seen.body.username, 'other');
      await t.http().patch(`/api/v2/users/${ids.other}/`).set('Authorization', as('watcher')).send({ first_name: 'x' }).expect(403);
      await t.http().get(`/api/v2/users/${loner}/`).set('Authorization', as('watcher')).expect(404);
      await t.http().get(`/api/v2/users/${loner}/roles/`).set('Authorization', as('watcher')).expect(404);
      assert.ok((await names('/api/v2/users/', as('boss'))).includes('loner'), 'an admin sees every user');
      await t.http().get(`/api/v2/users/${loner}/`).set('Authorization', as('boss')).expect(200);
      await t.settings({ ORG_ADMINS_CAN_SEE_ALL_USERS: false });
      try {
        assert.deepEqual(await names('/api/v2/users/?order_by=username', as('boss')), ['boss', 'other', 'watcher']);
        await t.http().get(`/api/v2/users/${loner}/`).set('Authorization', as('boss')).expect(404);
        const hiddenUser = await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', as('boss')).send({ id: loner }).expect(400);
        assert.deepEqual(hiddenUser.body, { detail: 'User matching query does not exist.' });
      } finally {
        await t.settings({ ORG_ADMINS_CAN_SEE_ALL_USERS: true });
      }
      await t.http().post(`/api/v2/organizations/${o.id}/users/`).set('Authorization', as('boss')).send({ id: loner }).expect(204);
      assert.ok((await names('/api/v2/users/', as('watcher'))).includes('loner'), 'a new member is seen by the other members');
    });
  });

  describe('deletes', () => {
    it('deleting an organization deletes its teams and every role held in either; deleting a team ends its roles', async () => {
      const o = await org('Doomed');
      const tm = await team('DoomedTeam', o.id);
      const keep = await team('KeptTeam', o.id);
      const victim = await user('victim');
      await grant(o.summary_fields.object_roles.admin_role.id, victim);
      await grant(tm.summary_fields.object_roles.member_role.id, victim);
      await grant(keep.summary_fields.object_roles.admin_role.id, victim);
      await t.http().delete(`/api/v2/teams/${tm.id}/`).set('Authorization', admin()).expect(204);
      await t.http().get(`/api/v2/roles/${tm.summary_fields.object_roles.member_role.id}/`).set('Authorization', admin()).expect(404);
      assert.equal((await t.http().get(`/api/v2/users/${victim}/roles/`).set('Authorization', admin()).expect(200)).body.count, 2);
      await t.http().delete(`/api/v2/organizations/${o.id}/`).set('Authorization', admin()).expect(204);
      await t.http().get(`/api/v2/teams/${keep.id}/`).set('Authorization', admin()).expect(404);
      await t.http().get(`/api/v2/roles/${o.summary_fields.object_roles.admin_role.id}/`).set('Authorization', admin()).expect(404);
      assert.equal((await t.http().get(`/api/v2/users/${victim}/roles/`).set('Authorization', admin()).expect(200)).body.count, 0);
      await t.http().get(`/api/v2/users/${victim}/`).set('Authorization', admin()).expect(200);
    });
  });

  describe('§19 on these lists', () => {
    it('filters, searches and orders organizations, teams and holders', async () => {
      await org('Query-Alpha', { description: 'first one' });
      await org('Query-Beta', { description: 'second' });
      assert.deepEqual(await names('/api/v2/organizations/?search=query-&order_by=-name'), ['Query-Beta', 'Query-Alpha']);
      assert.deepEqual(await names('/api/v2/organizations/?description__icontains=FIRST'), ['Query-Alpha']);
      assert.deepEqual(await names('/api/v2/organizations/?or__name=Query-Alpha&or__name=Query-Beta'), ['Query-Alpha', 'Query-Beta']);
      const bad = await t.http().get('/api/v2/organizations/?nope=1').set('Authorization', admin()).expect(400);
      assert.ok(bad.body.detail);
      await t.http().get('/api/v2/teams/?organization__max_hosts=0').set('Authorization', admin()).expect(400);
      const count = await t.http().get('/api/v2/organizations/?name__startswith=Query&page_size=1').set('Authorization', admin()).expect(200);
      assert.equal(count.body.count, 2);
      assert.equal(count.body.next, '/api/v2/organizations/?page=2&name__startswith=Query&page_size=1');
      await t.http().get('/api/v2/organizations/').expect(401);
    });
  });
});
