import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ActivityRecord } from '../src/common/activity-record';
import { AuthenticationRecord } from '../src/common/authentication-record';
import { runManage } from './support/service-process';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { TEST_DB } from './support/test-db';

const ADMIN = basic('admin', ADMIN_PASSWORD);
const ENTRY_FIELDS = ['id', 'type', 'url', 'related', 'summary_fields', 'timestamp', 'operation', 'changes', 'object1', 'object2', 'object_association', 'action_node', 'object_type'];
const SECRET_INPUT = 'Credential-secret-pw-41';
type Entry = Record<string, unknown> & { id: number; changes: Record<string, unknown>; summary_fields: Record<string, unknown>; related: Record<string, unknown> };

/**
 * SPEC §23's activity stream through HTTP: what each object kind records (create with its fields, update with
 * what changed, delete), role grants from either side, settings per key, secrets hidden, summaries and related
 * URLs with the actor, the read rules, the per-object lists, AWX's query language, ACTIVITY_STREAM_ENABLED, the
 * retention setting and `cleanup_activitystream`. Entries are written just after the answer: each read first
 * writes what is queued.
 */
describe(`activity stream (SPEC §23, ${TEST_DB})`, () => {
  let t: TestApp;
  const ids: Record<string, number> = {};
  const flush = () => t.app.get(ActivityRecord).flush();
  const entries = async (query = '', who = ADMIN, path = '/api/v2/activity_stream/') => {
    await flush();
    const res = await t.http().get(`${path}${query}`).set('Authorization', who).expect(200);
    return res.body.results as Entry[];
  };
  const last = async (query = '') => (await entries(`?order_by=-id&page_size=1${query ? `&${query}` : ''}`))[0];
  const manage = (args: string[]) => runManage(args, { DATABASE_URL: t.db.url, DATA_DIR: t.db.dataDir, SECRET_KEY: t.config.secretKey });

  before(async () => {
    t = await startTestApp();
    ids.alice = await t.createUser('alice', 'Alice-pass-1', { first_name: 'Alice' });
    ids.bob = await t.createUser('bob', 'Bob-pass-1');
    ids.aud = await t.createUser('aud', 'Auditor-pass-1', { is_system_auditor: true });
  });
  after(() => t?.close());

  it('is listed by GET /api/v2/, 401 anonymous, and every write is 405 with Allow: GET, HEAD, OPTIONS', async () => {
    const root = await t.http().get('/api/v2/').set('Authorization', ADMIN).expect(200);
    assert.equal(root.body.activity_stream, '/api/v2/activity_stream/');
    await t.http().get('/api/v2/activity_stream/').expect(401);
    // Every route of the stream is behind the front door, the per-object lists too.
    await t.http().get('/api/v2/activity_stream/1/').expect(401);
    for (const kind of ['users', 'organizations', 'teams', 'applications', 'tokens', 'credentials', 'hosts', 'job_templates', 'jobs']) {
      await t.http().get(`/api/v2/${kind}/1/activity_stream/`).expect(401);
    }
    const [first] = await entries();
    for (const path of ['/api/v2/activity_stream/', `/api/v2/activity_stream/${first.id}/`, `/api/v2/users/${ids.alice}/activity_stream/`]) {
      for (const method of ['post', 'put', 'patch', 'delete'] as const) {
        const res = await t.http()[method](path).set('Authorization', ADMIN).send({});
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
      }
    }
  });

  it('records a user\'s create, update and delete as AWX does, the password hidden, the actor the request\'s user', async () => {
    const made = await t.http().post('/api/v2/users/').set('Authorization', ADMIN).send({ username: 'carol', password: 'Carol-pass-1', first_name: 'Carol', email: 'c@example.org' }).expect(201);
    ids.carol = made.body.id;
    const created = await last('object1=user');
    assert.deepEqual(Object.keys(created), ENTRY_FIELDS);
    assert.equal(created.type, 'activity_stream');
    assert.equal(created.url, `/api/v2/activity_stream/${created.id}/`);
    assert.equal(created.operation, 'create');
    assert.deepEqual(created.changes, {
      username: 'carol', first_name: 'Carol', last_name: '', email: 'c@example.org', is_superuser: false, is_system_auditor: false, is_active: true,
      account_expires: null, password: 'hidden', id: ids.carol,
    });
    assert.deepEqual(created.summary_fields.user, [{ id: ids.carol, username: 'carol', first_name: 'Carol', last_name: '' }]);
    assert.deepEqual(created.summary_fields.actor, { id: 1, username: 'admin', first_name: '', last_name: '' });
    assert.deepEqual(created.related, { actor: '/api/v2/users/1/', user: [`/api/v2/users/${ids.carol}/`] });
    assert.equal(created.object2, '');
    assert.equal(created.object_association, '');
    assert.equal(created.object_type, '');
    assert.equal(created.action_node, t.config.nodeName);
    assert.match(String(created.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    await t.http().patch(`/api/v2/users/${ids.carol}/`).set('Authorization', ADMIN).send({ last_name: 'Jones', password: 'Carol-pass-2', is_superuser: true }).expect(200);
    const updated = await last('object1=user');
    assert.equal(updated.operation, 'update');
    assert.deepEqual(updated.changes, { last_name: ['', 'Jones'], is_superuser: [false, true], password: ['hidden', 'hidden'] });
    // A write that changes nothing records nothing.
    const before_ = updated.id;
    await t.http().patch(`/api/v2/users/${ids.carol}/`).set('Authorization', ADMIN).send({ last_name: 'Jones' }).expect(200);
    assert.equal((await last('object1=user')).id, before_);

    await t.http().delete(`/api/v2/users/${ids.carol}/`).set('Authorization', ADMIN).expect(204);
    const deleted = await last('object1=user');
    assert.equal(deleted.operation, 'delete');
    assert.equal(deleted.changes.username, 'carol');
    assert.equal(deleted.changes.password, 'hidden');
    // The entry outlives the user: its summary is the one it had.
    assert.deepEqual(deleted.summary_fields.user, [{ id: ids.carol, username: 'carol', first_name: 'Carol', last_name: 'Jones' }]);
  });

  it('records organizations, teams and role grants from the side acted on', async () => {
    const org = await t.http().post('/api/v2/organizations/').set('Authorization', ADMIN).send({ name: 'eng', description: 'Engineering' }).expect(201);
    ids.org = org.body.id;
    const created = await last('object1=organization');
    assert.deepEqual(created.changes, { name: 'eng', description: 'Engineering', max_hosts: 0, id: ids.org });
    assert.deepEqual(created.summary_fields.organization, [{ id: ids.org, name: 'eng', description: 'Engineering' }]);
    await t.http().patch(`/api/v2/organizations/${ids.org}/`).set('Authorization', ADMIN).send({ description: 'Eng' }).expect(200);
    assert.deepEqual((await last('object1=organization')).changes, { description: ['Engineering', 'Eng'] });

    const team = await t.http().post('/api/v2/teams/').set('Authorization', ADMIN).send({ name: 'ops', organization: ids.org }).expect(201);
    ids.team = team.body.id;
    assert.deepEqual((await last('object1=team')).changes, { name: 'ops', description: '', organization: 'eng', id: ids.team });

    await t.http().post(`/api/v2/organizations/${ids.org}/users/`).set('Authorization', ADMIN).send({ id: ids.alice }).expect(204);
    const grant = await last('operation=associate');
    const memberRole = (org.body.summary_fields.object_roles as Record<string, { id: number }>).member_role.id;
    assert.equal(grant.object1, 'organization');
    assert.equal(grant.object2, 'user');
    assert.equal(grant.object_association, 'role');
    assert.equal(grant.object_type, 'organization');
    assert.deepEqual(grant.changes, {
      object1: 'organization', object1_pk: ids.org, object2: 'user', object2_pk: ids.alice, action: 'associate', relationship: 'awx.main.models.rbac.Role_members',
    });
    assert.deepEqual(grant.summary_fields.role, [{ id: memberRole, role_field: 'member_role' }]);
    assert.deepEqual(grant.summary_fields.user, [{ id: ids.alice, username: 'alice', first_name: 'Alice', last_name: '' }]);

    // Through /api/v2/users/N/roles/ the user is object1.
    const adminRole = (org.body.summary_fields.object_roles as Record<string, { id: number }>).admin_role.id;
    await t.http().post(`/api/v2/users/${ids.bob}/roles/`).set('Authorization', ADMIN).send({ id: adminRole }).expect(204);
    await t.http().post(`/api/v2/users/${ids.bob}/roles/`).set('Authorization', ADMIN).send({ id: adminRole, disassociate: true }).expect(204);
    const [revoke, grantToBob] = await entries('?object_association=role&order_by=-id&page_size=2');
    assert.equal(grantToBob.object1, 'user');
    assert.equal(grantToBob.object2, 'organization');
    assert.equal(revoke.operation, 'disassociate');
    assert.equal(revoke.changes.action, 'disassociate');
    assert.deepEqual(revoke.summary_fields.role, [{ id: adminRole, role_field: 'admin_role' }]);
  });

  it('records settings per key: create, update with old and new, delete at a reset; every secret "$encrypted$"', async () => {
    await t.http().patch('/api/v2/settings/logging/').set('Authorization', ADMIN).send({ LOG_AGGREGATOR_HOST: 'logs.example.org', LOG_AGGREGATOR_PASSWORD: 'Aggregator-pw-1' }).expect(200);
    const made = await entries('?object1=setting&order_by=id&setting__category=logging');
    assert.deepEqual(made.map((e) => [e.operation, (e.summary_fields.setting as { name: string }[])[0].name, e.changes]), [
      ['create', 'LOG_AGGREGATOR_HOST', { value: 'logs.example.org' }],
      ['create', 'LOG_AGGREGATOR_PASSWORD', { value: '$encrypted$' }],
    ]);
    assert.deepEqual(made[0].summary_fields.setting, [{ category: 'logging', name: 'LOG_AGGREGATOR_HOST' }]);
    assert.equal(made[0].related.setting, '/api/v2/settings/logging/');
    await t.http().patch('/api/v2/settings/logging/').set('Authorization', ADMIN).send({ LOG_AGGREGATOR_HOST: 'logs2.example.org', LOG_AGGREGATOR_PASSWORD: 'Aggregator-pw-2' }).expect(200);
    const changed = await entries('?object1=setting&operation=update&setting__category=logging');
    assert.deepEqual(changed.map((e) => e.changes), [{ value: ['logs.example.org', 'logs2.example.org'] }, { value: ['$encrypted$', '$encrypted$'] }]);
    await t.http().delete('/api/v2/settings/logging/').set('Authorization', ADMIN).expect(204);
    const reset = await entries('?object1=setting&operation=delete&setting__category=logging');
    assert.deepEqual(reset.map((e) => (e.summary_fields.setting as { name: string }[])[0].name).sort(), ['LOG_AGGREGATOR_HOST', 'LOG_AGGREGATOR_PASSWORD']);
    assert.equal((await entries('?setting__name=LOG_AGGREGATOR_HOST')).length, 3);
  });

  it('records applications without their secret, tokens censored, credentials with their secret inputs "$encrypted$", hosts, templates and launches', async () => {
    const app = await t.http().post('/api/v2/applications/').set('Authorization', ADMIN).send({
      name: 'CI', client_type: 'confidential', authorization_grant_type: 'password', redirect_uris: '',
    }).expect(201);
    const appEntry = await last('object1=o_auth2_application');
    assert.deepEqual(appEntry.changes, {
      name: 'CI', description: '', client_type: 'confidential', redirect_uris: '', authorization_grant_type: 'password', skip_authorization: false, id: app.body.id,
    });
    const token = await t.http().post('/api/v2/tokens/').set('Authorization', basic('alice', 'Alice-pass-1')).send({ description: 'mine', scope: 'read' }).expect(201);
    const tokenEntry = await last('object1=o_auth2_access_token');
    assert.deepEqual(tokenEntry.changes, { description: 'mine', scope: 'read', application: null, user: 'alice', token: '************', id: token.body.id });
    assert.deepEqual(tokenEntry.summary_fields.o_auth2_access_token, [{ id: token.body.id, user_id: ids.alice, description: 'mine', application_id: null, scope: 'read' }]);
    assert.deepEqual(tokenEntry.summary_fields.actor, { id: ids.alice, username: 'alice', first_name: 'Alice', last_name: '' });
    await t.http().delete(`/api/v2/tokens/${token.body.id}/`).set('Authorization', basic('alice', 'Alice-pass-1')).expect(204);
    assert.equal((await last('object1=o_auth2_access_token')).operation, 'delete');

    const cred = await t.http().post('/api/v2/credentials/').set('Authorization', basic('alice', 'Alice-pass-1')).send({ name: 'ssh', inputs: { username: 'deploy', password: SECRET_INPUT } }).expect(201);
    const credEntry = await last('object1=credential');
    assert.equal(typeof credEntry.changes.inputs, 'string');
    assert.deepEqual(JSON.parse(String(credEntry.changes.inputs)), { username: 'deploy', password: '$encrypted$' });
    ids.cred = cred.body.id;

    const host = await t.http().post('/api/v2/hosts/').set('Authorization', basic('alice', 'Alice-pass-1')).send({ name: 'web1' }).expect(201);
    await t.http().patch(`/api/v2/hosts/${host.body.id}/`).set('Authorization', basic('alice', 'Alice-pass-1')).send({ enabled: false }).expect(200);
    assert.deepEqual((await last('object1=host')).changes, { enabled: [true, false] });
    const jt = await t.http().post('/api/v2/job_templates/').set('Authorization', basic('alice', 'Alice-pass-1')).send({ name: 'Deploy' }).expect(201);
    const job = await t.http().post(`/api/v2/job_templates/${jt.body.id}/launch/`).set('Authorization', basic('alice', 'Alice-pass-1')).send({}).expect(201);
    const launched = await last('object1=job');
    assert.equal(launched.operation, 'create');
    assert.equal(launched.changes.job_template, 'Deploy');
    assert.deepEqual(launched.related.job, [`/api/v2/jobs/${job.body.id}/`]);
    assert.deepEqual(launched.related.job_template, [`/api/v2/job_templates/${jt.body.id}/`]);
    ids.job = job.body.id;

    // No secret's text anywhere in the stream.
    const everything = await t.http().get('/api/v2/activity_stream/?page_size=200').set('Authorization', ADMIN).expect(200);
    for (const secret of [SECRET_INPUT, 'Aggregator-pw-1', 'Aggregator-pw-2', 'Carol-pass-1', 'Carol-pass-2', String(token.body.token), String(app.body.client_secret)]) {
      assert.ok(!everything.text.includes(secret), secret);
    }
    assert.ok(!everything.text.includes('$argon2') && !everything.text.includes('pbkdf2'));
  });

  it('records a rotation as create and delete, a revocation per token, a bulk one coalesced, and an application\'s tokens going with it', async () => {
    const alice = basic('alice', 'Alice-pass-1');
    const first = await t.http().post('/api/v2/tokens/').set('Authorization', alice).send({ description: 'rotating', scope: 'write' }).expect(201);
    const rotated = await t.http().post(`/api/v2/tokens/${first.body.id}/rotate/`).set('Authorization', alice).send({}).expect(201);
    const [deleted, created] = await entries('?object1=o_auth2_access_token&order_by=-id&page_size=2');
    assert.deepEqual([created.operation, created.changes.id], ['create', rotated.body.id]);
    assert.deepEqual([deleted.operation, deleted.changes.id, deleted.changes.token], ['delete', first.body.id, '************']);

    for (let i = 0; i < 3; i++) await t.http().post('/api/v2/tokens/').set('Authorization', alice).send({ description: `bulk-${i}` }).expect(201);
    await t.http().delete(`/api/v2/users/${ids.alice}/tokens/`).set('Authorization', alice).expect(204);
    const bulk = await last('object1=o_auth2_access_token');
    assert.equal(bulk.operation, 'delete');
    assert.deepEqual(bulk.changes, { count: 4 });
    assert.equal((bulk.summary_fields.o_auth2_access_token as unknown[]).length, 4);

    const app = await t.http().post('/api/v2/applications/').set('Authorization', ADMIN).send({ name: 'Gone', client_type: 'public', authorization_grant_type: 'password', redirect_uris: '' }).expect(201);
    await t.http().post(`/api/v2/applications/${app.body.id}/tokens/`).set('Authorization', ADMIN).send({ scope: 'read' }).expect(201);
    await t.http().delete(`/api/v2/applications/${app.body.id}/`).set('Authorization', ADMIN).expect(204);
    await t.app.get(AuthenticationRecord).flush();
    const events = (await t.http().get('/api/v2/authentication_events/?reason=application_deleted').set('Authorization', ADMIN).expect(200)).body.results as Record<string, unknown>[];
    assert.deepEqual(events.map((e) => [e.event, e.user, e.token, e.details]), [['token_revoked', 1, null, { count: 1 }]]);
    assert.deepEqual((await last('object1=o_auth2_access_token')).changes, { count: 1 });
  });

  it('shows each reader what touches what they may read, not what they merely made; hidden entries 404', async () => {
    const mine = await entries('', basic('alice', 'Alice-pass-1'));
    assert.ok(mine.length > 0);
    // Alice sees her own grant, token, credential, host, template and job; nothing about bob alone, nor settings.
    for (const e of mine) {
      const users = ((e.summary_fields.user as { id: number }[] | undefined) ?? []).map((u) => u.id);
      assert.ok(e.object1 !== 'setting', JSON.stringify(e));
      assert.ok(!(users.length === 1 && users[0] === ids.bob && e.object1 === 'user' && e.object2 === ''), JSON.stringify(e));
    }
    const bobsOwn = await last(`user=${ids.bob}&object1=user&operation=create`);
    await t.http().get(`/api/v2/activity_stream/${bobsOwn.id}/`).set('Authorization', basic('alice', 'Alice-pass-1')).expect(404);
    await t.http().get(`/api/v2/activity_stream/${bobsOwn.id}/`).set('Authorization', basic('bob', 'Bob-pass-1')).expect(200);
    await t.http().get(`/api/v2/activity_stream/${bobsOwn.id}/`).set('Authorization', basic('aud', 'Auditor-pass-1')).expect(200);
    // An organization's entries: its admins and auditors, not a plain member (who reads it, but does not administer it).
    const orgEntries = await entries(`?organization=${ids.org}&object_association=`, basic('alice', 'Alice-pass-1'));
    assert.deepEqual(orgEntries, []);
    assert.ok((await entries(`?organization=${ids.org}&object_association=`, basic('aud', 'Auditor-pass-1'))).length >= 2);
    // Her own grant touches her: she reads it.
    assert.equal((await entries(`?organization=${ids.org}&operation=associate`, basic('alice', 'Alice-pass-1'))).length, 1);
  });

  it('lists each object\'s entries within the caller\'s reach, 404 for an object hidden from them', async () => {
    const alices = await entries('', ADMIN, `/api/v2/users/${ids.alice}/activity_stream/`);
    assert.ok(alices.some((e) => e.object1 === 'o_auth2_access_token'), 'what alice did');
    assert.ok(alices.some((e) => e.operation === 'associate'), 'what was done to alice');
    // Counted from the objects' index when nothing else filters: the same number as through the join.
    const countOf = async (path: string) => (await t.http().get(path).set('Authorization', ADMIN).expect(200)).body.count as number;
    for (const path of [`/api/v2/users/${ids.alice}/activity_stream/`, `/api/v2/organizations/${ids.org}/activity_stream/`]) {
      assert.equal(await countOf(path), await countOf(`${path}?id__gt=0`), path);
    }
    assert.equal(await countOf(`/api/v2/activity_stream/?user=${ids.alice}`), await countOf(`/api/v2/activity_stream/?user=${ids.alice}&id__gt=0`));
    assert.equal(await countOf(`/api/v2/users/${ids.alice}/activity_stream/`), alices.length);
    const user = await t.http().get(`/api/v2/users/${ids.alice}/`).set('Authorization', ADMIN).expect(200);
    assert.equal(user.body.related.activity_stream, `/api/v2/users/${ids.alice}/activity_stream/`);
    await t.http().get(`/api/v2/users/${ids.bob}/activity_stream/`).set('Authorization', basic('alice', 'Alice-pass-1')).expect(404);
    const org = await entries('', ADMIN, `/api/v2/organizations/${ids.org}/activity_stream/`);
    assert.deepEqual([...new Set(org.map((e) => e.operation))].sort(), ['associate', 'create', 'disassociate', 'update']);
    const jobs = await entries('', basic('alice', 'Alice-pass-1'), `/api/v2/jobs/${ids.job}/activity_stream/`);
    assert.equal(jobs.length, 1);
    await t.http().get(`/api/v2/credentials/${ids.cred}/activity_stream/`).set('Authorization', basic('bob', 'Bob-pass-1')).expect(404);
    await t.http().get('/api/v2/hosts/999999/activity_stream/').set('Authorization', ADMIN).expect(404);
  });

  it('takes AWX\'s query language: fields, the actor by path, touched objects by kind, search; secrets 403, unknown fields 400', async () => {
    assert.ok((await entries('?actor__username=alice')).every((e) => (e.summary_fields.actor as { username: string }).username === 'alice'));
    assert.ok((await entries('?user__username=alice')).length >= 2);
    assert.ok((await entries('?organization__name=eng')).length >= 3);
    assert.ok((await entries('?changes__icontains=deploy')).length >= 1);
    assert.ok((await entries('?search=Engineering')).length >= 1);
    await t.http().get('/api/v2/activity_stream/?actor__password=x').set('Authorization', ADMIN).expect(403);
    await t.http().get('/api/v2/activity_stream/?actor__email=x').set('Authorization', basic('alice', 'Alice-pass-1')).expect(403);
    const bad = await t.http().get('/api/v2/activity_stream/?nope=1').set('Authorization', ADMIN).expect(400);
    assert.ok(bad.body.detail);
    await t.http().get('/api/v2/activity_stream/?user=abc').set('Authorization', ADMIN).expect(400);
  });

  it('keeps the actor\'s names once the actor is deleted, with "id": null and no related actor', async () => {
    const temp = await t.createUser('temp', 'Temp-pass-1', { is_superuser: true, first_name: 'Tem' });
    await t.http().post('/api/v2/organizations/').set('Authorization', basic('temp', 'Temp-pass-1')).send({ name: 'temp-org' }).expect(201);
    const made = await last('object1=organization&operation=create');
    await t.http().delete(`/api/v2/users/${temp}/`).set('Authorization', ADMIN).expect(204);
    const after_ = (await t.http().get(`/api/v2/activity_stream/${made.id}/`).set('Authorization', ADMIN).expect(200)).body as Entry;
    assert.deepEqual(after_.summary_fields.actor, { id: null, username: 'temp', first_name: 'Tem', last_name: '' });
    assert.equal(after_.related.actor, undefined);
  });

  it('records nothing while ACTIVITY_STREAM_ENABLED is false but the writes that turn it off and on', async () => {
    const system = (body: Record<string, unknown>) => t.http().patch('/api/v2/settings/system/').set('Authorization', ADMIN).send(body);
    assert.deepEqual(Object.keys((await system({ ACTIVITY_STREAM_ENABLED: 'no' }).expect(400)).body), ['ACTIVITY_STREAM_ENABLED']);
    for (const bad of [-1, 3651, 1.5, '10', null]) assert.deepEqual(Object.keys((await system({ ACTIVITY_STREAM_RETENTION_DAYS: bad }).expect(400)).body), ['ACTIVITY_STREAM_RETENTION_DAYS']);
    await system({ ACTIVITY_STREAM_ENABLED: false }).expect(200);
    await t.http().post('/api/v2/organizations/').set('Authorization', ADMIN).send({ name: 'unrecorded' }).expect(201);
    await system({ ACTIVITY_STREAM_ENABLED: true }).expect(200);
    assert.deepEqual(await entries('?organization__name=unrecorded'), []);
    const toggles = await entries('?setting__name=ACTIVITY_STREAM_ENABLED');
    assert.deepEqual(toggles.map((e) => [e.operation, e.changes]), [['create', { value: false }], ['update', { value: [false, true] }]]);
  });

  it('cleanup_activitystream deletes in batches with AWX\'s flags and output', async () => {
    for (const [flag, value] of [['--days', 'x'], ['--days', '-1'], ['--batch-size', '0']]) {
      const res = manage(['cleanup_activitystream', flag, value]);
      assert.notEqual(res.status, 0);
      assert.match(res.stderr, new RegExp(flag));
    }
    const count = (await t.http().get('/api/v2/activity_stream/').set('Authorization', ADMIN).expect(200)).body.count as number;
    const dry = manage(['cleanup_activitystream', '--days', '0', '--dry-run']);
    assert.equal(dry.status, 0, dry.stderr);
    const lines = dry.stdout.trim().split('\n');
    assert.equal(lines.length, count);
    assert.match(lines[0], /^would delete "\w+-\d{4}-\d\d-\d\dT[\d:.]+Z-pk=\d+" id: \d+$/);
    assert.equal(manage(['cleanup_activitystream']).stdout.trim(), 'Removed 0 items');
    const res = manage(['cleanup_activitystream', '--days', '0', '--batch-size', '3']);
    assert.equal(res.stdout.trim(), `Removed ${count} items`);
    assert.equal((await t.http().get('/api/v2/activity_stream/').set('Authorization', ADMIN).expect(200)).body.count, 0);
  });
});
