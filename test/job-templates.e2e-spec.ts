import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CALLERS, startWithResourceUsers } from './support/resource-users';
import type { TestApp } from './support/test-app';

describe('job templates, launch and jobs (seed §4, SPEC §10)', () => {
  let t: TestApp;
  let aliceId: number;
  let aliceRead: string;
  let aliceWrite: string;
  const { admin, alice, bob, auditor } = CALLERS;
  let templateId: number;
  let jobId: number;
  before(async () => {
    ({ t, aliceId, aliceRead, aliceWrite } = await startWithResourceUsers());
  });
  after(() => t.close());

  it('creates a template with only a name and AWX defaults', async () => {
    const res = await t.http().post('/api/v2/job_templates/').set('Authorization', alice).send({ name: 'Deploy' }).expect(201);
    templateId = res.body.id;
    assert.equal(res.body.job_type, 'run');
    assert.equal(res.body.inventory, null);
    assert.equal(res.body.project, null);
    assert.equal(res.body.playbook, '');
    assert.equal(res.body.limit, '');
    assert.equal(res.body.extra_vars, '');
    assert.equal(res.body.ask_limit_on_launch, true);
    assert.equal(res.body.related.launch, `/api/v2/job_templates/${templateId}/launch/`);
    assert.equal(res.body.summary_fields.user_capabilities.start, true);
    const full = await t.http().post('/api/v2/job_templates/').set('Authorization', alice)
      .send({ name: 'Full', job_type: 'check', inventory: 1, project: 2, playbook: 'site.yml', limit: 'db*', extra_vars: '{"x": 1}' })
      .expect(201);
    assert.deepEqual([full.body.job_type, full.body.inventory, full.body.project, full.body.playbook, full.body.limit], ['check', 1, 2, 'site.yml', 'db*']);
    const bad = await t.http().post('/api/v2/job_templates/').set('Authorization', alice).send({ name: 'x', job_type: 'scan', limit: 5, ask_limit_on_launch: 'no' }).expect(400);
    assert.deepEqual(bad.body, {
      job_type: ['"scan" is not a valid choice.'],
      limit: ['Not a valid string.'],
      ask_limit_on_launch: ['Must be a valid boolean.'],
    });
  });

  it('GET launch describes what launching needs', async () => {
    const res = await t.http().get(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', alice).expect(200);
    assert.equal(res.body.can_start_without_user_input, true);
    assert.equal(res.body.ask_limit_on_launch, true);
    assert.deepEqual(res.body.passwords_needed_to_start, []);
    assert.deepEqual(res.body.job_template_data, { id: templateId, name: 'Deploy', description: '' });
    await t.http().get(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', auditor).expect(200);
    await t.http().get(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', bob).expect(404);
  });

  it('POST launch with a limit records a pending job: 201, Location, the job', async () => {
    const res = await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', alice)
      .set('Content-Type', 'application/json').send('{"limit": "web*.example.com:!web3.example.com"}').expect(201);
    jobId = res.body.id;
    assert.equal(res.headers.location, `/api/v2/jobs/${jobId}/`);
    assert.equal(res.body.job, jobId);
    assert.equal(res.body.type, 'job');
    assert.equal(res.body.url, `/api/v2/jobs/${jobId}/`);
    assert.equal(res.body.job_template, templateId);
    assert.equal(res.body.limit, 'web*.example.com:!web3.example.com');
    assert.equal(res.body.status, 'pending');
    assert.equal(res.body.name, 'Deploy');
    assert.deepEqual(res.body.launched_by, { id: aliceId, name: 'alice', type: 'user', url: `/api/v2/users/${aliceId}/` });
    assert.deepEqual(res.body.ignored_fields, {});
    assert.match(res.body.created, /^\d{4}-\d\d-\d\dT/);
    const job = await t.http().get(res.headers.location).set('Authorization', alice).expect(200);
    const { ignored_fields: _ignored, ...withoutIgnored } = res.body;
    assert.deepEqual(job.body, withoutIgnored);
    assert.deepEqual(job.body.summary_fields.job_template, { id: templateId, name: 'Deploy', description: '' });
  });

  it('launches without a body, or with an empty one, using the template limit', async () => {
    const none = await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', alice).expect(201);
    assert.equal(none.body.limit, '');
    const empty = await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', alice).send({}).expect(201);
    assert.equal(empty.body.limit, '');
  });

  it('refuses a limit that is not a string, and writes no job', async () => {
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const [{ count: before }] = await ds.query('SELECT COUNT(*) AS count FROM main_job');
    for (const limit of [5, ['web'], { host: 'web' }, null, true]) {
      const res = await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', alice).send({ limit }).expect(400);
      assert.deepEqual(res.body, { limit: ['Not a valid string.'] });
    }
    const long = await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', alice).send({ limit: 'x'.repeat(8193) }).expect(400);
    assert.deepEqual(long.body, { limit: ['Ensure this field has no more than 8192 characters.'] });
    await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', alice).send([1]).expect(400);
    const [{ count: afterCount }] = await ds.query('SELECT COUNT(*) AS count FROM main_job');
    assert.equal(Number(afterCount), Number(before));
  });

  it('answers 404 for a template that does not exist or is not the caller’s, and for bad ids', async () => {
    await t.http().post('/api/v2/job_templates/999999/launch/').set('Authorization', admin).send({ limit: 'x' }).expect(404);
    await t.http().get('/api/v2/job_templates/999999/launch/').set('Authorization', admin).expect(404);
    await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', bob).send({ limit: 'x' }).expect(404);
    for (const bad of ['1.5', '1e3', 'abc', '0']) {
      await t.http().post(`/api/v2/job_templates/${bad}/launch/`).set('Authorization', admin).send({}).expect(404);
      await t.http().get(`/api/v2/jobs/${bad}/`).set('Authorization', admin).expect(404);
    }
  });

  it('lets superusers launch anyone’s template; auditors and read tokens may not (403)', async () => {
    const byAdmin = await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', admin).send({ limit: 'db1' }).expect(201);
    assert.equal(byAdmin.body.launched_by.name, 'admin');
    const denied = await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', auditor).send({ limit: 'x' }).expect(403);
    assert.deepEqual(denied.body, { detail: 'You do not have permission to perform this action.' });
    const read = await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', aliceRead).send({ limit: 'x' }).expect(403);
    assert.match(read.headers['www-authenticate'], /insufficient_scope/);
    await t.http().get(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', aliceRead).expect(200);
    await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', aliceWrite).send({ limit: 'x' }).expect(201);
  });

  it('reports a limit the template does not ask for in ignored_fields, as AWX does', async () => {
    const fixed = await t.http().post('/api/v2/job_templates/').set('Authorization', alice).send({ name: 'Fixed', limit: 'prod', ask_limit_on_launch: false }).expect(201);
    const launch = await t.http().get(`/api/v2/job_templates/${fixed.body.id}/launch/`).set('Authorization', alice).expect(200);
    assert.equal(launch.body.ask_limit_on_launch, false);
    const res = await t.http().post(`/api/v2/job_templates/${fixed.body.id}/launch/`).set('Authorization', alice).send({ limit: 'dev' }).expect(201);
    assert.equal(res.body.limit, 'prod');
    assert.deepEqual(res.body.ignored_fields, { limit: 'dev' });
  });

  it('shows jobs to their launcher, auditors and superusers only', async () => {
    const mine = await t.http().get('/api/v2/jobs/').set('Authorization', alice).expect(200);
    assert.ok(mine.body.results.every((j: { launched_by: { name: string } }) => j.launched_by.name === 'alice'));
    const all = await t.http().get('/api/v2/jobs/').set('Authorization', auditor).expect(200);
    assert.ok(all.body.count > mine.body.count);
    const none = await t.http().get('/api/v2/jobs/').set('Authorization', bob).expect(200);
    assert.equal(none.body.count, 0);
    await t.http().get(`/api/v2/jobs/${jobId}/`).set('Authorization', bob).expect(404);
    await t.http().get(`/api/v2/jobs/${jobId}/`).set('Authorization', auditor).expect(200);
    await t.http().delete(`/api/v2/jobs/${jobId}/`).set('Authorization', admin).expect(404);
  });

  it('launches racing a delete of the template end in 201 or 404, never a 5xx or a job without template', async () => {
    const racing = await t.http().post('/api/v2/job_templates/').set('Authorization', alice).send({ name: 'Racing' }).expect(201);
    const launch = () => t.http().post(`/api/v2/job_templates/${racing.body.id}/launch/`).set('Authorization', alice).send({ limit: 'r' });
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, launch),
      t.http().delete(`/api/v2/job_templates/${racing.body.id}/`).set('Authorization', alice),
      ...Array.from({ length: 8 }, launch),
    ]);
    for (const res of answers) assert.ok([201, 204, 404].includes(res.status), `status ${res.status}`);
    const launched = answers.filter((r) => r.status === 201).map((r) => r.body.id);
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const rows = await ds.query('SELECT id FROM main_job WHERE name = ?', ['Racing']);
    assert.equal(rows.length, launched.length, 'every job answered 201 exists, and no other');
  });

  it('keeps jobs when their template is deleted', async () => {
    await t.http().delete(`/api/v2/job_templates/${templateId}/`).set('Authorization', alice).expect(204);
    const job = await t.http().get(`/api/v2/jobs/${jobId}/`).set('Authorization', alice).expect(200);
    assert.equal(job.body.job_template, null);
    assert.equal(job.body.name, 'Deploy');
    assert.equal(job.body.summary_fields.job_template, undefined);
    await t.http().post(`/api/v2/job_templates/${templateId}/launch/`).set('Authorization', alice).send({}).expect(404);
  });
});
