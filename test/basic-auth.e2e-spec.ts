import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { basic, startTestApp, TestApp } from './support/test-app';

describe('HTTP basic authentication (seed §5.2, SPEC §4)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1');
    await t.createUser('colon', 'pa:ss:word');
    await t.createUser('ünï', 'pässwörd-£');
  });
  after(() => t.close());

  it('authenticates a request statelessly: no session cookie, no Session-Timeout', async () => {
    const res = await t.http().get('/api/v2/me/').set('Authorization', basic('alice', 'Alice-pass-1')).expect(200);
    assert.equal(res.body.results[0].username, 'alice');
    assert.equal(res.headers['set-cookie'], undefined);
    assert.equal(res.headers['session-timeout'], undefined);
  });

  it('accepts the scheme in any case and splits at the first colon (RFC 7617)', async () => {
    const header = 'bAsIc ' + Buffer.from('colon:pa:ss:word').toString('base64');
    const res = await t.http().get('/api/v2/me/').set('Authorization', header).expect(200);
    assert.equal(res.body.results[0].username, 'colon');
    await t.http().get('/api/v2/me/').set('Authorization', basic('colon', 'pa')).expect(401);
  });

  it('decodes credentials as UTF-8', async () => {
    const res = await t.http().get('/api/v2/me/').set('Authorization', basic('ünï', 'pässwörd-£')).expect(200);
    assert.equal(res.body.results[0].username, 'ünï');
    const latin1 = 'Basic ' + Buffer.from('ünï:pässwörd-£', 'latin1').toString('base64');
    await t.http().get('/api/v2/me/').set('Authorization', latin1).expect(401);
  });

  it('gives the same answer for an unknown user and a wrong password', async () => {
    const wrong = await t.http().get('/api/v2/me/').set('Authorization', basic('alice', 'nope')).expect(401);
    const unknown = await t.http().get('/api/v2/me/').set('Authorization', basic('nobody', 'nope')).expect(401);
    assert.deepEqual(wrong.body, unknown.body);
    assert.deepEqual(wrong.body, { detail: 'Invalid username/password.' });
    assert.equal(wrong.headers['www-authenticate'], unknown.headers['www-authenticate']);
    assert.doesNotMatch(wrong.headers['www-authenticate'], /Basic/);
  });

  it('checks the password exactly as typed (no case folding, no truncation)', async () => {
    await t.http().get('/api/v2/me/').set('Authorization', basic('alice', 'alice-pass-1')).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', basic('alice', 'Alice-pass-')).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', basic('alice', 'Alice-pass-1 ')).expect(401);
  });

  it('answers malformed headers with 401, never 500', async () => {
    for (const header of ['Basic', 'Basic !!!!', 'Basic ' + Buffer.from('nocolon').toString('base64'), 'Basic ' + Buffer.from(':pw').toString('base64'), 'Basicx abc', 'Digest abc']) {
      const res = await t.http().get('/api/v2/me/').set('Authorization', header);
      assert.equal(res.status, 401, header);
      assert.ok(res.body.detail);
    }
  });

  it('says basic auth is disabled when AUTH_BASIC_ENABLED is false, at once', async () => {
    await t.settings({ AUTH_BASIC_ENABLED: false });
    const res = await t.http().get('/api/v2/me/').set('Authorization', basic('alice', 'Alice-pass-1')).expect(401);
    assert.equal(res.body.detail, 'Basic authentication is disabled.');
    await t.settings({ AUTH_BASIC_ENABLED: true });
    await t.http().get('/api/v2/me/').set('Authorization', basic('alice', 'Alice-pass-1')).expect(200);
  });

  it('stops a remembered credential at once after a password change or deactivation', async () => {
    const id = await t.createUser('repeat', 'Repeat-pass-1');
    const old = basic('repeat', 'Repeat-pass-1');
    await t.http().get('/api/v2/me/').set('Authorization', old).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', old).expect(200);
    await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', old).send({ password: 'Repeat-pass-2', old_password: 'Repeat-pass-1' }).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', old).expect(401);
    const fresh = basic('repeat', 'Repeat-pass-2');
    await t.http().get('/api/v2/me/').set('Authorization', fresh).expect(200);
    await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', basic('admin', 'Adm1n-test-password!')).send({ is_active: false }).expect(200);
    await t.http().get('/api/v2/me/').set('Authorization', fresh).expect(401);
  });

  it('refuses local credentials while DISABLE_LOCAL_AUTH is on', async () => {
    await t.settings({ DISABLE_LOCAL_AUTH: true });
    const res = await t.http().get('/api/v2/me/').set('Authorization', basic('alice', 'Alice-pass-1')).expect(401);
    assert.equal(res.body.detail, 'Local authentication is disabled.');
    await t.settings({ DISABLE_LOCAL_AUTH: false });
  });

  it('never logs the password', async () => {
    const joined = t.logs.join('\n');
    for (const secret of ['Alice-pass-1', 'pa:ss:word', 'Repeat-pass-2', 'Adm1n-test-password!']) assert.ok(!joined.includes(secret), secret);
  });
});
