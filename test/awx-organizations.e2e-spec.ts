import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { playAwx, TaskResult } from './support/awx-playbook';
import { basic } from './support/test-app';
import { createTestDatabase, TEST_DB, TestDatabase } from './support/test-db';
import { ServiceProcess, spawnService } from './support/service-process';

/**
 * The `awx.awx` collection's organization, team, user (with `organization`) and role modules against the
 * service (SPEC §21), run with Debian's `ansible-playbook` as test/awx-collection.e2e-spec.ts runs the others;
 * what each task did is read back through the API.
 */
const ADMIN_PASSWORD = 'Awx-organizations-admin-1';


describe(`the awx.awx collection manages organizations, teams and roles (${TEST_DB})`, () => {
  let db: TestDatabase;
  let node: ServiceProcess;
  let dir: string;
  const admin = basic('admin', ADMIN_PASSWORD);

  const play = (tasks: object[]) => playAwx(dir, node.url, ADMIN_PASSWORD, tasks);

  async function get(path: string) {
    const res = await request(node.url).get(path).set('Authorization', admin);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body;
  }

  function succeeded(r: Record<string, TaskResult>, changed: Record<string, boolean>): void {
    for (const [task, expected] of Object.entries(changed)) {
      assert.ok(r[task], `task ${task} ran`);
      assert.equal(r[task].failed ?? false, false, `${task}: ${r[task].msg}`);
      assert.equal(r[task].changed, expected, `${task} changed`);
    }
  }

  const usernames = async (path: string) => (await get(path)).results.map((u: { username: string }) => u.username).sort();

  before(async () => {
    db = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'svc-awx-orgs-'));
    node = await spawnService({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD, SECRET_KEY: 'awx-organizations-secret-key-0123456789abcdef' });
    for (const name of ['ann', 'ben']) {
      await request(node.url).post('/api/v2/users/').set('Authorization', admin).send({ username: name, password: `${name}-Pass-1` }).expect(201);
    }
  });
  after(async () => {
    await node?.stop();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('organization: creates, is idempotent, updates, renames, finds a numeric name, deletes', async () => {
    const r = play([
      { name: 'create', organization: { name: 'Engineering', description: 'builds', max_hosts: 3 } },
      { name: 'again', organization: { name: 'Engineering', description: 'builds', max_hosts: 3 } },
      { name: 'update', organization: { name: 'Engineering', description: 'builds things' } },
      { name: 'numeric', organization: { name: '1234' } },
      { name: 'numeric again', organization: { name: '1234', description: 'a number' } },
      { name: 'rename', organization: { name: 'Temporary' } },
      { name: 'renamed', organization: { name: 'Temporary', new_name: 'Renamed' } },
      { name: 'delete', organization: { name: 'Renamed', state: 'absent' } },
      { name: 'delete missing', organization: { name: 'Renamed', state: 'absent' } },
    ]);
    succeeded(r, { create: true, again: false, update: true, numeric: true, 'numeric again': true, rename: true, renamed: true, delete: true, 'delete missing': false });
    const orgs = await get('/api/v2/organizations/?order_by=name');
    assert.deepEqual(orgs.results.map((o: { name: string }) => o.name), ['1234', 'Engineering']);
    const eng = orgs.results[1];
    assert.equal(eng.description, 'builds things');
    assert.equal(eng.max_hosts, 3);
    assert.equal(orgs.results[0].description, 'a number');
  });

  it('team: creates in an organization, is idempotent, updates, deletes', async () => {
    const r = play([
      { name: 'create', team: { name: 'Platform', organization: 'Engineering', description: 'p' } },
      { name: 'again', team: { name: 'Platform', organization: 'Engineering', description: 'p' } },
      { name: 'update', team: { name: 'Platform', organization: 'Engineering', description: 'platform team' } },
      { name: 'second', team: { name: 'Gone', organization: 'Engineering' } },
      { name: 'delete', team: { name: 'Gone', organization: 'Engineering', state: 'absent' } },
      { name: 'missing organization', team: { name: 'X', organization: 'Nowhere' }, ignore_errors: true },
    ]);
    succeeded(r, { create: true, again: false, update: true, second: true, delete: true });
    assert.equal(r['missing organization'].failed, true);
    const teams = await get('/api/v2/teams/');
    assert.deepEqual(teams.results.map((t: { name: string; description: string }) => [t.name, t.description]), [['Platform', 'platform team']]);
    assert.equal(teams.results[0].summary_fields.organization.name, 'Engineering');
  });

  it('user with organization: a new user is made through the organization and is its member; an existing one is only updated', async () => {
    const r = play([
      { name: 'new', user: { username: 'carl', password: 'Carl-pass-1', email: 'carl@example.org', organization: 'Engineering' } },
      { name: 'existing', user: { username: 'ann', first_name: 'Ann', organization: 'Engineering', update_secrets: false } },
    ]);
    succeeded(r, { new: true, existing: true });
    const eng = (await get('/api/v2/organizations/?name=Engineering')).results[0];
    assert.deepEqual(await usernames(`/api/v2/organizations/${eng.id}/users/`), ['carl']);
    assert.equal((await get('/api/v2/users/?username=ann')).results[0].first_name, 'Ann');
  });

  it('role: member, admin and auditor of organizations and teams, present and absent', async () => {
    const r = play([
      { name: 'org member', role: { user: 'ann', organization: 'Engineering', role: 'member' } },
      { name: 'org member again', role: { user: 'ann', organization: 'Engineering', role: 'member' } },
      { name: 'org admin', role: { user: 'ben', organizations: ['Engineering', '1234'], role: 'admin' } },
      { name: 'org auditor', role: { user: 'ann', organization: '1234', role: 'auditor' } },
      { name: 'team member', role: { user: 'ann', target_team: 'Platform', lookup_organization: 'Engineering', role: 'member' } },
      { name: 'team admin', role: { user: 'ben', target_teams: ['Platform'], role: 'admin' } },
      { name: 'team auditor', role: { user: 'ben', target_team: 'Platform', role: 'auditor' }, ignore_errors: true },
      { name: 'team read', role: { user: 'ben', target_team: 'Platform', role: 'read' }, ignore_errors: true },
    ]);
    succeeded(r, { 'org member': true, 'org member again': false, 'org admin': true, 'org auditor': true, 'team member': true, 'team admin': true });
    assert.equal(r['team auditor'].failed, true);
    assert.match(r['team read'].msg ?? '', /has no role read_role, available roles: admin_role, member_role/);
    const eng = (await get('/api/v2/organizations/?name=Engineering')).results[0];
    const numeric = (await get('/api/v2/organizations/?name=1234')).results[0];
    const platform = (await get('/api/v2/teams/?name=Platform')).results[0];
    assert.deepEqual(await usernames(`/api/v2/organizations/${eng.id}/users/`), ['ann', 'carl']);
    assert.deepEqual(await usernames(`/api/v2/organizations/${eng.id}/admins/`), ['ben']);
    assert.deepEqual(await usernames(`/api/v2/organizations/${numeric.id}/admins/`), ['ben']);
    assert.deepEqual(await usernames(`/api/v2/roles/${numeric.summary_fields.object_roles.auditor_role.id}/users/`), ['ann']);
    assert.deepEqual(await usernames(`/api/v2/teams/${platform.id}/users/`), ['ann']);
    assert.deepEqual(await usernames(`/api/v2/roles/${platform.summary_fields.object_roles.admin_role.id}/users/`), ['ben']);

    const revoked = play([
      { name: 'org member', role: { user: 'ann', organization: 'Engineering', role: 'member', state: 'absent' } },
      { name: 'org member again', role: { user: 'ann', organization: 'Engineering', role: 'member', state: 'absent' } },
      { name: 'org admin', role: { user: 'ben', organization: '1234', role: 'admin', state: 'absent' } },
      { name: 'org auditor', role: { user: 'ann', organization: '1234', role: 'auditor', state: 'absent' } },
      { name: 'team member', role: { user: 'ann', target_team: 'Platform', role: 'member', state: 'absent' } },
      { name: 'team admin', role: { user: 'ben', target_team: 'Platform', role: 'admin', state: 'absent' } },
    ]);
    succeeded(revoked, { 'org member': true, 'org member again': false, 'org admin': true, 'org auditor': true, 'team member': true, 'team admin': true });
    assert.deepEqual(await usernames(`/api/v2/organizations/${eng.id}/users/`), ['carl']);
    assert.deepEqual(await usernames(`/api/v2/organizations/${eng.id}/admins/`), ['ben'], 'only the named organization lost its admin');
    assert.deepEqual(await usernames(`/api/v2/organizations/${numeric.id}/admins/`), []);
    assert.deepEqual(await usernames(`/api/v2/roles/${numeric.summary_fields.object_roles.auditor_role.id}/users/`), []);
    assert.deepEqual(await usernames(`/api/v2/teams/${platform.id}/users/`), []);
    assert.deepEqual(await usernames(`/api/v2/roles/${platform.summary_fields.object_roles.admin_role.id}/users/`), []);
  });

  it('organization absent deletes its teams and roles', async () => {
    const r = play([{ name: 'delete', organization: { name: 'Engineering', state: 'absent' } }]);
    succeeded(r, { delete: true });
    assert.equal((await get('/api/v2/teams/')).count, 0);
    assert.equal((await get(`/api/v2/users/?username=ben`)).count, 1);
  });
});
