import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SecretBox } from '../src/common/secret-box';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

const SSH_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-unit-test-key\n-----END OPENSSH PRIVATE KEY-----\n';
const SECRETS = { password: 'Sup3r-secret-pw', ssh_key_data: SSH_KEY, become_password: 'become-Secret-9', api_secret: 'api-s3cret-value', ssh_key_unlock: 'unlock-phrase-7' };

describe('credentials (SPEC §10): secrets encrypted at rest, never returned', () => {
  let t: TestApp;
  let ds: DataSource;
  const admin = basic('admin', ADMIN_PASSWORD);
  let id: number;
  const storedInputs = async (credentialId: number) => {
    const [row] = await ds.query('SELECT inputs FROM main_credential WHERE id = ?', [credentialId]);
    return JSON.parse(row.inputs) as Record<string, unknown>;
  };
  before(async () => {
    t = await startTestApp();
    ds = t.app.get<DataSource>(getDataSourceToken());
  });
  after(() => t.close());

  it('creates a machine credential by default and reads every secret back as "$encrypted$"', async () => {
    const res = await t.http().post('/api/v2/credentials/').set('Authorization', admin)
      .send({ name: 'ssh', inputs: { username: 'deploy', port: 22, authorize: true, ...SECRETS } })
      .expect(201);
    id = res.body.id;
    assert.equal(res.body.credential_type, 'machine');
    assert.deepEqual(res.body.inputs, {
      username: 'deploy', port: 22, authorize: true,
      password: '$encrypted$', ssh_key_data: '$encrypted$', become_password: '$encrypted$', api_secret: '$encrypted$', ssh_key_unlock: '$encrypted$',
    });
    const detail = await t.http().get(`/api/v2/credentials/${id}/`).set('Authorization', admin).expect(200);
    const list = await t.http().get('/api/v2/credentials/').set('Authorization', admin).expect(200);
    for (const body of [res.body, detail.body, list.body]) {
      const text = JSON.stringify(body);
      for (const secret of Object.values(SECRETS)) assert.ok(!text.includes(secret.slice(0, 12)), 'no secret in a response');
    }
    assert.deepEqual(list.body.results[0].inputs, res.body.inputs);
  });

  it('stores secrets sealed with SECRET_KEY, never in plain text', async () => {
    const stored = await storedInputs(id);
    assert.equal(stored.username, 'deploy');
    const box = new SecretBox(t.config.secretKey);
    for (const [name, secret] of Object.entries(SECRETS)) {
      assert.match(String(stored[name]), /^\$encrypted\$AESGCM\$/, name);
      assert.equal(box.decrypt(String(stored[name])), secret);
    }
    const [raw] = await ds.query('SELECT * FROM main_credential WHERE id = ?', [id]);
    for (const secret of Object.values(SECRETS)) assert.ok(!JSON.stringify(raw).includes(secret.slice(0, 12)));
    assert.throws(() => new SecretBox('another-secret-key-0123456789abcdefghijklmn').decrypt(String(stored.password)));
  });

  it('keeps a stored secret when "$encrypted$" is written back, and replaces the inputs otherwise', async () => {
    const before = await storedInputs(id);
    const read = await t.http().get(`/api/v2/credentials/${id}/`).set('Authorization', admin).expect(200);
    const put = await t.http().put(`/api/v2/credentials/${id}/`).set('Authorization', admin)
      .send({ name: read.body.name, inputs: { ...read.body.inputs, username: 'ops', become_password: 'new-Become-1' } })
      .expect(200);
    assert.equal(put.body.inputs.username, 'ops');
    assert.equal(put.body.inputs.become_password, '$encrypted$');
    const after = await storedInputs(id);
    assert.equal(after.password, before.password, 'the sealed value is kept as it was');
    assert.equal(after.ssh_key_data, before.ssh_key_data);
    assert.equal(new SecretBox(t.config.secretKey).decrypt(String(after.become_password)), 'new-Become-1');
    const replaced = await t.http().patch(`/api/v2/credentials/${id}/`).set('Authorization', admin).send({ inputs: { username: 'only' } }).expect(200);
    assert.deepEqual(replaced.body.inputs, { username: 'only' });
    assert.deepEqual(await storedInputs(id), { username: 'only' });
    const renamed = await t.http().patch(`/api/v2/credentials/${id}/`).set('Authorization', admin).send({ name: 'renamed' }).expect(200);
    assert.deepEqual(renamed.body.inputs, { username: 'only' }, 'inputs left out are kept');
  });

  it('refuses "$encrypted$" for a secret that has no stored value, and writes nothing', async () => {
    const res = await t.http().patch(`/api/v2/credentials/${id}/`).set('Authorization', admin).send({ inputs: { password: '$encrypted$' } }).expect(400);
    assert.deepEqual(res.body, { inputs: ['"password" has no stored value to keep; send the value itself.'] });
    assert.deepEqual(await storedInputs(id), { username: 'only' });
    await t.http().post('/api/v2/credentials/').set('Authorization', admin).send({ name: 'n', inputs: { password: '$encrypted$' } }).expect(400);
  });

  it('keeps an empty secret empty (AWX: nothing to hide)', async () => {
    const res = await t.http().post('/api/v2/credentials/').set('Authorization', admin).send({ name: 'blank', inputs: { password: '' } }).expect(201);
    assert.deepEqual(res.body.inputs, { password: '' });
  });

  it('validates type and inputs with field errors', async () => {
    const cases: [unknown, Record<string, string[]>][] = [
      [{ name: 'c', credential_type: 'nope' }, { credential_type: ['"nope" is not a valid choice.'] }],
      [{ name: 'c', credential_type: 1 }, { credential_type: ['"1" is not a valid choice.'] }],
      // A JSON object whose own toString is not a function was a 500 when the message was written.
      [{ name: 'c', credential_type: { toString: null } }, { credential_type: ['"[object Object]" is not a valid choice.'] }],
      [{ name: 'c', inputs: ['password'] }, { inputs: ['Expected a dictionary of items.'] }],
      [{ name: 'c', inputs: 'password=x' }, { inputs: ['Expected a dictionary of items.'] }],
      [{ name: 'c', inputs: null }, { inputs: ['Expected a dictionary of items.'] }],
      [{ name: 'c', inputs: { password: 1234 } }, { inputs: ['Value of "password" must be a string.'] }],
      [{ name: 'c', inputs: { username: { nested: 1 } } }, { inputs: ['Value of "username" must be a string, a number or a boolean.'] }],
      [{ name: 'c', inputs: { username: null } }, { inputs: ['Value of "username" must be a string, a number or a boolean.'] }],
      [{ name: 'c', inputs: { 'bad name': 'x' } }, { inputs: ['Input names are letters, digits and "_", at most 64 characters; "bad name" is not one.'] }],
      [{ name: 'c', inputs: { username: 'u'.repeat(65537) } }, { inputs: ['Value of "username" must have no more than 65536 characters.'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await t.http().post('/api/v2/credentials/').set('Authorization', admin).send(body as object);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
      assert.deepEqual(res.body, errors);
    }
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
    await t.http().post('/api/v2/credentials/').set('Authorization', admin).send({ name: 'c', inputs: many }).expect(400);
    const vault = await t.http().post('/api/v2/credentials/').set('Authorization', admin)
      .send({ name: 'v', credential_type: 'vault', inputs: { vault_password: 'vault-Pass-1', vault_id: 'prod' } })
      .expect(201);
    assert.deepEqual(vault.body.inputs, { vault_password: '$encrypted$', vault_id: 'prod' });
  });

  it('takes a large private key (within MEDIUMTEXT on MySQL)', async () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----\n' + 'A'.repeat(60000) + '\n-----END RSA PRIVATE KEY-----';
    const res = await t.http().post('/api/v2/credentials/').set('Authorization', admin).send({ name: 'big', inputs: { ssh_key_data: key, password: 'p'.repeat(60000) } }).expect(201);
    assert.equal(res.body.inputs.ssh_key_data, '$encrypted$');
  });

  it('never writes a secret to the log', async () => {
    await t.http().post('/api/v2/credentials/').set('Authorization', admin).send({ name: 'logged', inputs: { password: 'Log-canary-secret-1' } }).expect(201);
    await t.http().post('/api/v2/credentials/').set('Authorization', admin).send({ name: 'bad', inputs: { password: 'Log-canary-secret-2', x: [] } }).expect(400);
    assert.ok(!t.logs.some((line) => line.includes('Log-canary-secret')));
  });

  it("follows the seed's `curl -L` to /api/v2/credentials: 301 to the slashed path, then the list", async () => {
    const redirect = await t.http().get('/api/v2/credentials').set('Authorization', admin).expect(301);
    assert.equal(redirect.headers.location, '/api/v2/credentials/');
    const list = await t.http().get(redirect.headers.location).set('Authorization', admin).expect(200);
    assert.ok(list.body.count >= 1);
  });
});
