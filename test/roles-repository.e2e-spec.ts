import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Transactions } from '../src/database/transactions';
import { RolesRepository } from '../src/organizations/roles.repository';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';

/**
 * RolesRepository, which the maps call inside a login's transaction (SPEC §21): holdings and objects by name,
 * find-or-make that racing logins cannot double, and grants and revokes that say whether they changed anything.
 */
describe(`the roles repository the maps use (${TEST_DB})`, () => {
  let t: TestApp;
  let roles: RolesRepository;
  let transactions: Transactions;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  const users: number[] = [];

  before(async () => {
    t = await startTestApp();
    roles = t.app.get(RolesRepository);
    transactions = t.app.get(Transactions);
    for (let i = 0; i < 8; i++) users.push(await t.createUser(`racer${i}`, `Racer-pass-${i}`));
  });
  after(() => t.close());

  it('grants by name, making what is missing, and says whether anything changed', async () => {
    const [user] = users;
    assert.equal(await transactions.run((m) => roles.grant(user, { organization: 'Maps', role: 'admin' }, m)), true);
    assert.equal(await transactions.run((m) => roles.grant(user, { organization: 'Maps', role: 'admin' }, m)), false);
    assert.equal(await transactions.run((m) => roles.grant(user, { organization: 'Maps', team: 'Crew', role: 'member' }, m)), true);
    assert.equal(await transactions.run((m) => roles.grant(user, { organization: 'maps', role: 'auditor' }, m)), true, 'maps is not Maps');
    const holdings = await roles.holdingsOf(user);
    assert.deepEqual(holdings, {
      organizations: [{ organization: 'Maps', role: 'admin' }, { organization: 'maps', role: 'auditor' }],
      teams: [{ organization: 'Maps', team: 'Crew', role: 'member' }],
    });
    const existing = await roles.existingObjects();
    assert.deepEqual([...existing.organizations].sort(), ['Maps', 'maps']);
    assert.deepEqual([...existing.teams], [JSON.stringify(['Maps', 'Crew'])]);
    assert.equal(await transactions.run((m) => roles.revoke(user, { organization: 'Maps', team: 'Crew', role: 'member' }, m)), true);
    assert.equal(await transactions.run((m) => roles.revoke(user, { organization: 'Maps', team: 'Crew', role: 'member' }, m)), false);
    assert.equal(await transactions.run((m) => roles.revoke(user, { organization: 'Nowhere', role: 'member' }, m)), false);
    assert.equal(await roles.organizationNamed('Nowhere'), null, 'a revoke makes nothing');
    const made = await t.http().get('/api/v2/organizations/?name=Maps').set('Authorization', admin()).expect(200);
    assert.deepEqual(Object.keys(made.body.results[0].summary_fields.object_roles).sort(), ['admin_role', 'auditor_role', 'member_role'], 'made with its roles');
    const team = await t.http().get('/api/v2/teams/?name=Crew').set('Authorization', admin()).expect(200);
    assert.deepEqual(Object.keys(team.body.results[0].summary_fields.object_roles).sort(), ['admin_role', 'member_role']);
  });

  it('logins racing to make the same organization and team make one of each', async () => {
    const results = await Promise.all(
      users.map((user) =>
        transactions.run(async (m) => {
          const team = await roles.ensureTeam('Race', 'Pit', m);
          await roles.grant(user, { organization: 'Race', team: 'Pit', role: 'member' }, m);
          await roles.grant(user, { organization: 'Race', role: 'member' }, m);
          return team.id;
        }),
      ),
    );
    assert.equal(new Set(results).size, 1, 'every login found the same team');
    const orgs = await t.http().get('/api/v2/organizations/?name=Race').set('Authorization', admin()).expect(200);
    assert.equal(orgs.body.count, 1);
    const org = orgs.body.results[0];
    assert.equal(org.summary_fields.related_field_counts.users, users.length);
    assert.equal(org.summary_fields.related_field_counts.teams, 1);
    const roleList = await t.http().get(`/api/v2/organizations/${org.id}/object_roles/`).set('Authorization', admin()).expect(200);
    assert.equal(roleList.body.count, 3, 'three roles, not three per login');
    const members = await t.http().get(`/api/v2/teams/${results[0]}/users/`).set('Authorization', admin()).expect(200);
    assert.equal(members.body.count, users.length);
  });

  it('a grant rolled back with its login leaves nothing', async () => {
    await assert.rejects(
      transactions.run(async (m) => {
        await roles.grant(users[1], { organization: 'Undone', role: 'member' }, m);
        throw new Error('the login failed after the grants');
      }),
      /the login failed/,
    );
    assert.equal(await roles.organizationNamed('Undone'), null);
    assert.deepEqual((await roles.holdingsOf(users[1])).organizations.filter((o) => o.organization === 'Undone'), []);
  });
});
