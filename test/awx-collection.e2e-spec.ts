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
 * AWX's own client against the service: the `awx.awx` collection that Debian's `ansible` package ships,
 * run with `ansible-playbook` on loopback (issue 22). Each task's result (changed, failed, msg, warnings)
 * comes back through the JSON callback, and the service is read afterwards to see what changed, and
 * that nothing else did.
 */
const ADMIN_PASSWORD = 'Awx-collection-admin-1';


describe(`the awx.awx collection drives the service (${TEST_DB})`, () => {
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

  const noVersionWarning = (r: TaskResult) => assert.ok(!(r.warnings ?? []).some((w) => /version/i.test(w)), JSON.stringify(r.warnings));

  before(async () => {
    db = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'svc-awx-'));
    node = await spawnService({ DATABASE_URL: db.url, DATA_DIR: db.dataDir, ADMIN_PASSWORD, SECRET_KEY: 'awx-collection-secret-key-0123456789abcdefghij' });
  });
  after(async () => {
    await node?.stop();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('token: creates a token, then deletes it', async () => {
    const r = play([
      { name: 'create', token: { description: 'from the collection', scope: 'write', state: 'present' }, register: 'made' },
      { name: 'delete', token: { existing_token: '{{ made.ansible_facts.controller_token }}', state: 'absent' } },
    ]);
    assert.equal(r.create.failed ?? false, false, r.create.msg);
    assert.equal(r.create.changed, true);
    noVersionWarning(r.create);
    const created = (r.create.ansible_facts as { controller_token: { id: number; token: string } }).controller_token;
    assert.match(created.token, /^svcp_/);
    assert.equal(r.delete.failed ?? false, false, r.delete.msg);
    assert.equal(r.delete.changed, true);
    const left = await get('/api/v2/tokens/?description=from the collection');
    assert.equal(left.count, 0, 'the token is gone');
  });

  it('user: creates one among several, is idempotent, updates, deletes, and deleting a missing one changes nothing', async () => {
    for (const name of ['alice', 'bob', 'carol']) {
      await request(node.url).post('/api/v2/users/').set('Authorization', admin).send({ username: name, password: `${name}-Pass-1`, email: `${name}@example.org` }).expect(201);
    }
    const before = await get('/api/v2/users/?order_by=id');
    const r = play([
      { name: 'create', user: { username: 'collection-user', password: 'Collection-pass-1', email: 'cu@example.org', first_name: 'Col', state: 'present' } },
      { name: 'again', user: { username: 'collection-user', password: 'Collection-pass-1', email: 'cu@example.org', first_name: 'Col', update_secrets: false, state: 'present' } },
      { name: 'update', user: { username: 'collection-user', email: 'new@example.org', update_secrets: false, state: 'present' } },
      { name: 'update bob', user: { username: 'bob', last_name: 'Builder', update_secrets: false, state: 'present' } },
      { name: 'delete', user: { username: 'collection-user', state: 'absent' } },
      { name: 'delete missing', user: { username: 'nobody-here', state: 'absent' } },
    ]);
    for (const task of ['create', 'again', 'update', 'update bob', 'delete', 'delete missing']) assert.equal(r[task].failed ?? false, false, `${task}: ${r[task].msg}`);
    assert.equal(r.create.changed, true);
    assert.equal(r.again.changed, false, 'a second identical run changes nothing');
    assert.equal(r.update.changed, true);
    assert.equal(r['update bob'].changed, true);
    assert.equal(r.delete.changed, true);
    assert.equal(r['delete missing'].changed, false);
    noVersionWarning(r.create);
    const after = await get('/api/v2/users/?order_by=id');
    assert.deepEqual(after.results.map((u: { username: string }) => u.username), before.results.map((u: { username: string }) => u.username), 'collection-user is gone again; nobody else was added or removed');
    const byName = Object.fromEntries(after.results.map((u: { username: string }) => [u.username, u]));
    assert.equal(byName.bob.last_name, 'Builder');
    for (const name of ['admin', 'alice', 'carol']) {
      const was = before.results.find((u: { username: string }) => u.username === name);
      assert.deepEqual({ ...byName[name], last_login: null, modified: null }, { ...was, last_login: null, modified: null }, `${name} untouched`);
    }
    // The superuser keeps its own password: the collection never rewrote it.
    await request(node.url).get('/api/v2/me/').set('Authorization', admin).expect(200);
    await request(node.url).get('/api/v2/me/').set('Authorization', basic('alice', 'alice-Pass-1')).expect(200);
  });

  it('job_launch: by name, by id, a missing name fails, and extra_vars when the template asks for them', async () => {
    const deploy = (await request(node.url).post('/api/v2/job_templates/').set('Authorization', admin).send({ name: 'deploy' }).expect(201)).body;
    const other = (await request(node.url).post('/api/v2/job_templates/').set('Authorization', admin).send({ name: 'other', ask_variables_on_launch: true }).expect(201)).body;
    const r = play([
      { name: 'by name', job_launch: { job_template: 'deploy' } },
      { name: 'by id', job_launch: { job_template: String(other.id) } },
      { name: 'missing', job_launch: { job_template: 'no-such-template' }, ignore_errors: true },
      { name: 'vars', job_launch: { job_template: 'other', extra_vars: { version: '1.2.3', dry_run: true } } },
      { name: 'vars refused', job_launch: { job_template: 'deploy', extra_vars: { a: 1 } }, ignore_errors: true },
    ]);
    assert.equal(r['by name'].failed ?? false, false, r['by name'].msg);
    assert.equal(r['by id'].failed ?? false, false, r['by id'].msg);
    assert.equal(r.vars.failed ?? false, false, r.vars.msg);
    assert.equal(r.missing.failed, true);
    assert.match(r.missing.msg ?? '', /no-such-template/);
    assert.equal(r['vars refused'].failed, true);
    noVersionWarning(r['by name']);
    const jobs = await get('/api/v2/jobs/?order_by=id');
    assert.deepEqual(jobs.results.map((j: { job_template: number }) => j.job_template), [deploy.id, other.id, other.id], 'three jobs, of the templates named; none for the missing one');
    const withVars = jobs.results[2];
    assert.equal(withVars.id, r.vars.id);
    assert.deepEqual(JSON.parse(withVars.extra_vars), { version: '1.2.3', dry_run: true });
  });

  it('settings: one value, several values, and an unchanged second run', async () => {
    const before = await get('/api/v2/settings/all/');
    const r = play([
      { name: 'one', settings: { name: 'SESSION_COOKIE_AGE', value: 3600 } },
      { name: 'several', settings: { settings: { SESSIONS_PER_USER: 3, LOGIN_REDIRECT_OVERRIDE: '/home/' } } },
      { name: 'unchanged', settings: { settings: { SESSIONS_PER_USER: 3, LOGIN_REDIRECT_OVERRIDE: '/home/' } } },
    ]);
    for (const task of ['one', 'several', 'unchanged']) assert.equal(r[task].failed ?? false, false, `${task}: ${r[task].msg}`);
    assert.equal(r.one.changed, true);
    assert.equal(r.several.changed, true);
    assert.equal(r.unchanged.changed, false);
    noVersionWarning(r.one);
    const after = await get('/api/v2/settings/all/');
    const changed = Object.keys(after).filter((k) => JSON.stringify(after[k]) !== JSON.stringify(before[k])).sort();
    assert.deepEqual(changed, ['LOGIN_REDIRECT_OVERRIDE', 'SESSIONS_PER_USER', 'SESSION_COOKIE_AGE']);
    assert.equal(after.SESSION_COOKIE_AGE, 3600);
  });

  it('activity stream: the controller_api lookup reads the entries of a push of AWX 23\'s logging settings', async () => {
    const logging = { LOG_AGGREGATOR_HOST: 'logs.example.org', LOG_AGGREGATOR_PORT: 514, LOG_AGGREGATOR_TYPE: 'logstash', LOG_AGGREGATOR_PROTOCOL: 'tcp', LOG_AGGREGATOR_LEVEL: 'INFO' };
    const pushed = play([{ name: 'push', settings: { settings: logging } }]);
    assert.equal(pushed.push.failed ?? false, false, pushed.push.msg);
    assert.equal(pushed.push.changed, true);
    // Entries are written just after the answer: wait for them through the API before the collection reads.
    const deadline = Date.now() + 60000;
    while ((await get('/api/v2/activity_stream/?setting__category=logging')).count < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const lookup = "{{ query('awx.awx.controller_api', 'activity_stream', query_params={'setting__category': 'logging', 'order_by': 'id'}, return_all=true, return_objects=true) }}";
    const r = play([{ name: 'stream', debug: { msg: lookup } }]);
    assert.equal(r.stream.failed ?? false, false, r.stream.msg);
    const entries = r.stream.msg as unknown as { operation: string; object1: string; changes: { value: unknown }; summary_fields: { setting: { name: string }[]; actor: { username: string } } }[];
    assert.deepEqual(entries.map((e) => e.summary_fields.setting[0].name).sort(), Object.keys(logging).sort());
    for (const e of entries) {
      assert.equal(e.operation, 'create');
      assert.equal(e.object1, 'setting');
      assert.equal(e.summary_fields.actor.username, 'admin');
      assert.deepEqual(e.changes.value, logging[e.summary_fields.setting[0].name as keyof typeof logging]);
    }
  });
});
