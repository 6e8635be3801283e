import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { redirectParams, registerApp } from './support/oauth2';
import { NO_REQUEST } from '../src/common/request-context';
import { PermissionDenied } from '../src/common/errors';
import { ApplicationsService } from '../src/tokens/applications.service';

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

  it('while skip_authorization is true only a superuser changes redirect_uris: its owner cannot re-point it (SPEC §5, issue 40)', async () => {
    const home = 'https://alice.example.com/cb';
    const evil = 'https://evil.example/steal';
    const app = await registerApp(t, alice, { name: 'Alice portal', client_type: 'confidential', authorization_grant_type: 'authorization-code', redirect_uris: home });
    secrets.push(app.clientSecret!);
    const url = `/api/v2/applications/${app.id}/`;
    // Control: an untrusted application's owner re-points it freely (the consent page names it to every user).
    await t.http().patch(url).set('Authorization', alice).send({ redirect_uris: `${home} https://alice.example.com/two` }).expect(200);
    await t.http().patch(url).set('Authorization', alice).send({ redirect_uris: home }).expect(200);
    await t.http().patch(url).set('Authorization', admin).send({ skip_authorization: true }).expect(200);
    const stored = async () => (await ds.query('SELECT name, description, redirect_uris FROM oauth2_application WHERE id = ?', [app.id]))[0] as Record<string, string>;
    const before = await stored();
    const attempts = [
      () => t.http().patch(url).set('Authorization', alice).send({ redirect_uris: evil }),
      () => t.http().patch(url).set('Authorization', alice).send({ redirect_uris: `${home} ${evil}` }),
      () => t.http().patch(url).set('Authorization', alice).send({ name: 'Half', redirect_uris: evil }),
      () => t.http().put(url).set('Authorization', alice).send({ name: 'Half', description: 'changed', redirect_uris: evil }),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.deepEqual(res.body, { detail: 'You do not have permission to perform this action.' });
    }
    assert.deepEqual(await stored(), before, 'nothing of a refused change was written');
    // The crafted link delivers no code to the attacker's address, not even a superuser's...
    const crafted = `/api/o/authorize/?${new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: evil, state: 's' }).toString()}`;
    const victim = await t.http().get(crafted).set('Authorization', admin);
    assert.equal(victim.status, 400);
    assert.equal(victim.headers.location, undefined);
    // ...while the registered one still gets its code without a consent page.
    const honest = await t.http().get(crafted.replace(encodeURIComponent(evil), encodeURIComponent(home))).set('Authorization', admin).expect(302);
    assert.ok(honest.headers.location.startsWith(`${home}?`));
    secrets.push(redirectParams(honest.headers.location).get('code')!);
    // The owner still changes the rest, sends the stored URIs back unchanged, and may delete it.
    await t.http().patch(url).set('Authorization', alice).send({ name: 'Alice portal 2', description: 'renamed' }).expect(200);
    await t.http().put(url).set('Authorization', alice).send({ name: 'Alice portal 3', redirect_uris: home }).expect(200);
    // A superuser may re-point it.
    const moved = await t.http().patch(url).set('Authorization', admin).send({ redirect_uris: 'https://alice.example.com/new' }).expect(200);
    assert.equal(moved.body.redirect_uris, 'https://alice.example.com/new');
    await t.http().delete(url).set('Authorization', alice).expect(204);
  });

  it('an owner\'s change that read the application before a superuser trusted it is refused as it is written', async () => {
    const app = await registerApp(t, alice, { name: 'Raced', client_type: 'confidential', authorization_grant_type: 'authorization-code', redirect_uris: 'https://r.example.com/cb' });
    secrets.push(app.clientSecret!);
    const applications = t.app.get(ApplicationsService);
    // The owner's request read it untrusted; a superuser's PATCH lands before its write (HTTP cannot time this).
    const readByOwner = await applications.getOr404(app.id);
    await t.http().patch(`/api/v2/applications/${app.id}/`).set('Authorization', admin).send({ skip_authorization: true }).expect(200);
    await assert.rejects(applications.update(readByOwner, { name: 'Raced 2', redirect_uris: 'https://evil.example/x' }, { isSuperuser: false }, NO_REQUEST), PermissionDenied);
    // Nor does an owner's unchanged skip_authorization undo a superuser's change made meanwhile.
    await applications.update(readByOwner, { name: 'Raced 3', skip_authorization: false }, { isSuperuser: false }, NO_REQUEST);
    const [row] = await ds.query('SELECT name, redirect_uris, skip_authorization FROM oauth2_application WHERE id = ?', [app.id]);
    assert.deepEqual([row.name, row.redirect_uris, Boolean(row.skip_authorization)], ['Raced 3', 'https://r.example.com/cb', true]);
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
