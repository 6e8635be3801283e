import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:net';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

describe('HTTP pipeline (SPEC §1)', () => {
  let t: TestApp;
  const admin = () => basic('admin', ADMIN_PASSWORD);
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('sets the headers every response carries', async () => {
    const res = await t.http().get('/api/v2/ping/').expect(200);
    assert.match(res.headers['x-api-request-id'], /^[0-9a-f]{32}$/);
    assert.match(res.headers['x-api-total-time'], /^\d+\.\d{3}s$/);
    assert.equal(res.headers['access-control-expose-headers'], 'X-API-Request-Id');
    assert.equal(res.headers['strict-transport-security'], 'max-age=15768000');
    assert.equal(res.headers['vary'], 'Cookie, Accept-Language, Origin');
    assert.equal(res.headers['content-language'], 'en');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cache-control'], 'max-age=0, no-cache, no-store, must-revalidate, private');
    assert.equal(res.headers['x-api-product-name'], 'AWX');
    assert.equal(res.headers['x-api-product-version'], '21.14.0');
    assert.ok(res.headers['x-api-node']);
  });

  const SPEC_HEADERS = ['x-api-request-id', 'x-api-total-time', 'access-control-expose-headers', 'x-api-node', 'x-api-product-name', 'x-api-product-version',
    'strict-transport-security', 'content-language', 'vary', 'x-content-type-options', 'x-frame-options', 'cache-control'];
  const DOCUMENT_ONLY = ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control', 'x-download-options', 'x-permitted-cross-domain-policies', 'x-xss-protection', 'referrer-policy'];

  it("JSON answers, errors included, carry the SPEC's headers, a strict CSP and CORP; helmet's document-only headers stay on pages", async () => {
    for (const res of [
      await t.http().get('/api/v2/ping/').expect(200),
      await t.http().get('/api/v2/me/').expect(401),
      await t.http().get('/api/v2/no-such-thing/').expect(404),
      await t.http().post('/api/v2/tokens/').set('Authorization', admin()).set('Content-Type', 'text/plain').send('x').expect(415),
    ]) {
      for (const name of SPEC_HEADERS) assert.ok(res.headers[name], `${res.status} has ${name}`);
      assert.equal(res.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
      assert.equal(res.headers['cross-origin-resource-policy'], 'same-origin');
      for (const name of DOCUMENT_ONLY) assert.equal(res.headers[name], undefined, `${res.status} without ${name}`);
    }
    const page = await t.http().get('/api/login/').expect(200);
    assert.match(page.headers['content-type'], /^text\/html/);
    for (const name of [...SPEC_HEADERS, ...DOCUMENT_ONLY]) assert.ok(page.headers[name], `the page has ${name}`);
    assert.match(page.headers['content-security-policy'], /^default-src 'self';script-src 'self';style-src 'self'/);
    // The OpenAPI page keeps its own CSP (it allows its inline styles).
    const docs = await t.http().get('/api/swagger/').redirects(1);
    assert.match(docs.headers['content-security-policy'], /style-src 'self' 'unsafe-inline'/);
  });

  it('reuses a valid incoming request id and replaces an invalid one', async () => {
    const id = 'ab'.repeat(16);
    const res = await t.http().get('/api/v2/ping/').set('X-API-Request-Id', id).expect(200);
    assert.equal(res.headers['x-api-request-id'], id);
    const bad = await t.http().get('/api/v2/ping/').set('X-API-Request-Id', 'not-an-id<script>').expect(200);
    assert.notEqual(bad.headers['x-api-request-id'], 'not-an-id');
    assert.match(bad.headers['x-api-request-id'], /^[0-9a-f]{32}$/);
  });

  it('redirects paths without a trailing slash: 301 for GET/HEAD (query kept), 308 otherwise', async () => {
    const get = await t.http().get('/api/v2/users?page=2').expect(301);
    assert.equal(get.headers.location, '/api/v2/users/?page=2');
    assert.deepEqual(get.body, { detail: 'Moved to /api/v2/users/?page=2 (API paths end in a slash).' });
    const head = await t.http().head('/api/v2/ping').expect(301);
    assert.equal(head.headers.location, '/api/v2/ping/');
    const post = await t.http().post('/api/v2/users').send({}).expect(308);
    assert.equal(post.headers.location, '/api/v2/users/');
    assert.deepEqual(post.body, { detail: 'Moved to /api/v2/users/ (API paths end in a slash).' });
    await t.http().get('/api').expect(301).expect('Location', '/api/');
  });

  it('lists what is available at /api/ and /api/v2/ without credentials', async () => {
    const root = await t.http().get('/api/').expect(200);
    assert.equal(root.body.current_version, '/api/v2/');
    assert.equal(root.body.oauth2, '/api/o/');
    const v2 = await t.http().get('/api/v2/').expect(200);
    assert.equal(v2.body.ping, '/api/v2/ping/');
    assert.equal(v2.body.users, '/api/v2/users/');
  });

  it('answers 401 with a Bearer challenge (never Basic) when unauthenticated', async () => {
    const res = await t.http().get('/api/v2/me/').expect(401);
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="api"');
    assert.match(res.body.detail, /Authentication credentials were not provided/);
    assert.doesNotMatch(res.headers['www-authenticate'], /Basic/);
  });

  it('answers 403 with the AWX detail when authenticated but not allowed', async () => {
    await t.createUser('plain403', 'Pw-plain-403');
    const res = await t.http().get('/api/v2/settings/authentication/').set('Authorization', basic('plain403', 'Pw-plain-403')).expect(403);
    assert.deepEqual(res.body, { detail: 'You do not have permission to perform this action.' });
  });

  it('refuses unsupported content types with 415', async () => {
    const res = await t.http().post('/api/v2/users/').set('Authorization', admin()).set('Content-Type', 'text/plain').send('hello').expect(415);
    assert.match(res.body.detail, /Unsupported media type "text\/plain"/);
    await t.http().post('/api/v2/users/').set('Authorization', admin()).type('form').send('username=x').expect(415);
  });

  it('answers malformed JSON with 400 and a JSON detail, never a 500', async () => {
    const res = await t.http().post('/api/v2/users/').set('Authorization', admin()).set('Content-Type', 'application/json').send('{"username": ').expect(400);
    assert.match(res.body.detail, /^JSON parse error/);
    assert.doesNotMatch(JSON.stringify(res.body), /at .*\.js/);
  });

  it('answers an oversized body with 413', async () => {
    const big = JSON.stringify({ username: 'x'.repeat(2 * 1024 * 1024) });
    const res = await t.http().post('/api/v2/users/').set('Authorization', admin()).set('Content-Type', 'application/json').send(big);
    assert.equal(res.status, 413);
    assert.equal(res.body.detail, 'Request body is too large.');
  });

  it('answers a JSON body that is not an object with a 400 field error', async () => {
    const res = await t.http().post('/api/v2/users/').set('Authorization', admin()).send([1, 2]).expect(400);
    assert.deepEqual(res.body, { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await t.http().get('/api/v2/nothing-here/').set('Authorization', admin()).expect(404);
    assert.deepEqual(res.body, { detail: 'Not found.' });
  });

  it('treats ids that are not positive integers as 404', async () => {
    for (const id of ['1.5', '1e3', 'abc', '0', '-1', '01', '99999999999']) {
      const res = await t.http().get(`/api/v2/users/${id}/`).set('Authorization', admin());
      assert.equal(res.status, 404, `id ${id}`);
      assert.deepEqual(res.body, { detail: 'Not found.' });
    }
    const one = await t.http().get('/api/v2/users/1/').set('Authorization', admin()).expect(200);
    assert.equal(one.body.id, 1);
  });

  /** Raw requests sent with the client's end of stream (FIN) at once, as `printf … | nc -N` sends them. */
  const halfClosed = (requests: string) =>
    new Promise<string>((resolve, reject) => {
      const { hostname, port } = new URL(t.url);
      const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true }, () => socket.end(requests));
      let text = '';
      socket.setEncoding('latin1').on('data', (d: string) => (text += d)).on('close', () => resolve(text)).on('error', reject);
    });

  // Node.js's default ends the socket when it reads such a client's FIN, so an answer not ended by then is lost
  // in Node.js itself (the lookups of /me/ on MariaDB, say) and only answers made at once are owed; with their
  // ends held to the turn's end, only the first of pipelined ones went out until sendHeldEndsOn (proven
  // deterministically in api-response.spec, where the answers are ended in a check phase).
  it('answers every request of a client that pipelines them and ends its side at once', async () => {
    const ping = 'GET /api/v2/ping/ HTTP/1.1\r\nHost: x\r\n\r\n';
    for (let i = 0; i < 5; i++) {
      const answers = (await halfClosed(ping.repeat(3))).split('HTTP/1.1 ').slice(1);
      assert.deepEqual(answers.map((a) => a.slice(0, 3)), ['200', '200', '200']);
      for (const answer of answers) assert.match(answer, /"active_node"/);
    }
  });
});
