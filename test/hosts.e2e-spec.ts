import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

/** Sends a request exactly as curl does for the seed's example: a JSON content type and no body at all. */
function postWithoutBody(url: string, path: string, authorization: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: 'POST', headers: { Authorization: authorization, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('hosts (seed §4, SPEC §10)', () => {
  let t: TestApp;
  const admin = basic('admin', ADMIN_PASSWORD);
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("answers the seed's literal request (POST, JSON content type, no body) with 400 name required", async () => {
    const res = await postWithoutBody(t.url, '/api/v2/hosts/', admin);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { name: ['This field is required.'] });
    const list = await t.http().get('/api/v2/hosts/').set('Authorization', admin).expect(200);
    assert.equal(list.body.count, 0, 'nothing was written');
  });

  it('the GET of the prose lists hosts', async () => {
    await t.http().post('/api/v2/hosts/').set('Authorization', admin).send({ name: 'web1.example.com' }).expect(201);
    const res = await t.http().get('/api/v2/hosts/').set('Authorization', admin).expect(200);
    assert.equal(res.body.count, 1);
    assert.equal(res.body.results[0].name, 'web1.example.com');
  });

  it('fills AWX defaults and takes the optional AWX fields', async () => {
    const plain = await t.http().post('/api/v2/hosts/').set('Authorization', admin).send({ name: 'db1' }).expect(201);
    assert.equal(plain.body.inventory, null);
    assert.equal(plain.body.enabled, true);
    assert.equal(plain.body.instance_id, '');
    assert.equal(plain.body.variables, '');
    const full = await t.http().post('/api/v2/hosts/').set('Authorization', admin)
      .send({ name: 'db2', description: 'primary', inventory: 3, enabled: false, instance_id: 'i-123', variables: 'ansible_host: 10.0.0.2' })
      .expect(201);
    assert.equal(full.body.inventory, 3);
    assert.equal(full.body.enabled, false);
    assert.equal(full.body.instance_id, 'i-123');
    assert.equal(full.body.variables, 'ansible_host: 10.0.0.2');
    const patched = await t.http().patch(`/api/v2/hosts/${full.body.id}/`).set('Authorization', admin).send({ inventory: null }).expect(200);
    assert.equal(patched.body.inventory, null);
  });

  it('keeps variables as a dictionary: JSON text must be one, an object is stored as JSON', async () => {
    const object = await t.http().post('/api/v2/hosts/').set('Authorization', admin).send({ name: 'v1', variables: { port: 22 } }).expect(201);
    assert.equal(object.body.variables, '{"port":22}');
    const text = await t.http().post('/api/v2/hosts/').set('Authorization', admin).send({ name: 'v2', variables: '{"a": 1}' }).expect(201);
    assert.equal(text.body.variables, '{"a": 1}');
    const list = await t.http().post('/api/v2/hosts/').set('Authorization', admin).send({ name: 'v3', variables: '[1, 2]' }).expect(400);
    assert.deepEqual(list.body, { variables: ['Input type `list` is not a dictionary'] });
    const number = await t.http().post('/api/v2/hosts/').set('Authorization', admin).send({ name: 'v4', variables: 42 }).expect(400);
    assert.deepEqual(number.body, { variables: ['Not a valid string.'] });
  });

  it('refuses wrong types field by field', async () => {
    const res = await t.http().post('/api/v2/hosts/').set('Authorization', admin)
      .send({ name: 'x', inventory: '3', enabled: 'yes', instance_id: 7, variables: ['a'] })
      .expect(400);
    assert.deepEqual(res.body, {
      inventory: ['Incorrect type. Expected pk value, received string.'],
      enabled: ['Must be a valid boolean.'],
      instance_id: ['Not a valid string.'],
      variables: ['Not a valid string.'],
    });
    for (const inventory of [0, -1, 1.5, 2147483648]) {
      await t.http().post('/api/v2/hosts/').set('Authorization', admin).send({ name: 'x', inventory }).expect(400);
    }
  });

  it('redirects the path without a slash (301 for GET, 308 for POST)', async () => {
    await t.http().get('/api/v2/hosts').set('Authorization', admin).expect(301).expect('Location', '/api/v2/hosts/');
    await t.http().post('/api/v2/hosts').set('Authorization', admin).send({ name: 'x' }).expect(308).expect('Location', '/api/v2/hosts/');
  });
});
