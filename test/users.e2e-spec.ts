import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

/** Django's own hasher output for "AwxImported1" (260 000 rounds), as an AWX database holds it. */
const DJANGO_HASH = 'pbkdf2_sha256$260000$q1W2e3R4t5Y6$b1E+JRdLxlP9Z4g0E3MEqWB+0wCDWENtXmXPzmWBSPA=';
const FIELDS = [
  'id', 'type', 'url', 'related', 'summary_fields', 'created', 'modified', 'username', 'first_name', 'last_name',
  'email', 'is_active', 'is_superuser', 'is_system_auditor', 'password', 'last_login', 'previous_login', 'external_account', 'ldap_dn', 'auth', 'login_locked',
  'account_expires', 'break_glass',
];

describe('users (SPEC §8)', () => {
  let t: TestApp;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  let bobId: number;
  let auditorId: number;
  before(async () => {
    t = await startTestApp();
    bobId = await t.createUser('bob', 'Bob-pass-1', { email: 'bob@example.com' });
    auditorId = await t.createUser('audrey', 'Audrey-pass-1', { is_system_auditor: true });
  });
  after(() => t.close());

  it('shows the AWX field set, the password as "$encrypted$" and never the hash', async () => {
    const res = await t.http().get(`/api/v2/users/${bobId}/`).set('Authorization', admin()).expect(200);
    assert.deepEqual(Object.keys(res.body).sort(), [...FIELDS].sort());
    assert.equal(res.body.password, '$encrypted$');
    assert.equal(res.body.type, 'user');
    assert.equal(res.body.url, `/api/v2/users/${bobId}/`);
    assert.doesNotMatch(JSON.stringify(res.body), /argon2/);
  });

  it('/api/v2/me/ is a paginated list of one', async () => {
    const res = await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'Bob-pass-1')).expect(200);
    assert.equal(res.body.count, 1);
    assert.equal(res.body.next, null);
    assert.equal(res.body.previous, null);
    assert.equal(res.body.results[0].username, 'bob');
  });

  it('lets superusers create users and hashes passwords with argon2id', async () => {
    const res = await t.http().post('/api/v2/users/').set('Authorization', admin())
      .send({ username: 'carol', password: 'Carol-pass-1', first_name: 'Carol', email: 'carol@example.com' }).expect(201);
    assert.equal(res.body.username, 'carol');
    assert.equal(res.body.first_name, 'Carol');
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const [row] = await ds.query('SELECT password FROM auth_user WHERE username = ?', ['carol']);
    assert.match(row.password, /^\$argon2id\$/);
    await t.http().get('/api/v2/me/').set('Authorization', basic('carol', 'Carol-pass-1')).expect(200);
  });

  it('validates creation with field errors', async () => {
    const missing = await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: 'dave' }).expect(400);
    assert.deepEqual(missing.body, { password: ['Password required for new User.'] });
    const noName = await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ password: 'x' }).expect(400);
    assert.deepEqual(noName.body, { username: ['This field is required.'] });
    const dup = await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: 'BOB', password: 'Xx-123456' }).expect(400);
    assert.deepEqual(dup.body, { username: ['A user with that username already exists.'] });
    const bad = await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: 'a b', password: 'Xx-123456' }).expect(400);
    assert.match(bad.body.username[0], /Enter a valid username/);
    const types = await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: 'eve', password: 'Xx-1', is_superuser: 'yes' }).expect(400);
    assert.deepEqual(types.body, { is_superuser: ['Must be a valid boolean.'] });
    const long = await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: 'u'.repeat(151), password: 'x' }).expect(400);
    assert.ok(long.body.username);
  });

  it('applies LOCAL_PASSWORD_MIN_* rules with AWX messages', async () => {
    await t.settings({ LOCAL_PASSWORD_MIN_LENGTH: 10, LOCAL_PASSWORD_MIN_DIGITS: 2, LOCAL_PASSWORD_MIN_UPPER: 1, LOCAL_PASSWORD_MIN_SPECIAL: 1 });
    const res = await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: 'weak', password: 'abc' }).expect(400);
    assert.deepEqual(res.body.password, [
      'Password must be at least 10 characters long.',
      'Password must contain at least 2 digits.',
      'Password must contain at least 1 uppercase characters.',
      'Password must contain at least 1 special characters.',
    ]);
    await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: 'strong', password: 'Abcdefgh-12' }).expect(201);
    const tooLong = await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: 'toolong', password: 'A12-' + 'x'.repeat(200) }).expect(400);
    assert.deepEqual(tooLong.body.password, ['Password max length is 128']);
    await t.settings({ LOCAL_PASSWORD_MIN_LENGTH: 0, LOCAL_PASSWORD_MIN_DIGITS: 0, LOCAL_PASSWORD_MIN_UPPER: 0, LOCAL_PASSWORD_MIN_SPECIAL: 0 });
  });

  it('accepts a 128-character non-ASCII password exactly', async () => {
    const pw = 'ü'.repeat(100) + 'Ω'.repeat(28);
    await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: 'longpw', password: pw }).expect(201);
    await t.http().get('/api/v2/me/').set('Authorization', basic('longpw', pw)).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', basic('longpw', pw.slice(0, 72))).expect(401);
  });

  it('keeps normal users to themselves: list of one, others 404, no creation', async () => {
    const list = await t.http().get('/api/v2/users/').set('Authorization', basic('bob', 'Bob-pass-1')).expect(200);
    assert.equal(list.body.count, 1);
    assert.equal(list.body.results[0].username, 'bob');
    await t.http().get(`/api/v2/users/${auditorId}/`).set('Authorization', basic('bob', 'Bob-pass-1')).expect(404);
    await t.http().post('/api/v2/users/').set('Authorization', basic('bob', 'Bob-pass-1')).send({ username: 'z', password: 'z' }).expect(403);
    await t.http().delete(`/api/v2/users/${auditorId}/`).set('Authorization', basic('bob', 'Bob-pass-1')).expect(404);
  });

  it('lets auditors read everyone but change no one', async () => {
    const auditor = basic('audrey', 'Audrey-pass-1');
    const list = await t.http().get('/api/v2/users/').set('Authorization', auditor).expect(200);
    assert.ok(list.body.count >= 3);
    await t.http().get(`/api/v2/users/${bobId}/`).set('Authorization', auditor).expect(200);
    await t.http().patch(`/api/v2/users/${bobId}/`).set('Authorization', auditor).send({ first_name: 'x' }).expect(403);
    await t.http().delete(`/api/v2/users/${bobId}/`).set('Authorization', auditor).expect(403);
  });

  it('lets users edit their own names but not their own privileges', async () => {
    const bob = basic('bob', 'Bob-pass-1');
    const res = await t.http().patch(`/api/v2/users/${bobId}/`).set('Authorization', bob).send({ first_name: 'Robert' }).expect(200);
    assert.equal(res.body.first_name, 'Robert');
    await t.http().patch(`/api/v2/users/${bobId}/`).set('Authorization', bob).send({ is_superuser: true }).expect(403);
    await t.http().patch(`/api/v2/users/${bobId}/`).set('Authorization', bob).send({ is_system_auditor: true }).expect(403);
    // sending the current value is not a change
    await t.http().patch(`/api/v2/users/${bobId}/`).set('Authorization', bob).send({ is_superuser: false }).expect(200);
    const same = await t.http().put(`/api/v2/users/${bobId}/`).set('Authorization', bob).send({ username: 'bob', password: '$encrypted$' }).expect(200);
    assert.equal(same.body.username, 'bob');
    await t.http().get('/api/v2/me/').set('Authorization', bob).expect(200);
  });

  it('stores usernames NFKC-normalised: a look-alike of a taken name is a clash, never a second account (SPEC §14, issue 40)', async () => {
    const count = async () => (await t.http().get('/api/v2/users/').set('Authorization', admin()).expect(200)).body.count as number;
    const before = await count();
    for (const name of ['ａｄｍｉｎ', '𝐚𝐝𝐦𝐢𝐧', 'ＢＯＢ']) {
      const res = await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: name, password: 'Xx-123456' }).expect(400);
      assert.deepEqual(res.body, { username: ['A user with that username already exists.'] }, name);
    }
    assert.equal(await count(), before, 'no look-alike account');
    // Control: a new name is stored in its one spelling, and any spelling of it logs in as that account.
    const created = await t.http().post('/api/v2/users/').set('Authorization', admin()).send({ username: 'ｆｒａｎｋ', password: 'Frank-pass-1' }).expect(201);
    assert.equal(created.body.username, 'frank');
    const url = `/api/v2/users/${String(created.body.id)}/`;
    const clash = await t.http().patch(url).set('Authorization', admin()).send({ username: '𝐚𝐝𝐦𝐢𝐧' }).expect(400);
    assert.deepEqual(clash.body, { username: ['A user with that username already exists.'] });
    assert.equal((await t.http().get(url).set('Authorization', admin()).expect(200)).body.username, 'frank', 'nothing changed');
    const renamed = await t.http().patch(url).set('Authorization', admin()).send({ username: 'ｆｒａｎｋｉｅ' }).expect(200);
    assert.equal(renamed.body.username, 'frankie');
    for (const name of ['frankie', 'ｆｒａｎｋｉｅ']) {
      const me = await t.http().get('/api/v2/me/').set('Authorization', basic(name, 'Frank-pass-1')).expect(200);
      assert.equal(me.body.results[0].id, created.body.id, name);
    }
  });

  it('PUT requires the username; PATCH does not', async () => {
    const res = await t.http().put(`/api/v2/users/${bobId}/`).set('Authorization', admin()).send({ first_name: 'x' }).expect(400);
    assert.deepEqual(res.body, { username: ['This field is required.'] });
  });

  it('paginates with page and page_size', async () => {
    const page1 = await t.http().get('/api/v2/users/?page_size=2').set('Authorization', admin()).expect(200);
    assert.equal(page1.body.results.length, 2);
    assert.equal(page1.body.previous, null);
    assert.equal(page1.body.next, '/api/v2/users/?page=2&page_size=2');
    const page2 = await t.http().get('/api/v2/users/?page=2&page_size=2').set('Authorization', admin()).expect(200);
    assert.equal(page2.body.previous, '/api/v2/users/?page=1&page_size=2');
    assert.notEqual(page2.body.results[0].id, page1.body.results[0].id);
    await t.http().get('/api/v2/users/?page=999').set('Authorization', admin()).expect(404);
    await t.http().get('/api/v2/users/?page=abc').set('Authorization', admin()).expect(404);
  });

  it('verifies an imported Django pbkdf2_sha256 hash and upgrades it on login', async () => {
    const id = await t.createUser('imported', 'placeholder-1');
    const ds = t.app.get<DataSource>(getDataSourceToken());
    await ds.query('UPDATE auth_user SET password = ? WHERE id = ?', [DJANGO_HASH, id]);
    await t.http().get('/api/v2/me/').set('Authorization', basic('imported', 'wrong')).expect(401);
    const [before] = await ds.query('SELECT password FROM auth_user WHERE id = ?', [id]);
    assert.equal(before.password, DJANGO_HASH);
    await t.http().get('/api/v2/me/').set('Authorization', basic('imported', 'AwxImported1')).expect(200);
    const [afterRow] = await ds.query('SELECT password FROM auth_user WHERE id = ?', [id]);
    assert.match(afterRow.password, /^\$argon2id\$/);
    await t.http().get('/api/v2/me/').set('Authorization', basic('imported', 'AwxImported1')).expect(200);
  });

  it('lets superusers delete others but not themselves; deleted users cannot log in', async () => {
    const id = await t.createUser('doomed', 'Doomed-pass-1');
    await t.http().delete('/api/v2/users/1/').set('Authorization', admin()).expect(403);
    await t.http().delete(`/api/v2/users/${id}/`).set('Authorization', admin()).expect(204);
    await t.http().get(`/api/v2/users/${id}/`).set('Authorization', admin()).expect(404);
    await t.http().get('/api/v2/me/').set('Authorization', basic('doomed', 'Doomed-pass-1')).expect(401);
  });

  it('has no default password: admin/admin and admin/password are refused', async () => {
    await t.http().get('/api/v2/me/').set('Authorization', basic('admin', 'admin')).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', basic('admin', 'password')).expect(401);
  });
});
