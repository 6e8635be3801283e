import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer, get, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiRequest, apiResponseClass } from './api-response';

/** A real server on the response class, each path answering the way one kind of writer does. */
const SETS = {
  api: [['X-Frame-Options', 'DENY'], ['Vary', 'Cookie']] as const,
  document: [['X-Frame-Options', 'DENY'], ['Content-Security-Policy', "default-src 'self'"]] as const,
  docs: [['Content-Security-Policy', "default-src 'self' 'unsafe-inline'"]] as const,
  apiPathOnly: [['Cache-Control', 'no-store, private']] as const,
  isApiPath: (path: string) => path.startsWith('/api/'),
  isDocsPath: (path: string) => path.startsWith('/api/swagger'),
  newRequestId: () => 'f'.repeat(32),
};

const ANSWERS: Record<string, (res: ServerResponse) => void> = {
  '/api/object': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
  '/api/own-cache-object': (res) => res.writeHead(200, { 'content-type': 'application/json', 'Cache-Control': 'no-store' }).end('{}'),
  '/api/own-cache-set': (res) => {
    res.setHeader('Cache-Control', 'public, no-cache');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  },
  '/api/own-vary-array': (res) => res.writeHead(200, ['Content-Type', 'application/json', 'vary', 'Origin']).end('{}'),
  '/api/implicit': (res) => res.end('{}'),
  '/api/page': (res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<p>'),
  '/api/swagger/': (res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>'),
  '/static/file': (res) => res.writeHead(200, { 'content-type': 'text/css' }).end('p{}'),
};

describe('ApiResponse: the headers every answer carries, appended as one block', () => {
  let server: Server;
  let port = 0;
  before(async () => {
    server = createServer({ IncomingMessage: ApiRequest, ServerResponse: apiResponseClass(SETS) as unknown as typeof ServerResponse }, (req: IncomingMessage, res) => {
      if (req.headers['x-id']) (req as ApiRequest).requestId = String(req.headers['x-id']);
      ANSWERS[req.url ?? '']!(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** The answer's raw header lines, so that a header sent twice shows twice. */
  const fetchHead = (path: string, headers: Record<string, string> = {}) =>
    new Promise<string[][]>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path, headers }, (res) => {
        res.resume();
        const raw = res.rawHeaders;
        const pairs: string[][] = [];
        for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i].toLowerCase(), raw[i + 1]]);
        res.on('end', () => resolve(pairs));
      }).on('error', reject);
    });
  const values = (head: string[][], name: string) => head.filter(([n]) => n === name).map(([, v]) => v);

  it('adds the API set, the API paths’ Cache-Control, the request id and the time to a JSON answer', async () => {
    const head = await fetchHead('/api/object', { 'x-id': 'a'.repeat(32) });
    assert.deepEqual(values(head, 'x-frame-options'), ['DENY']);
    assert.deepEqual(values(head, 'vary'), ['Cookie']);
    assert.deepEqual(values(head, 'cache-control'), ['no-store, private']);
    assert.deepEqual(values(head, 'x-api-request-id'), ['a'.repeat(32)]);
    assert.match(values(head, 'x-api-total-time')[0], /^\d+\.\d{3}s$/);
    assert.deepEqual(values(head, 'content-security-policy'), []);
  });

  it('lets a header the writer set win, whether passed to writeHead as an object or an array, or set before', async () => {
    assert.deepEqual(values(await fetchHead('/api/own-cache-object'), 'cache-control'), ['no-store']);
    assert.deepEqual(values(await fetchHead('/api/own-cache-set'), 'cache-control'), ['public, no-cache']);
    const array = await fetchHead('/api/own-vary-array');
    assert.deepEqual(values(array, 'vary'), ['Origin']);
    assert.deepEqual(values(array, 'x-frame-options'), ['DENY'], 'the rest of the block stays');
  });

  it('heads written implicitly get the block too, and an answer with no id gets a new one', async () => {
    const head = await fetchHead('/api/implicit');
    assert.deepEqual(values(head, 'x-api-request-id'), ['f'.repeat(32)]);
    assert.deepEqual(values(head, 'vary'), ['Cookie']);
  });

  it('gives pages the document set, the OpenAPI page its own, and no Cache-Control outside the API paths', async () => {
    const page = await fetchHead('/api/page');
    assert.deepEqual(values(page, 'content-security-policy'), ["default-src 'self'"]);
    assert.deepEqual(values(page, 'vary'), []);
    assert.deepEqual(values(await fetchHead('/api/swagger/'), 'content-security-policy'), ["default-src 'self' 'unsafe-inline'"]);
    const asset = await fetchHead('/static/file');
    assert.deepEqual(values(asset, 'cache-control'), []);
    assert.deepEqual(values(asset, 'x-frame-options'), ['DENY']);
  });

  it('refuses at start-up a header that could not be sent', () => {
    assert.throws(() => apiResponseClass({ ...SETS, api: [['X-Bad', 'a\r\nInjected: 1']] }), /Invalid character/);
  });
});
