import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer, get, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { ApiRequest, apiResponseClass, sendHeldEndsOn } from './api-response';
import { atTurnEnd, runHeldNow } from './turn-end-flush';

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

describe('ApiResponse: answers ended in one turn go to their sockets at its end', { timeout: 10_000 }, () => {
  type Handler = (req: IncomingMessage, res: ServerResponse) => void;
  let server: Server;
  let port = 0;
  let handle: Handler = () => undefined;
  const sockets = new Set<Socket>();
  before(async () => {
    server = createServer({ IncomingMessage: ApiRequest, ServerResponse: apiResponseClass(SETS) as unknown as typeof ServerResponse }, (req, res) => handle(req, res));
    // As Fastify's server is (fastify.js: its clientError handler writes the error answer, then destroys), then setupApp.
    server.on('clientError', (err: Error, socket: Socket) => {
      if (socket.writable) socket.write('HTTP/1.1 400 Bad Request\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}');
      socket.destroy(err);
    });
    sendHeldEndsOn(server);
    server.on('connection', (socket: Socket) => sockets.add(socket.on('close', () => sockets.delete(socket))));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  // A test that fails leaves no connection behind to hold the close (a stream its client left, say).
  after(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    for (const socket of sockets) socket.destroy();
  }));

  /**
   * Raw requests on one connection (pipelined when several): what came back once the server closed it.
   * `halfClose`: the client ends its side with the last request (request and FIN together, as `nc -N` does).
   */
  const exchange = (requests: string[], halfClose = false) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: halfClose }, () => (halfClose ? socket.end(requests.join('')) : socket.write(requests.join(''))));
      let text = '';
      socket.setEncoding('latin1').on('data', (d: string) => (text += d)).on('end', () => resolve(text)).on('error', reject);
    });
  const request = (path: string, close = false) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
  const statuses = (text: string) => text.split('HTTP/1.1 ').slice(1).map((answer) => answer.slice(0, 3));
  /** Each answer's body (its chunks joined when it was sent chunked). */
  const bodies = (text: string) =>
    text.split('HTTP/1.1 ').slice(1).map((answer) => {
      const [head, body] = [answer.slice(0, answer.indexOf('\r\n\r\n')), answer.slice(answer.indexOf('\r\n\r\n') + 4)];
      if (!/transfer-encoding: chunked/i.test(head)) return body;
      let joined = '';
      for (let at = 0, size = parseInt(body, 16); size > 0; size = parseInt(body.slice(at), 16)) {
        const start = body.indexOf('\r\n', at) + 2;
        joined += body.slice(start, start + size);
        at = start + size + 2;
      }
      return joined;
    });

  it('reports the end at once, and Node.js applies it ("finish", the bytes) only at the end of the turn', async () => {
    const seen: Record<string, unknown> = {};
    handle = (_req, res) => {
      let finished = false;
      res.on('finish', () => (finished = true));
      // Queued before the end: without the hold, "finish" (a nextTick after the write) would come first.
      setImmediate(() => (seen.finishedBeforeTurnEnd = finished));
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end('{"a":1}');
      seen.endedAtOnce = res.writableEnded;
      seen.nodeFinishedAtOnce = res.finished;
    };
    const text = await exchange([request('/')]);
    assert.deepEqual(bodies(text), ['{"a":1}']);
    assert.deepEqual(seen, { endedAtOnce: true, nodeFinishedAtOnce: false, finishedBeforeTurnEnd: false });
  });

  it('keeps pipelined answers in order, each with its own body', async () => {
    handle = (req, res) => {
      const last = req.url === '/3';
      res.writeHead(200, { 'content-type': 'text/plain', ...(last ? { connection: 'close' } : {}) }).end(`answer ${req.url}`);
    };
    assert.deepEqual(bodies(await exchange([request('/1'), request('/2'), request('/3', true)])), ['answer /1', 'answer /2', 'answer /3']);
  });

  it('answers a second end and a write after the end as Node.js does, without sending their bytes', async () => {
    const errors: string[] = [];
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' }).end('first');
      res.end('second', (err?: Error | null) => errors.push(`end: ${(err as NodeJS.ErrnoException | undefined)?.code ?? 'none'}`));
      res.on('error', (err: NodeJS.ErrnoException) => errors.push(`error event: ${err.code}`));
      res.write('third', (err?: Error | null) => errors.push(`write: ${(err as NodeJS.ErrnoException | undefined)?.code ?? 'none'}`));
    };
    assert.deepEqual(bodies(await exchange([request('/')])), ['first']);
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(errors.includes('write: ERR_STREAM_WRITE_AFTER_END'), errors.join(', '));
    assert.ok(errors.some((e) => e.startsWith('end: ERR_STREAM_')), errors.join(', '));
  });

  it('ends at once an answer whose head end() writes itself, and throws at once for a body end() refuses', async () => {
    const seen: Record<string, unknown> = {};
    handle = (_req, res) => {
      assert.throws(() => res.writeHead(200, { connection: 'close' }).end(42 as never), { code: 'ERR_INVALID_ARG_TYPE' });
      res.end('{}');
    };
    assert.deepEqual(bodies(await exchange([request('/')])), ['{}']);
    handle = (_req, res) => {
      res.setHeader('connection', 'close');
      res.end('implicit');
      seen.nodeFinishedAtOnce = res.finished;
    };
    assert.deepEqual(bodies(await exchange([request('/')])), ['implicit']);
    assert.deepEqual(seen, { nodeFinishedAtOnce: true });
  });
  // Where Node.js wrote an ended answer before the socket went, the held answer goes first (review of bdf5bdc).

  // Second review of the held end (5a06183): each of these failed before sendHeldEndsOn.
  it('answers a client that ends its side with its requests, one or pipelined, the answers ended in a check phase', async () => {
    handle = (req, res) => setImmediate(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(`late ${req.url}`));
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(bodies(await exchange([request('/1')], true)), ['late /1']);
      assert.deepEqual(bodies(await exchange([request('/1'), request('/2'), request('/3')], true)), ['late /1', 'late /2', 'late /3']);
    }
  });

  // Fourth review: the socket ended for the one still being made must not cut the ended ones ahead of it.
  it('sends the answers ended ahead of one still being made when the client ends its side, then closes', async () => {
    handle = (req, res) => {
      const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`answer ${req.url}`);
      if (req.url === '/now') answer();
      else if (req.url === '/check') setImmediate(answer);
      else setTimeout(answer, 30);
    };
    // As stock Node.js: what was ended before the client's FIN was read goes; the slow one is lost with the socket.
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(bodies(await exchange([request('/check'), request('/check'), request('/slow')], true)), ['answer /check', 'answer /check']);
      assert.deepEqual(bodies(await exchange([request('/now'), request('/check'), request('/slow')], true)), ['answer /now', 'answer /check']);
    }
  });

  // Third review: with httpAllowHalfOpen alone, a stream whose client had gone stayed open until a write failed.
  it('closes, as Node.js does, the socket of a client that ends its side while an answer is still being made', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    handle = (_req, res) => {
      res.on('close', closed);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n');
    };
    await new Promise<void>((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1' }, () => socket.write(request('/events')));
      // The client goes as an EventSource does when its page closes: FIN once the stream has begun.
      socket.once('data', () => socket.end()).on('close', () => resolve()).on('error', reject);
    });
    await serverSawClose;
  });

  it('writes the held answers of a connection before the error answer to a malformed request read after them', async () => {
    handle = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('well formed');
    const text = await exchange([request('/'), 'NOT HTTP AT ALL\r\n\r\n']);
    assert.deepEqual(statuses(text), ['200', '400']);
    assert.deepEqual(bodies(text)[0], 'well formed');
    // Stock Node.js sends the same for two pipelined requests before the malformed one: the second answer, queued
    // behind the first until its "finish", goes with the destroyed connection (probed on Node.js 22).
    assert.deepEqual(statuses(await exchange([request('/'), request('/'), 'NOT HTTP AT ALL\r\n\r\n'])), ['200', '400']);
  });

  it('lets closeIdleConnections (server.close, the SIGTERM drain) close a connection whose answer was ended this turn', async () => {
    const seen: Record<string, unknown> = {};
    // Ended in a check phase, after the request was read in full: the connection is idle but for the held end.
    handle = (req, res) =>
      setImmediate(() => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('then closed');
        server.closeIdleConnections();
        seen.destroyed = req.socket.destroyed;
      });
    assert.deepEqual(bodies(await exchange([request('/')])), ['then closed']);
    assert.deepEqual(seen, { destroyed: true });
  });

  it('throws at the caller, as Node.js does, for a body on an answer that has none and for an unknown encoding', async () => {
    const thrown: string[] = [];
    const strict = createServer({ ServerResponse: apiResponseClass(SETS) as unknown as typeof ServerResponse, rejectNonStandardBodyWrites: true }, (req, res) => {
      try {
        res.writeHead(req.url === '/204' ? 204 : 200, { connection: 'close' }).end(req.url === '/encoding' ? 'xx' : 'body', (req.url === '/encoding' ? 'nope' : undefined) as never);
        thrown.push('none');
      } catch (err) {
        thrown.push((err as NodeJS.ErrnoException).code ?? 'no code');
        res.destroy();
      }
    });
    await new Promise<void>((resolve) => strict.listen(0, '127.0.0.1', resolve));
    try {
      for (const head of ['HEAD / HTTP/1.1', 'GET /204 HTTP/1.1', 'GET /encoding HTTP/1.1']) {
        await new Promise<void>((resolve, reject) => {
          const socket = connect({ port: (strict.address() as AddressInfo).port, host: '127.0.0.1' }, () => socket.write(`${head}\r\nHost: x\r\n\r\n`));
          socket.resume().on('close', () => resolve()).on('error', reject);
        });
      }
    } finally {
      await new Promise<void>((resolve) => strict.close(() => resolve()));
    }
    assert.deepEqual(thrown, ['ERR_HTTP_BODY_NOT_ALLOWED', 'ERR_HTTP_BODY_NOT_ALLOWED', 'ERR_UNKNOWN_ENCODING']);
  });

  it('sends an answer ended, then destroyed (the response or its socket), before the socket goes', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('then destroyed');
      res.destroy();
    };
    assert.deepEqual(bodies(await exchange([request('/')])), ['then destroyed']);
    handle = (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('socket destroyed');
      req.socket.destroy();
    };
    assert.deepEqual(bodies(await exchange([request('/')])), ['socket destroyed']);
  });

  it('throws at the caller for a write Node.js refuses after a held end, and for a length it must check', async () => {
    const thrown: string[] = [];
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' }).end('ended');
      for (const chunk of [42, null, undefined, {}]) {
        try {
          res.write(chunk as never);
        } catch (err) {
          thrown.push((err as NodeJS.ErrnoException).code ?? 'no code');
        }
      }
    };
    assert.deepEqual(bodies(await exchange([request('/')])), ['ended']);
    assert.deepEqual(thrown, ['ERR_INVALID_ARG_TYPE', 'ERR_STREAM_NULL_VALUES', 'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_TYPE']);
    handle = (_req, res) => {
      res.strictContentLength = true;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2', connection: 'close' });
      assert.throws(() => res.end('three'), { code: 'ERR_HTTP_CONTENT_LENGTH_MISMATCH' });
      res.end('ok');
    };
    assert.deepEqual(bodies(await exchange([request('/')])), ['ok']);
  });
});

describe('atTurnEnd', { timeout: 10_000 }, () => {
  it('runHeldNow runs what is held at once, in order, and the turn end finds nothing left', async () => {
    const order: string[] = [];
    atTurnEnd(() => order.push('a'), () => order.push('a failed'));
    atTurnEnd(() => order.push('b'), () => order.push('b failed'));
    runHeldNow();
    assert.deepEqual(order, ['a', 'b']);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['a', 'b']);
  });

  it('runs the held actions in order at the end of the turn; one that throws is reported and the rest still run', async () => {
    const order: string[] = [];
    atTurnEnd(() => order.push('a'), () => order.push('a failed'));
    atTurnEnd(() => {
      throw new Error('b');
    }, (err) => order.push(`b failed: ${(err as Error).message}`));
    atTurnEnd(() => order.push('c'), () => order.push('c failed'));
    assert.deepEqual(order, [], 'nothing runs before the turn ends');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['a', 'b failed: b', 'c']);
  });

  it('runHeldNow from inside a held action goes on with that run first, then what the action held', async () => {
    const order: string[] = [];
    const failed = (name: string) => () => order.push(`${name} failed`);
    atTurnEnd(() => {
      order.push('a');
      atTurnEnd(() => order.push('held by a'), failed('held by a'));
      runHeldNow();
    }, failed('a'));
    atTurnEnd(() => order.push('b'), failed('b'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['a', 'b', 'held by a']);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['a', 'b', 'held by a']);
  });

  it('runs what an action holds after a nested runHeldNow in the next turn, one immediate for each turn', async () => {
    const order: string[] = [];
    const nothing = () => undefined;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    atTurnEnd(() => {
      order.push('a');
      runHeldNow();
      atTurnEnd(() => order.push('held by a'), nothing);
    }, nothing);
    atTurnEnd(() => order.push('b'), nothing);
    await turn();
    assert.deepEqual(order, ['a', 'b']);
    await turn();
    assert.deepEqual(order, ['a', 'b', 'held by a']);
    // A chain that holds its next link from each: one link a turn, never a second immediate that runs two.
    const links: number[] = [];
    const link = (n: number) => () => {
      links.push(n);
      if (n < 4) atTurnEnd(link(n + 1), nothing);
    };
    atTurnEnd(link(1), nothing);
    for (let n = 1; n <= 4; n++) {
      await turn();
      assert.deepEqual(links, [1, 2, 3, 4].slice(0, n));
    }
  });

  it('runs what a held action holds in a later turn, never drops it', async () => {
    const order: string[] = [];
    atTurnEnd(() => {
      order.push('outer');
      atTurnEnd(() => order.push('inner'), () => order.push('inner failed'));
    }, () => order.push('outer failed'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['outer']);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['outer', 'inner']);
  });
});
