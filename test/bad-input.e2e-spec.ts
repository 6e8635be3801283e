import assert from 'node:assert/strict';
import http from 'node:http';
import { isIP } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { cookieValue } from './support/browser-login';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

/**
 * SPEC §1: bad input is a 4xx (or a redirect), never a 500, and never half-written data. Each case here
 * answered 500 (or was accepted) before the front door moved to Fastify's parsers and these checks.
 */
describe('bad input never becomes a 500 (SPEC §1)', () => {
  let t: TestApp;
  const admin = () => basic('admin', ADMIN_PASSWORD);

  async function loginAgent(headers: Record<string, string> = {}) {
    const agent = t.agent();
    const page = await agent.get('/api/login/').set(headers).expect(200);
    return { agent, csrf: cookieValue(page.headers['set-cookie'], 'csrftoken')! };
  }

  before(async () => {
    t = await startTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    await t.createUser('nina', 'Nina-pass-1');
  });
  after(() => t.close());

  it('redirects to a next outside Latin-1 on login and logout, percent-encoded', async () => {
    const { agent, csrf } = await loginAgent();
    const next = '/accounts/profile/?q=привет😀';
    const login = await agent.post('/api/login/').set('X-CSRFToken', csrf).type('form').send({ username: 'nina', password: 'Nina-pass-1', next });
    assert.equal(login.status, 302);
    assert.equal(login.headers.location, '/accounts/profile/?q=%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82%F0%9F%98%80');
    const logout = await agent.get(`/api/logout/?next=${encodeURIComponent('/api/?ü=€')}`);
    assert.equal(logout.status, 302);
    assert.equal(logout.headers.location, '/api/?%C3%BC=%E2%82%AC');
  });

  it('answers JSON nested thousands deep with a 4xx', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const deepObject = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    for (const [method, path] of [['post', '/api/v2/users/'], ['patch', '/api/v2/settings/authentication/'], ['post', '/api/v2/tokens/'], ['post', '/api/v2/hosts/']] as const) {
      for (const body of [deep, deepObject]) {
        const res = await t.http()[method](path).set('Authorization', admin()).set('Content-Type', 'application/json').send(body);
        // A deep array is never a valid body (400); a deep object is one unknown field, which DRF ignores.
        assert.ok(res.status < 500 && (body === deep ? res.status === 400 : true), `${method} ${path}: ${res.status} ${res.text.slice(0, 120)}`);
        assert.equal(typeof res.body, 'object');
      }
    }
    const users = await t.http().get('/api/v2/users/').set('Authorization', admin()).expect(200);
    assert.equal(users.body.count, 2, 'no user was written');
  });

  it('answers odd page numbers with 404 "Invalid page." and odd page sizes with the default', async () => {
    for (const page of ['1e20', '1e3', '0x10', '-1', '0', '1.5', ' 2', '99999999999999999999', 'NaN', '２']) {
      const res = await t.http().get(`/api/v2/users/?page=${encodeURIComponent(page)}`).set('Authorization', admin());
      assert.equal(res.status, 404, `page=${page}: ${res.status}`);
      assert.deepEqual(res.body, { detail: 'Invalid page.' });
    }
    for (const size of ['1e20', '-5', 'abc', '1e3']) {
      const res = await t.http().get(`/api/v2/users/?page_size=${encodeURIComponent(size)}`).set('Authorization', admin()).expect(200);
      assert.equal(res.body.results.length, 2);
    }
  });

  it('stores only a valid client address when a trusted proxy forwards garbage', async () => {
    for (const forwarded of ['x'.repeat(200), 'not-an-address', '999.1.1.1', '<script>', '1.2.3.4:80, garbage']) {
      const { agent, csrf } = await loginAgent({ 'X-Forwarded-For': forwarded });
      const login = await agent.post('/api/login/').set('X-Forwarded-For', forwarded).set('X-CSRFToken', csrf).type('form')
        .send({ username: 'nina', password: 'Nina-pass-1' });
      assert.equal(login.status, 302, `X-Forwarded-For ${forwarded.slice(0, 30)}: ${login.status}`);
      await t.http().get('/api/v2/me/').set('X-Forwarded-For', forwarded).set('Authorization', basic('nina', 'wrong')).expect(401);
    }
    const dataSource = t.app.get(DataSource);
    const sessions: { ip_address: string }[] = await dataSource.query('SELECT ip_address FROM user_session');
    const throttled: { client_ip: string }[] = await dataSource.query('SELECT client_ip FROM login_failure');
    for (const { ip_address } of sessions) assert.ok(isIP(ip_address), `stored session address ${ip_address}`);
    for (const { client_ip } of throttled) assert.ok(isIP(client_ip), `stored throttle address ${client_ip}`);
    // A valid forwarded address is still believed from a trusted proxy.
    const { agent, csrf } = await loginAgent({ 'X-Forwarded-For': '203.0.113.9' });
    await agent.post('/api/login/').set('X-Forwarded-For', '203.0.113.9').set('X-CSRFToken', csrf).type('form').send({ username: 'nina', password: 'Nina-pass-1' }).expect(302);
    const latest: { ip_address: string }[] = await dataSource.query('SELECT ip_address FROM user_session ORDER BY id DESC');
    assert.equal(latest[0].ip_address, '203.0.113.9');
  });

  it('refuses a JSON body that is not valid UTF-8, and writes nothing', async () => {
    const bad = Buffer.concat([Buffer.from('{"name": "host-'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    const res = await rawPost(`${t.url}/api/v2/hosts/`, { Authorization: admin(), 'Content-Type': 'application/json' }, bad);
    assert.equal(res.status, 400);
    assert.match(JSON.parse(res.body).detail, /^JSON parse error - /);
    const hosts = await t.http().get('/api/v2/hosts/').set('Authorization', admin()).expect(200);
    assert.equal(hosts.body.count, 0);
  });
});

/** A POST with exact bytes (supertest re-encodes bodies). */
function rawPost(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(body.length) } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
