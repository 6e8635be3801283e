import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { registerApp } from './support/oauth2';

const FIELDS = [
  'id', 'type', 'url', 'related', 'summary_fields', 'created', 'modified', 'name', 'description', 'client_id',
  'client_secret', 'client_type', 'redirect_uris', 'authorization_grant_type', 'skip_authorization', 'user', 'service_account',
];

describe('OAuth 2 applications (SPEC §5)', () => {
  let t: TestApp;
  let ds: DataSource;
  const admin = basic('admin', ADMIN_PASSWORD);
  const alice = basic('alice', 'Alice-pass-1');
  const bob = basic('bob', 'Bob-pass-1');
  const auditor = basic('audrey', 'Audrey-pass-1');
  let aliceId: number;
  const secrets: string[] = [];

  before(async () => {
    t = await startTestApp();
    ds = t.app.get<DataSource>(getDataSourceToken());
    aliceId = await t.createUser('alice', 'Alice-pass-1');
    await t.createUser('bob', 'Bob-pass-1');
    await t.createUser('audrey', 'Audrey-pass-1', { is_system_auditor: true });
  });
  after(() => t.close());

  it('lets any user register a confidential application: secret shown once, stored as a hash', async () => {
    const res = await t.http().post('/api/v2/applications/').set('Authorization', alice).send({
      name: 'CI', description: 'pipelines', client_type: 'confidential', authorization_grant_type: 'authorization-code',
      redirect_uris: 'https://ci.example.com/cb https://ci.example.com/other',
    }).expect(201);
    secrets.push(res.body.client_secret);
    assert.deepEqual(Object.keys(res.body).sort(), [...FIELDS].sort());
    assert.equal(res.body.type, 'o_auth2_application');
    assert.equal(res.body.user, aliceId);
    assert.equal(res.body.skip_authorization, false);
    assert.match(res.body.client_id, /^[0-9A-Za-z]{40}$/);
    assert.match(res.body.client_secret, /^svcs_[0-9A-Za-z]{43}$/);
    const detail = await t.http().get(res.body.url).set('Authorization', alice).expect(200);
    assert.equal(detail.body.client_secret, '************');
    const [row] = await ds.query('SELECT * FROM oauth2_application WHERE id = ?', [res.body.id]);
    assert.equal(row.client_secret_hash, createHash('sha256').update(res.body.client_secret).digest('hex'));
    assert.ok(!JSON.stringify(row).includes(res.body.client_secret));
  });

  it('omits client_secret entirely for public clients', async () => {
    const app = await registerApp(t, alice, { client_type: 'public', authorization_grant_type: 'password' });
    assert.ok(!('client_secret' in app.body));
    const detail = await t.http().get(`/api/v2/applications/${app.id}/`).set('Authorization', alice).expect(200);
    assert.ok(!('client_secret' in detail.body));
    const [row] = await ds.query('SELECT client_secret_hash FROM oauth2_application WHERE id = ?', [app.id]);
    assert.equal(row.client_secret_hash, null);
  });

  it('validates fields, grant types and redirect URIs with field errors', async () => {
    const post = (body: Record<string, unknown>) => t.http().post('/api/v2/applications/').set('Authorization', alice).send(body);
    const missing = await post({}).expect(400);
    assert.deepEqual(Object.keys(missing.body).sort(), ['authorization_grant_type', 'client_type', 'name']);
    const badType = await post({ name: 'x', client_type: 'secret', authorization_grant_type: 'password' }).expect(400);
    assert.deepEqual(badType.body, { client_type: ['"secret" is not a valid choice.'] });
    const badGrant = await post({ name: 'x', client_type: 'public', authorization_grant_type: 'magic' }).expect(400);
    assert.ok(badGrant.body.authorization_grant_type);
    // Client credentials are a secret, so only a confidential client has them (SPEC §15).
    const publicService = await post({ name: 'x', client_type: 'public', authorization_grant_type: 'client-credentials' }).expect(400);
    assert.deepEqual(Object.keys(publicService.body), ['client_type']);
    const noUris = await post({ name: 'x', client_type: 'public', authorization_grant_type: 'authorization-code' }).expect(400);
    assert.deepEqual(noUris.body, { redirect_uris: ['redirect_uris cannot be empty with grant_type authorization-code'] });
    for (const uri of ['not a url', 'https://app.example.com/cb#frag', 'http://app.example.com/cb', 'https://user@app.example.com/cb', '/relative/cb']) {
      const res = await post({ name: 'x', client_type: 'public', authorization_grant_type: 'implicit', redirect_uris: uri }).expect(400);
      assert.ok(res.body.redirect_uris?.length, uri);
    }
    await post({ name: 'loopback', client_type: 'public', authorization_grant_type: 'implicit', redirect_uris: 'http://127.0.0.1:8123/cb' }).expect(201);
  });

  it('lets only superusers skip the consent page', async () => {
    const body = { name: 'trusted', client_type: 'confidential', authorization_grant_type: 'authorization-code', redirect_uris: 'https://t.example.com/cb', skip_authorization: true };
    await t.http().post('/api/v2/applications/').set('Authorization', alice).send(body).expect(403);
    const res = await t.http().post('/api/v2/applications/').set('Authorization', admin).send(body).expect(201);
    secrets.push(res.body.client_secret);
    assert.equal(res.body.skip_authorization, true);
    const own = await registerApp(t, alice, { client_type: 'public', authorization_grant_type: 'password' });
    await t.http().patch(`/api/v2/applications/${own.id}/`).set('Authorization', alice).send({ skip_authorization: true }).expect(403);
    await t.http().patch(`/api/v2/applications/${own.id}/`).set('Authorization', admin).send({ skip_authorization: true }).expect(200);
  });

  it('lets the owner and superusers change and delete; others get 404, auditors read only', async () => {
    const app = await registerApp(t, alice, { client_type: 'confidential', authorization_grant_type: 'password' });
    secrets.push(app.clientSecret!);
    await t.http().get(`/api/v2/applications/${app.id}/`).set('Authorization', bob).expect(404);
    await t.http().patch(`/api/v2/applications/${app.id}/`).set('Authorization', bob).send({ name: 'x' }).expect(404);
    await t.http().delete(`/api/v2/applications/${app.id}/`).set('Authorization', bob).expect(404);
    const bobList = await t.http().get('/api/v2/applications/').set('Authorization', bob).expect(200);
    assert.equal(bobList.body.count, 0);
    await t.http().get(`/api/v2/applications/${app.id}/`).set('Authorization', auditor).expect(200);
    await t.http().patch(`/api/v2/applications/${app.id}/`).set('Authorization', auditor).send({ name: 'x' }).expect(403);
    const renamed = await t.http().patch(`/api/v2/applications/${app.id}/`).set('Authorization', alice)
      .send({ name: 'Renamed', client_type: 'public', authorization_grant_type: 'implicit', client_secret: 'mine' }).expect(200);
    assert.equal(renamed.body.name, 'Renamed');
    assert.equal(renamed.body.client_type, 'confidential', 'client type is fixed at creation');
    assert.equal(renamed.body.authorization_grant_type, 'password', 'grant type is fixed at creation');
    assert.equal(renamed.body.client_secret, '************');
    const put = await t.http().put(`/api/v2/applications/${app.id}/`).set('Authorization', alice).send({ description: 'no name' }).expect(400);
    assert.deepEqual(put.body, { name: ['This field is required.'] });
    await t.http().patch(`/api/v2/applications/${app.id}/`).set('Authorization', admin).send({ description: 'by admin' }).expect(200);
    await t.http().delete(`/api/v2/applications/${app.id}/`).set('Authorization', alice).expect(204);
    await t.http().get(`/api/v2/applications/${app.id}/`).set('Authorization', alice).expect(404);
  });

  it('issues application tokens with a refresh token through /applications/N/tokens/ and /api/v2/tokens/', async () => {
    const app = await registerApp(t, alice, { client_type: 'confidential', authorization_grant_type: 'password' });
    secrets.push(app.clientSecret!);
    const viaApp = await t.http().post(`/api/v2/applications/${app.id}/tokens/`).set('Authorization', alice).send({ scope: 'read' }).expect(201);
    secrets.push(viaApp.body.token, viaApp.body.refresh_token);
    assert.equal(viaApp.body.application, app.id);
    assert.match(viaApp.body.token, /^svca_/);
    assert.match(viaApp.body.refresh_token, /^svcr_/);
    assert.equal(viaApp.body.summary_fields.application.id, app.id);
    const viaTokens = await t.http().post('/api/v2/tokens/').set('Authorization', alice).send({ application: app.id }).expect(201);
    secrets.push(viaTokens.body.token, viaTokens.body.refresh_token);
    const shown = await t.http().get(`/api/v2/tokens/${viaTokens.body.id}/`).set('Authorization', alice).expect(200);
    assert.equal(shown.body.refresh_token, '************');
    const list = await t.http().get(`/api/v2/applications/${app.id}/tokens/`).set('Authorization', alice).expect(200);
    assert.deepEqual(list.body.results.map((r: { id: number }) => r.id).sort(), [viaApp.body.id, viaTokens.body.id].sort());
    const authorized = await t.http().get(`/api/v2/users/${aliceId}/authorized_tokens/`).set('Authorization', alice).expect(200);
    assert.equal(authorized.body.count, 2);
    await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${viaApp.body.token}`).expect(200);
    // Another user cannot name an application they cannot see.
    const refused = await t.http().post('/api/v2/tokens/').set('Authorization', bob).send({ application: app.id }).expect(400);
    assert.deepEqual(refused.body, { application: [`Invalid pk "${app.id}" - object does not exist.`] });
    await t.http().post(`/api/v2/applications/${app.id}/tokens/`).set('Authorization', bob).send({}).expect(404);
    // Deleting the application takes its tokens with it.
    await t.http().delete(`/api/v2/applications/${app.id}/`).set('Authorization', alice).expect(204);
    await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${viaApp.body.token}`).expect(401);
  });

  it('never logs a client secret or token', () => {
    const joined = t.logs.join('\n');
    assert.ok(joined.includes('"event":"application_created"'));
    for (const secret of secrets) assert.ok(secret && !joined.includes(secret));
  });
});
