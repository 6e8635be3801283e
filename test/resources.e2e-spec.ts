import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CALLERS, startWithResourceUsers } from './support/resource-users';
import { basic, TestApp } from './support/test-app';

/**
 * The rules every owned resource shares (SPEC §10, docs/decisions.md "Resources"): the creating user
 * owns an object; owners and superusers act; auditors read everything and change nothing of
 * another's; others see nothing of another's (404); scopes apply; bad ids and bodies never 5xx.
 */
const RESOURCES = [
  { path: '/api/v2/hosts/', type: 'host', extra: ['inventory', 'enabled', 'instance_id', 'variables'] },
  { path: '/api/v2/credentials/', type: 'credential', extra: ['credential_type', 'inputs'] },
  {
    path: '/api/v2/job_templates/',
    type: 'job_template',
    extra: ['job_type', 'inventory', 'project', 'playbook', 'limit', 'extra_vars', 'ask_limit_on_launch', 'ask_variables_on_launch', 'ask_inventory_on_launch', 'ask_credential_on_launch', 'ask_job_type_on_launch', 'ask_tags_on_launch', 'ask_skip_tags_on_launch', 'ask_diff_mode_on_launch', 'ask_verbosity_on_launch', 'ask_scm_branch_on_launch', 'survey_enabled'],
  },
];
const COMMON = ['id', 'type', 'url', 'related', 'summary_fields', 'created', 'modified', 'name', 'description'];

describe('owned resources: hosts, credentials, job templates', () => {
  let t: TestApp;
  let aliceId: number;
  let aliceRead: string;
  let aliceWrite: string;
  const { admin, alice, bob, auditor } = CALLERS;
  before(async () => {
    ({ t, aliceId, aliceRead, aliceWrite } = await startWithResourceUsers());
  });
  after(() => t.close());

  for (const { path, type, extra } of RESOURCES) {
    describe(path, () => {
      let id: number;

      it('creates with only a name: 201, the AWX field set, owned by the caller', async () => {
        const res = await t.http().post(path).set('Authorization', alice).send({ name: `first ${type}` }).expect(201);
        id = res.body.id;
        assert.deepEqual(Object.keys(res.body), [...COMMON, ...extra]);
        assert.equal(res.body.type, type);
        assert.equal(res.body.url, `${path}${id}/`);
        assert.equal(res.body.name, `first ${type}`);
        assert.equal(res.body.description, '');
        assert.equal(res.body.related.created_by, `/api/v2/users/${aliceId}/`);
        assert.deepEqual(res.body.summary_fields.created_by, { id: aliceId, username: 'alice', first_name: '', last_name: '' });
        assert.equal(res.body.summary_fields.user_capabilities.edit, true);
        assert.match(res.body.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        const read = await t.http().get(`${path}${id}/`).set('Authorization', alice).expect(200);
        assert.deepEqual(read.body, res.body);
      });

      it('lists what the caller may see, paginated', async () => {
        await t.http().post(path).set('Authorization', bob).send({ name: `bob's ${type}` }).expect(201);
        const mine = await t.http().get(path).set('Authorization', alice).expect(200);
        assert.deepEqual(Object.keys(mine.body), ['count', 'next', 'previous', 'results']);
        assert.deepEqual(mine.body.results.map((r: { name: string }) => r.name), [`first ${type}`]);
        for (const who of [admin, auditor]) {
          const all = await t.http().get(`${path}?page_size=1`).set('Authorization', who).expect(200);
          assert.equal(all.body.count, 2);
          assert.equal(all.body.next, `${path}?page=2&page_size=1`);
        }
        await t.http().get(`${path}?page=3`).set('Authorization', admin).expect(404);
      });

      it('hides it from other users: 404 on every route, as for an id that does not exist', async () => {
        for (const target of [`${path}${id}/`, `${path}999999/`]) {
          await t.http().get(target).set('Authorization', bob).expect(404);
          await t.http().put(target).set('Authorization', bob).send({ name: 'x' }).expect(404);
          await t.http().patch(target).set('Authorization', bob).send({ name: 'x' }).expect(404);
          const res = await t.http().delete(target).set('Authorization', bob).expect(404);
          assert.deepEqual(res.body, { detail: 'Not found.' });
        }
      });

      it('lets auditors read it but not change it (403)', async () => {
        const res = await t.http().get(`${path}${id}/`).set('Authorization', auditor).expect(200);
        assert.equal(res.body.summary_fields.user_capabilities.edit, false);
        await t.http().put(`${path}${id}/`).set('Authorization', auditor).send({ name: 'x' }).expect(403);
        await t.http().patch(`${path}${id}/`).set('Authorization', auditor).send({ name: 'x' }).expect(403);
        const del = await t.http().delete(`${path}${id}/`).set('Authorization', auditor).expect(403);
        assert.deepEqual(del.body, { detail: 'You do not have permission to perform this action.' });
      });

      it('lets the owner and superusers change it; PUT needs the name, PATCH does not', async () => {
        const patched = await t.http().patch(`${path}${id}/`).set('Authorization', alice).send({ description: 'by alice' }).expect(200);
        assert.equal(patched.body.description, 'by alice');
        assert.equal(patched.body.name, `first ${type}`);
        const put = await t.http().put(`${path}${id}/`).set('Authorization', alice).send({ description: 'x' }).expect(400);
        assert.deepEqual(put.body, { name: ['This field is required.'] });
        const byAdmin = await t.http().put(`${path}${id}/`).set('Authorization', admin).send({ name: 'renamed' }).expect(200);
        assert.equal(byAdmin.body.name, 'renamed');
        assert.equal(byAdmin.body.description, 'by alice', 'PUT keeps the fields it does not send');
        assert.equal(byAdmin.body.summary_fields.modified_by.username, 'admin');
        assert.equal(byAdmin.body.summary_fields.created_by.username, 'alice', 'the owner stays the owner');
      });

      it('validates bodies with field errors, never a 5xx', async () => {
        const cases: [unknown, Record<string, string[]>][] = [
          [{}, { name: ['This field is required.'] }],
          [{ name: '   ' }, { name: ['This field may not be blank.'] }],
          [{ name: 42 }, { name: ['Not a valid string.'] }],
          [{ name: ['a'] }, { name: ['Not a valid string.'] }],
          [{ name: { a: 1 } }, { name: ['Not a valid string.'] }],
          [{ name: null }, { name: ['Not a valid string.'] }],
          [{ name: 'x'.repeat(513) }, { name: ['Ensure this field has no more than 512 characters.'] }],
          [{ name: 'ok', description: 'd'.repeat(16001) }, { description: ['Ensure this field has no more than 16000 characters.'] }],
          [[{ name: 'x' }], { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] }],
        ];
        for (const [body, errors] of cases) {
          const res = await t.http().post(path).set('Authorization', alice).set('Content-Type', 'application/json').send(JSON.stringify(body));
          assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
          assert.deepEqual(res.body, errors);
        }
        const scalar = await t.http().post(path).set('Authorization', alice).set('Content-Type', 'application/json').send('"a string"');
        assert.equal(scalar.status, 400);
        const huge = await t.http().post(path).set('Authorization', alice).send({ name: 'x'.repeat(2 * 1024 * 1024) });
        assert.equal(huge.status, 413);
        const unicode = await t.http().post(path).set('Authorization', alice).send({ name: '主机 😀 \u0000 é'.repeat(50) }).expect(201);
        assert.equal(unicode.body.name, '主机 😀 \u0000 é'.repeat(50));
      });

      it('treats ids that are not positive integers as 404, never another object', async () => {
        for (const bad of ['1.5', '1e3', 'abc', '0', '-1', '01', `${id}.0`, '99999999999', '%20']) {
          const res = await t.http().get(`${path}${bad}/`).set('Authorization', admin);
          assert.equal(res.status, 404, bad);
          assert.deepEqual(res.body, { detail: 'Not found.' });
          await t.http().patch(`${path}${bad}/`).set('Authorization', admin).send({ name: 'x' }).expect(404);
        }
      });

      it('applies token scopes: a read token reads, only a write token changes', async () => {
        await t.http().get(path).set('Authorization', aliceRead).expect(200);
        await t.http().get(`${path}${id}/`).set('Authorization', aliceRead).expect(200);
        const refused = await t.http().post(path).set('Authorization', aliceRead).send({ name: 'x' }).expect(403);
        assert.match(refused.headers['www-authenticate'], /insufficient_scope/);
        await t.http().patch(`${path}${id}/`).set('Authorization', aliceRead).send({ name: 'x' }).expect(403);
        await t.http().delete(`${path}${id}/`).set('Authorization', aliceRead).expect(403);
        await t.http().patch(`${path}${id}/`).set('Authorization', aliceWrite).send({ description: 'w' }).expect(200);
      });

      it('deletes: 204, then 404; superusers may delete what others own', async () => {
        const other = await t.http().post(path).set('Authorization', bob).send({ name: 'doomed' }).expect(201);
        await t.http().delete(`${path}${other.body.id}/`).set('Authorization', admin).expect(204);
        await t.http().get(`${path}${other.body.id}/`).set('Authorization', admin).expect(404);
        await t.http().delete(`${path}${id}/`).set('Authorization', alice).expect(204);
        await t.http().get(`${path}${id}/`).set('Authorization', alice).expect(404);
        await t.http().delete(`${path}${id}/`).set('Authorization', alice).expect(404);
      });

      it('answers anonymous callers 401 on every route', async () => {
        await t.http().get(path).expect(401);
        await t.http().post(path).send({ name: 'x' }).expect(401);
        await t.http().get(`${path}1/`).expect(401);
      });
    });
  }

  it('keeps what a deleted user made: the owner becomes null and only superusers act on it', async () => {
    const carolId = await t.createUser('carol', 'Carol-pass-1');
    const carol = basic('carol', 'Carol-pass-1');
    const host = await t.http().post('/api/v2/hosts/').set('Authorization', carol).send({ name: 'orphan' }).expect(201);
    await t.http().delete(`/api/v2/users/${carolId}/`).set('Authorization', admin).expect(204);
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const [row] = await ds.query('SELECT created_by_id, modified_by_id FROM main_host WHERE id = ?', [host.body.id]);
    assert.equal(row.created_by_id, null);
    assert.equal(row.modified_by_id, null);
    const res = await t.http().get(`/api/v2/hosts/${host.body.id}/`).set('Authorization', auditor).expect(200);
    assert.equal(res.body.summary_fields.created_by, undefined);
    assert.equal(res.body.related.created_by, undefined);
    await t.http().patch(`/api/v2/hosts/${host.body.id}/`).set('Authorization', auditor).send({ name: 'x' }).expect(403);
    await t.http().patch(`/api/v2/hosts/${host.body.id}/`).set('Authorization', admin).send({ name: 'adopted' }).expect(200);
  });

  it('lists the resources at /api/v2/', async () => {
    const res = await t.http().get('/api/v2/').expect(200);
    assert.equal(res.body.hosts, '/api/v2/hosts/');
    assert.equal(res.body.credentials, '/api/v2/credentials/');
    assert.equal(res.body.job_templates, '/api/v2/job_templates/');
    assert.equal(res.body.jobs, '/api/v2/jobs/');
  });
});
