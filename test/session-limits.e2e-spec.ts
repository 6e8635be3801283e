import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { browserLogin } from './support/browser-login';

describe('session limits (seed §7–§8, SPEC §3)', () => {
  let t: TestApp;
  before(async () => {
    // Behind a trusted proxy, so tests can pose as several client addresses.
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    await t.createUser('erin', 'Erin-pass-1');
    await t.createUser('frank', 'Frank-pass-1');
  });
  beforeEach(() => t.settings({ SESSIONS_PER_USER: -1, SESSIONS_PER_IP: -1 }));
  after(() => t.close());

  it('with no limit (-1) every session lives', async () => {
    const logins = [];
    for (let i = 0; i < 4; i++) logins.push(await browserLogin(t, 'erin', 'Erin-pass-1'));
    for (const l of logins) await l.agent.get('/api/v2/me/').expect(200);
  });

  it('SESSIONS_PER_USER=2: a third login ends the oldest; the two newest work', async () => {
    await t.settings({ SESSIONS_PER_USER: 2 });
    const a = await browserLogin(t, 'erin', 'Erin-pass-1');
    const b = await browserLogin(t, 'erin', 'Erin-pass-1');
    const c = await browserLogin(t, 'erin', 'Erin-pass-1');
    const res = await a.agent.get('/api/v2/me/').expect(401);
    assert.deepEqual(Object.keys(res.body).sort(), ['detail', 'reason']);
    assert.equal(res.body.reason, 'session_limit');
    assert.match(res.body.detail, /session limit/);
    await b.agent.get('/api/v2/me/').expect(200);
    await c.agent.get('/api/v2/me/').expect(200);
    // another user's sessions are unaffected
    const f = await browserLogin(t, 'frank', 'Frank-pass-1');
    await f.agent.get('/api/v2/me/').expect(200);
    await b.agent.get('/api/v2/me/').expect(200);
  });

  it('SESSIONS_PER_USER=1: a new login ends the earlier session', async () => {
    await t.settings({ SESSIONS_PER_USER: 1 });
    const a = await browserLogin(t, 'erin', 'Erin-pass-1');
    const b = await browserLogin(t, 'erin', 'Erin-pass-1');
    assert.equal((await a.agent.get('/api/v2/me/')).body.reason, 'session_limit');
    await b.agent.get('/api/v2/me/').expect(200);
  });

  it('SESSIONS_PER_IP=1 counts sessions opened from one client address, across users', async () => {
    await t.settings({ SESSIONS_PER_IP: 1 });
    const ipA = { 'X-Forwarded-For': '203.0.113.7' };
    const ipB = { 'X-Forwarded-For': '198.51.100.9' };
    const erinA = await browserLogin(t, 'erin', 'Erin-pass-1', { headers: ipA });
    const frankB = await browserLogin(t, 'frank', 'Frank-pass-1', { headers: ipB });
    const frankA = await browserLogin(t, 'frank', 'Frank-pass-1', { headers: ipA });
    const ended = await erinA.agent.get('/api/v2/me/').set(ipA).expect(401);
    assert.equal(ended.body.reason, 'session_limit');
    await frankB.agent.get('/api/v2/me/').set(ipB).expect(200);
    await frankA.agent.get('/api/v2/me/').set(ipA).expect(200);
    const list = await frankA.agent.get('/api/v2/me/sessions/').set(ipA).expect(200);
    const addresses = list.body.results.map((s: { ip_address: string }) => s.ip_address);
    assert.ok(addresses.includes('198.51.100.9') && addresses.includes('203.0.113.7'), String(addresses));
  });

  it('expired sessions do not count toward the limit', async () => {
    await t.settings({ SESSIONS_PER_USER: 2, SESSION_COOKIE_AGE: 60 });
    const a = await browserLogin(t, 'frank', 'Frank-pass-1');
    t.clock.advance(120); // a has expired
    const b = await browserLogin(t, 'frank', 'Frank-pass-1');
    const c = await browserLogin(t, 'frank', 'Frank-pass-1');
    assert.equal((await a.agent.get('/api/v2/me/')).body.reason, 'idle_timeout');
    await b.agent.get('/api/v2/me/').expect(200);
    await c.agent.get('/api/v2/me/').expect(200);
    await t.settings({ SESSION_COOKIE_AGE: 1800 });
  });

  it('basic requests are never counted', async () => {
    await t.settings({ SESSIONS_PER_USER: 1 });
    const a = await browserLogin(t, 'erin', 'Erin-pass-1');
    for (let i = 0; i < 3; i++) await t.http().get('/api/v2/me/').set('Authorization', basic('erin', 'Erin-pass-1')).expect(200);
    await a.agent.get('/api/v2/me/').expect(200);
  });

  it('the settings API refuses a limit of 0', async () => {
    const res = await t.http().patch('/api/v2/settings/authentication/').set('Authorization', basic('admin', ADMIN_PASSWORD)).send({ SESSIONS_PER_USER: 0, SESSIONS_PER_IP: 0 }).expect(400);
    assert.ok(res.body.SESSIONS_PER_USER && res.body.SESSIONS_PER_IP);
  });
});
