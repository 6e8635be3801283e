import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { browserLogin, cookieValue } from './support/browser-login';

const NO_CACHE = 'max-age=0, no-cache, no-store, must-revalidate, private';

function cookieLine(setCookie: string[], name: string): string {
  const line = setCookie.find((c) => c.startsWith(`${name}=`));
  assert.ok(line, `Set-Cookie ${name} present`);
  return line;
}

describe('session login (seed §5.1, SPEC §2)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1', { first_name: 'Alice', email: 'alice@example.com' });
  });
  after(() => t.close());

  it('GET /api/login/ serves the form and sets csrftoken (Path=/, SameSite=Lax, readable by JS)', async () => {
    const res = await t.http().get('/api/login/').expect(200);
    assert.match(res.headers['content-type'], /^text\/html; charset=utf-8/);
    assert.equal(res.headers['cache-control'], NO_CACHE);
    const line = cookieLine(res.headers['set-cookie'] as unknown as string[], 'csrftoken');
    assert.match(line, /Path=\//);
    assert.match(line, /SameSite=Lax/);
    assert.doesNotMatch(line, /HttpOnly/);
    assert.match(res.text, /<label for="username">Username<\/label>/);
    assert.match(res.text, /<label for="password">Password<\/label>/);
    assert.match(res.text, /<button type="submit">Log in<\/button>/);
    assert.match(res.text, /name="csrfmiddlewaretoken"/);
  });

  it('GET /api/login/ negotiates: */* and text/html get the page, JSON gets 406', async () => {
    await t.http().get('/api/login/').set('Accept', '*/*').expect(200);
    await t.http().get('/api/login/').set('Accept', 'text/html,application/xhtml+xml').expect(200);
    await t.http().get('/api/login/').set('Accept', 'application/json').expect(406);
  });

  it('reproduces the seed login exchange header by header and cookie by cookie', async () => {
    const agent = t.agent();
    const page = await agent.get('/api/login/').expect(200);
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const res = await agent
      .post('/api/login/')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .set('X-CSRFToken', csrf)
      .set('Referer', `${t.url}/api/login/`)
      .send('username=alice&password=Alice-pass-1')
      .expect(302);
    assert.equal(res.text, '');
    assert.equal(res.headers['content-length'], '0');
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers.location, '/accounts/profile/');
    assert.equal(res.headers['x-api-session-cookie-name'], 'svc_session_id');
    assert.equal(res.headers['session-timeout'], '1800');
    assert.match(res.headers['x-api-request-id'], /^[0-9a-f]{32}$/);
    assert.match(res.headers['x-api-total-time'], /^\d+\.\d{3}s$/);
    assert.equal(res.headers['access-control-expose-headers'], 'X-API-Request-Id');
    assert.equal(res.headers['cache-control'], NO_CACHE);
    assert.equal(res.headers['vary'], 'Cookie, Accept-Language, Origin');
    assert.equal(res.headers['strict-transport-security'], 'max-age=15768000');
    assert.equal(res.headers['content-language'], 'en');
    const cookies = res.headers['set-cookie'] as unknown as string[];
    assert.match(cookieLine(cookies, 'userLoggedIn'), /^userLoggedIn=true; Path=\//);
    const currentUser = JSON.parse(cookieValue(cookies, 'current_user')!);
    assert.equal(currentUser.username, 'alice');
    assert.equal(currentUser.email, 'alice@example.com');
    assert.ok(!('password' in currentUser));
    const newCsrf = cookieLine(cookies, 'csrftoken');
    assert.match(newCsrf, /Path=\//);
    assert.match(newCsrf, /SameSite=Lax/);
    assert.notEqual(cookieValue(cookies, 'csrftoken'), csrf, 'csrftoken is rotated');
    const session = cookieLine(cookies, 'svc_session_id');
    assert.match(session, /HttpOnly/);
    assert.match(session, /Max-Age=1800/);
    assert.match(session, /Path=\//);
    assert.match(session, /SameSite=Lax/);
    assert.match(session, /Expires=\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT/);
    assert.doesNotMatch(session, /Secure/);
    // the client stays logged in across pages
    const me = await agent.get('/api/v2/me/').expect(200);
    assert.equal(me.body.results[0].username, 'alice');
    assert.equal(me.headers['session-timeout'], '1800');
    assert.match(cookieLine(me.headers['set-cookie'] as unknown as string[], 'svc_session_id'), /Max-Age=1800/);
  });

  it('session ids carry 256 random bits and the database keeps only their SHA-256', async () => {
    const { session } = await browserLogin(t, 'alice', 'Alice-pass-1');
    assert.match(session, /^[A-Za-z0-9_-]{43}$/);
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const rows: { key_hash: string }[] = await ds.query('SELECT key_hash FROM user_session');
    assert.ok(rows.every((r) => r.key_hash !== session));
    assert.ok(rows.some((r) => r.key_hash === createHash('sha256').update(session).digest('hex')));
  });

  it('follows a safe next and ignores an unsafe one', async () => {
    const safe = await browserLogin(t, 'alice', 'Alice-pass-1', { next: '/api/v2/me/?x=1' });
    assert.equal(safe.response.headers.location, '/api/v2/me/?x=1');
    for (const next of ['//evil.example.com/', 'https://evil.example.com/', '/\\evil.example.com', 'javascript:alert(1)']) {
      const res = await browserLogin(t, 'alice', 'Alice-pass-1', { next });
      assert.equal(res.response.headers.location, '/accounts/profile/', next);
    }
    const absolute = await browserLogin(t, 'alice', 'Alice-pass-1', { next: 'http://127.0.0.1/api/v2/ping/' });
    // Our own absolute URL is used whole (SPEC §2), never cut down to a path that could read as a host.
    assert.equal(absolute.response.headers.location, 'http://127.0.0.1/api/v2/ping/');
  });

  it('answers a failed login with 401 and one message for every cause', async () => {
    const agent = t.agent();
    const page = await agent.get('/api/login/');
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const attempt = (form: string) => agent.post('/api/login/').set('X-CSRFToken', csrf).type('form').send(form);
    const wrong = await attempt('username=alice&password=nope').expect(401);
    const unknown = await attempt('username=nobody&password=nope').expect(401);
    const empty = await attempt('username=&password=').expect(401);
    assert.match(wrong.text, /role="alert"[^>]*>Please enter a correct username and password/);
    assert.equal(wrong.text, unknown.text);
    assert.equal(wrong.text, empty.text);
    assert.equal(cookieValue(wrong.headers['set-cookie'], 'svc_session_id'), undefined);
  });

  it('refuses login CSRF: missing cookie, missing token, wrong token, foreign Origin or Referer', async () => {
    const form = 'username=alice&password=Alice-pass-1';
    const noCookie = await t.http().post('/api/login/').set('X-CSRFToken', 'x'.repeat(43)).type('form').send(form).expect(403);
    assert.deepEqual(noCookie.body, { detail: 'CSRF Failed: CSRF cookie not set.' });
    const agent = t.agent();
    const csrf = cookieValue((await agent.get('/api/login/')).headers['set-cookie'], 'csrftoken')!;
    const missing = await agent.post('/api/login/').type('form').send(form).expect(403);
    assert.deepEqual(missing.body, { detail: 'CSRF Failed: CSRF token missing.' });
    const wrong = await agent.post('/api/login/').set('X-CSRFToken', 'y'.repeat(43)).type('form').send(form).expect(403);
    assert.deepEqual(wrong.body, { detail: "CSRF Failed: CSRF token from the 'X-Csrftoken' HTTP header incorrect." });
    const origin = await agent.post('/api/login/').set('X-CSRFToken', csrf).set('Origin', 'https://evil.example.com').type('form').send(form).expect(403);
    assert.deepEqual(origin.body, { detail: 'CSRF Failed: Origin checking failed - https://evil.example.com does not match any trusted origins.' });
    const referer = await agent.post('/api/login/').set('X-CSRFToken', csrf).set('Referer', 'https://evil.example.com/login').type('form').send(form).expect(403);
    assert.match(referer.body.detail, /^CSRF Failed: Referer checking failed - https:\/\/evil.example.com\/login does not match any trusted origins\.$/);
    // the form field works as well as the header, and a trusted origin passes
    await agent.post('/api/login/').type('form').send(`${form}&csrfmiddlewaretoken=${csrf}`).expect(302);
    await t.settings({ CSRF_TRUSTED_ORIGINS: ['https://ui.example.com'] });
    const agent2 = t.agent();
    const csrf2 = cookieValue((await agent2.get('/api/login/')).headers['set-cookie'], 'csrftoken')!;
    await agent2.post('/api/login/').set('X-CSRFToken', csrf2).set('Origin', 'https://ui.example.com').type('form').send(form).expect(302);
    await t.settings({ CSRF_TRUSTED_ORIGINS: [] });
  });

  it('requires CSRF on unsafe methods of session requests only', async () => {
    const id = await t.createUser('csrfuser', 'Csrf-pass-1');
    const { agent, csrf } = await browserLogin(t, 'csrfuser', 'Csrf-pass-1');
    const refused = await agent.patch(`/api/v2/users/${id}/`).send({ first_name: 'X' }).expect(403);
    assert.deepEqual(refused.body, { detail: 'CSRF Failed: CSRF token missing.' });
    await agent.patch(`/api/v2/users/${id}/`).set('X-CSRFToken', 'z'.repeat(43)).send({ first_name: 'X' }).expect(403);
    await agent.patch(`/api/v2/users/${id}/`).set('X-CSRFToken', csrf).send({ first_name: 'X' }).expect(200);
    await agent.get('/api/v2/me/').expect(200); // safe methods need no token
    await t.http().patch(`/api/v2/users/${id}/`).set('Authorization', basic('csrfuser', 'Csrf-pass-1')).send({ first_name: 'Y' }).expect(200);
  });

  it('never adopts a session id sent by the client (fixation)', async () => {
    const agent = t.agent();
    const planted = 'A'.repeat(43);
    const page = await agent.get('/api/login/').set('Cookie', `svc_session_id=${planted}`);
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const res = await agent.post('/api/login/').set('Cookie', `svc_session_id=${planted}; csrftoken=${csrf}`).set('X-CSRFToken', csrf)
      .type('form').send('username=alice&password=Alice-pass-1').expect(302);
    const issued = cookieValue(res.headers['set-cookie'], 'svc_session_id');
    assert.ok(issued && issued !== planted);
    await t.http().get('/api/v2/me/').set('Cookie', `svc_session_id=${planted}`).expect(401);
    await t.http().get('/api/v2/me/').set('Cookie', `svc_session_id=${issued}`).expect(200);
  });

  it('a new login in a browser that presents a live session ends that session (logged_out)', async () => {
    const first = await browserLogin(t, 'alice', 'Alice-pass-1');
    const second = await browserLogin(t, 'alice', 'Alice-pass-1', { agent: first.agent });
    assert.notEqual(second.session, first.session);
    const old = await t.http().get('/api/v2/me/').set('Cookie', `svc_session_id=${first.session}`).expect(401);
    assert.equal(old.body.reason, 'logged_out');
    await first.agent.get('/api/v2/me/').expect(200);
  });

  it('logout ends the session server-side, clears the cookie and redirects', async () => {
    const { agent, session } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const res = await agent.get('/api/logout/').expect(302);
    assert.equal(res.headers.location, '/api/');
    const cookies = res.headers['set-cookie'] as unknown as string[];
    assert.match(cookieLine(cookies, 'svc_session_id'), /^svc_session_id=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=\//);
    assert.match(cookieLine(cookies, 'userLoggedIn'), /^userLoggedIn=false/);
    const replay = await t.http().get('/api/v2/me/').set('Cookie', `svc_session_id=${session}`).expect(401);
    assert.equal(replay.body.reason, 'logged_out');
    assert.match(replay.body.detail, /logged out/);
    // anonymous logout is fine; a safe next is followed
    await t.http().get('/api/logout/?next=/api/login/').expect(302).expect('Location', '/api/login/');
    await t.http().get('/api/logout/?next=https://evil.example.com/').expect(302).expect('Location', '/api/');
  });

  it('POST /api/logout/ from a logged-in browser needs the CSRF token', async () => {
    const { agent, csrf } = await browserLogin(t, 'alice', 'Alice-pass-1');
    await agent.post('/api/logout/').expect(403);
    await agent.get('/api/v2/me/').expect(200);
    await agent.post('/api/logout/').set('X-CSRFToken', csrf).expect(302);
    await agent.get('/api/v2/me/').expect(401);
  });

  it('refuses local logins while DISABLE_LOCAL_AUTH is on, and ends local sessions', async () => {
    const { agent } = await browserLogin(t, 'alice', 'Alice-pass-1');
    await t.settings({ DISABLE_LOCAL_AUTH: true });
    const page = await t.agent().get('/api/login/');
    const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken')!;
    const res = await t.http().post('/api/login/').set('Cookie', `csrftoken=${csrf}`).set('X-CSRFToken', csrf).type('form')
      .send('username=alice&password=Alice-pass-1').expect(401);
    assert.match(res.text, /Local authentication is disabled/);
    const ended = await agent.get('/api/v2/me/').expect(401);
    assert.equal(ended.body.reason, 'local_auth_disabled');
    await t.settings({ DISABLE_LOCAL_AUTH: false });
  });

  it('/accounts/profile/ answers a logged-in browser and redirects an anonymous one', async () => {
    const { agent } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const page = await agent.get('/accounts/profile/').expect(200);
    assert.match(page.text, /alice/);
    const anon = await t.http().get('/accounts/profile/').expect(302);
    assert.equal(anon.headers.location, '/api/login/?next=%2Faccounts%2Fprofile%2F');
  });

  it('basic requests never create or touch a session', async () => {
    const ds = t.app.get<DataSource>(getDataSourceToken());
    const [{ n: before }] = await ds.query('SELECT COUNT(*) AS n FROM user_session');
    for (let i = 0; i < 3; i++) {
      const res = await t.http().get('/api/v2/me/').set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(200);
      assert.equal(res.headers['set-cookie'], undefined);
    }
    const [{ n: afterCount }] = await ds.query('SELECT COUNT(*) AS n FROM user_session');
    assert.equal(Number(afterCount), Number(before));
  });

  it('never logs a password, session id or CSRF token', async () => {
    const { session, csrf } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const joined = t.logs.join('\n');
    for (const secret of ['Alice-pass-1', session, csrf]) assert.ok(!joined.includes(secret), 'secret found in logs');
    assert.ok(t.logs.some((l) => l.includes('"event":"login"') && l.includes('"outcome":"success"')));
  });
});
