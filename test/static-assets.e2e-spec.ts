import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestApp, TestApp } from './support/test-app';
import { browserLogin } from './support/browser-login';

const ASSETS: Record<string, RegExp> = {
  'app.css': /^text\/css; charset=utf-8$/,
  'icon.svg': /^image\/svg\+xml/,
  'session-monitor.js': /^text\/javascript; charset=utf-8$/,
  'profile.js': /^text\/javascript; charset=utf-8$/,
};
const SCRIPT_BUDGET = 200 * 1024;

/** A raw request, so paths such as `/static/../x` reach the server exactly as written. */
function rawGet(t: TestApp, path: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('static assets (GET /static/:file)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1');
  });
  after(() => t.close());

  it('serves each allow-listed file with its content type, an ETag and revalidation caching', async () => {
    for (const [name, type] of Object.entries(ASSETS)) {
      const res = await t.http().get(`/static/${name}`).expect(200);
      assert.match(res.headers['content-type'], type, name);
      assert.equal(res.headers['cache-control'], 'public, no-cache', name);
      assert.match(res.headers.etag, /^"[A-Za-z0-9_-]{22}"$/, name);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', name);
      assert.ok(Number(res.headers['content-length']) > 100, `${name} has content`);
    }
  });

  it('answers 304 to a matching If-None-Match, and HEAD without a body', async () => {
    const first = await t.http().get('/static/app.css').expect(200);
    const again = await t.http().get('/static/app.css').set('If-None-Match', first.headers.etag).expect(304);
    assert.equal(again.text, '');
    const head = await t.http().head('/static/profile.js').expect(200);
    assert.ok(!head.text);
    assert.match(head.headers['content-type'], /^text\/javascript/);
  });

  it('keeps every page script under 200 KB and strips the source-map pointer', async () => {
    let total = 0;
    for (const name of ['session-monitor.js', 'profile.js']) {
      const res = await t.http().get(`/static/${name}`).expect(200);
      total += Buffer.byteLength(res.text);
      assert.doesNotMatch(res.text, /sourceMappingURL/);
      assert.doesNotMatch(res.text, /\brequire\(|\bexports\./, `${name} is a plain browser script`);
    }
    assert.ok(total < SCRIPT_BUDGET, `profile page scripts: ${total} bytes`);
  });

  it('answers 404 to any other name: unknown files, source maps, sources, traversal attempts', async () => {
    for (const path of [
      '/static/nope.js',
      '/static/profile.js.map',
      '/static/profile.ts',
      '/static/APP.CSS',
      '/static/..%2Fpackage.json',
      '/static/%2e%2e%2f%2e%2e%2fpackage.json',
      '/static/..%5Cpackage.json',
      '/static/assets%2Fprofile.js',
      '/static/',
    ]) {
      const res = await t.http().get(path);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.body, { detail: 'Not found.' }, path);
    }
    for (const path of ['/static/../package.json', '/static/./../src/main.ts', '/static/x/../../package.json']) {
      const res = await rawGet(t, path);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.body, /automation-service|bootstrap/, path);
    }
  });

  it('pages link only same-origin files: no inline script or style under the strict CSP', async () => {
    const { agent } = await browserLogin(t, 'alice', 'Alice-pass-1');
    const pages = [await t.http().get('/api/login/').expect(200), await agent.get('/accounts/profile/').expect(200)];
    for (const page of pages) {
      assert.equal(
        page.headers['content-security-policy']?.split(';').filter((d: string) => /^(default|script|style)-src/.test(d)).join(';'),
        "default-src 'self';script-src 'self';style-src 'self'",
      );
      assert.doesNotMatch(page.text, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline <script>');
      assert.doesNotMatch(page.text, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or event handler');
      assert.doesNotMatch(page.text, /https?:\/\//, 'no external URL');
      for (const [, src] of page.text.matchAll(/(?:src|href)="(\/static\/[^"]+)"/g)) {
        await t.http().get(src).expect(200);
      }
    }
  });
});
