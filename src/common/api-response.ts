import { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, OutgoingMessage, Server, ServerResponse, validateHeaderName, validateHeaderValue } from 'node:http';
import type { Socket } from 'node:net';
import { atTurnEnd, runHeldNow } from './turn-end-flush';

/** The request as the server makes it: when it started (X-API-Total-Time) and its id (Fastify's `genReqId`). */
export class ApiRequest extends IncomingMessage {
  readonly startedAt = performance.now();
  requestId = '';
}

/** Headers as [name, value], in the order they are sent. */
export type HeaderPairs = readonly (readonly [name: string, value: string])[];

/** What a response adds to the head a route wrote, by what it is (SPEC §1; see `responseHeaders`). */
export interface HeaderSets {
  /** JSON and every answer that is not a page. */
  api: HeaderPairs;
  /** A page (text/html). */
  document: HeaderPairs;
  /** The OpenAPI page (its own Content-Security-Policy). */
  docs: HeaderPairs;
  /** Added to answers under the API paths. */
  apiPathOnly: HeaderPairs;
  isApiPath(path: string): boolean;
  isDocsPath(path: string): boolean;
  /** A new request id, for an answer made before Fastify gave the request one. */
  newRequestId(): string;
}

type Kind = 'api' | 'document' | 'docs';

/**
 * The server's response class (`http.createServer({ ServerResponse })`): the headers every answer carries are
 * added when the head is written, whoever writes it (a route, the error handler, a stream), and a header the
 * route set itself wins. They are the same on every answer but for the request id and X-API-Total-Time, so
 * they are checked once, at start-up, and appended to the head Node.js built as one block of text: setting
 * them per request (an onRequest hook wrapping writeHead, Node validating ~15 headers) was the largest part
 * of what the pipeline added to a ping (issue 43, docs/decisions.md "What every request pays, measured").
 * `_header` is the head Node.js built in writeHead and sends with the first body bytes; the pipeline test
 * pins every header on JSON answers, errors, pages and redirects, so a Node.js that changed it fails there.
 * An answer's `end()` is held to the end of its turn of the event loop, so the answers of one turn reach
 * their sockets together (common/turn-end-flush.ts; docs/decisions.md, issue 43's fifth part); its server must
 * call `sendHeldEndsOn` once, so that a held end goes out wherever Node.js sent an ended answer.
 */
export function apiResponseClass(sets: HeaderSets): typeof ServerResponse<ApiRequest> {
  const names = new Set([...sets.api, ...sets.document, ...sets.docs, ...sets.apiPathOnly, ['X-API-Request-Id', ''], ['X-API-Total-Time', '']].map(([n]) => n.toLowerCase()));
  for (const [name, value] of [...sets.api, ...sets.document, ...sets.docs, ...sets.apiPathOnly]) {
    validateHeaderName(name);
    validateHeaderValue(name, value);
  }
  const text = (pairs: HeaderPairs) => pairs.map(([n, v]) => `${n}: ${v}\r\n`).join('');
  const blocks: Record<Kind, [other: string, apiPath: string]> = {
    api: [text(sets.api), text([...sets.api, ...sets.apiPathOnly])],
    document: [text(sets.document), text([...sets.document, ...sets.apiPathOnly])],
    docs: [text(sets.docs), text([...sets.docs, ...sets.apiPathOnly])],
  };

  class ApiResponse extends ServerResponse<ApiRequest> {
    declare _header: string | null;
    declare _hasBody: boolean;
    /** `end()` was called and waits for the end of the turn (`writableEnded` says so already). */
    endHeld = false;

    override writeHead(statusCode: number, reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
      if (this.headersSent) return super.writeHead(statusCode, reason as string, headers);
      const given = typeof reason === 'object' ? reason : headers;
      const path = pathOf(this.req.url ?? '');
      const kind = kindOf(this, given, path);
      const taken = takenNames(this, given, names);
      const id = this.req.requestId || sets.newRequestId();
      super.writeHead(statusCode, reason as string, headers);
      const head = this._header;
      if (typeof head !== 'string' || !head.endsWith('\r\n\r\n')) return this;
      const apiPath = sets.isApiPath(path);
      const block = taken ? filtered(kind, apiPath, taken) : blocks[kind][apiPath ? 1 : 0];
      const total = `${((performance.now() - this.req.startedAt) / 1000).toFixed(3)}s`;
      const idLine = taken?.has('x-api-request-id') ? '' : `X-API-Request-Id: ${id}\r\n`;
      const totalLine = taken?.has('x-api-total-time') ? '' : `X-API-Total-Time: ${total}\r\n`;
      this._header = `${head.slice(0, -2)}${idLine}${block}${totalLine}\r\n`;
      return this;
    }

    /**
     * An answer whose head is written ends at the end of this turn of the event loop, with the others ended in
     * it (common/turn-end-flush.ts). What comes after a held end (another end, a write) waits behind it, so
     * Node.js answers it as it would have: ERR_STREAM_ALREADY_FINISHED, ERR_STREAM_WRITE_AFTER_END. What
     * Node.js may refuse is not held, so that it throws at the caller: a body of a type it does not take, an
     * encoding it does not know, a body on an answer that has none (HEAD, 204, 304 with
     * `rejectNonStandardBodyWrites`), a length it must check (`strictContentLength`).
     */
    override end(chunk?: unknown, encoding?: unknown, callback?: unknown): this {
      if (!this.endHeld && !(this.headersSent && endable(chunk, encoding) && (this._hasBody || !chunk) && !this.strictContentLength)) return super.end(chunk as never, encoding as never, callback as never);
      this.endHeld = true;
      atTurnEnd(() => super.end(chunk as never, encoding as never, callback as never), (err) => this.destroy(err as Error));
      return this;
    }

    override write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
      // Node.js checks the chunk's type before anything else: one it refuses throws here, held end or not.
      if (!this.endHeld || !(typeof chunk === 'string' || chunk instanceof Uint8Array)) return super.write(chunk as never, encoding as never, callback as never);
      atTurnEnd(() => super.write(chunk as never, encoding as never, callback as never), (err) => this.destroy(err as Error));
      return false;
    }

    /** Ended, then destroyed: the answer is sent first, as Node.js sent it (before `destroyed` stops writes). */
    override destroy(error?: Error): this {
      if (this.endHeld && !this.finished) runHeldNow();
      return super.destroy(error);
    }
  }
  // Public state follows the calls (Fastify's `reply.sent` reads `writableEnded`); Node.js's own steps read `finished`.
  const nodeEnded = Object.getOwnPropertyDescriptor(OutgoingMessage.prototype, 'writableEnded')!.get!;
  Object.defineProperty(ApiResponse.prototype, 'writableEnded', {
    get(this: ApiResponse) {
      return this.endHeld || nodeEnded.call(this);
    },
  });
  return ApiResponse;

  function kindOf(res: ServerResponse, given: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined, path: string): Kind {
    let type: unknown = res.getHeader('content-type');
    if (given && !Array.isArray(given)) type = given['content-type'] ?? given['Content-Type'] ?? type;
    if (typeof type !== 'string' || !type.startsWith('text/html')) return 'api';
    return sets.isDocsPath(path) ? 'docs' : 'document';
  }

  /** The rare answer that set one of these headers itself keeps its own: the block is made without them. */
  function filtered(kind: Kind, apiPath: boolean, taken: Set<string>): string {
    const pairs = [...sets[kind], ...(apiPath ? sets.apiPathOnly : [])];
    return text(pairs.filter(([n]) => !taken.has(n.toLowerCase())));
  }
}

/** A connection, with the answer Node.js is writing to it (the next queued one is handed it on that one's "finish"). */
type AnswerSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * What a server whose answers are ApiResponses must do, once, so that a held end is sent wherever Node.js sent an
 * ended answer (setupApp, on Fastify's server; three reviews of the held end). Plain HTTP only: on a TLS server
 * the "connection" socket is the TCP one under the TLSSocket the answers are written to. Each connection gets:
 * - a listener on the client's end of stream (FIN; `nc -N`, `shutdown(SHUT_WR)`), after Node.js's, which runs what
 *   is held. Node.js's `httpAllowHalfOpen` is set, so that Node.js does not end the socket at once (by default
 *   `socketOnEnd` does, and only the first of pipelined held answers went out: the rest wait for the one before
 *   to `finish`, a nextTick); it marks the last answer queued and closes after it. While an answer of the
 *   connection is not yet ended (a stream, a handler still working) the listener ends the socket itself, as
 *   Node.js does by default (the client may be gone: a browser that closes an EventSource sends FIN, and a
 *   half-open socket would keep its stream open), once the answers ended ahead of it are written, which stock
 *   Node.js had written before it read the FIN. After Node.js's listener, so that a partial request cut by the
 *   FIN still gets the server's 400 first, as it did;
 * - its own `destroy` (`closeAllConnections()`, a route's `req.socket.destroy()` right after `end()`), which runs
 *   what is held first.
 * And the server: a malformed request read after a held end gets its held answers sent before the server's
 * error answer (Fastify's clientError handler writes its 400/408/431 to the socket, then destroys it; Fastify's
 * server always has that handler, so this listener does not take Node.js's default answer away); and
 * `closeIdleConnections()` (`server.close()`, SIGTERM's drain), which skips a connection whose answer is not
 * `finished`, runs what is held first, so that a connection whose answer was ended this turn is idle, as it was.
 */
export function sendHeldEndsOn(server: Server): void {
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // Registered after Node.js's own connection listener, so the socket's "end" listener follows socketOnEnd.
  server.on('connection', (socket: Socket) => {
    socket.on('end', clientEnded);
    const destroy = socket.destroy;
    socket.destroy = function (this: Socket, ...args: Parameters<Socket['destroy']>) {
      runHeldNow();
      return destroy.apply(this, args);
    };
  });
  server.prependListener('clientError', runHeldNow);
  const closeIdle = server.closeIdleConnections;
  server.closeIdleConnections = function (this: Server) {
    runHeldNow();
    closeIdle.call(this);
  };
}

function clientEnded(this: AnswerSocket): void {
  runHeldNow();
  endOnceEndedAreWritten(this);
}

/**
 * Ends the socket once the answer it is writing is not an ended one, or there is none left: each ended answer
 * waits for the one before to finish (Node.js's own "finish" listener, added first, hands the socket to the next,
 * which writes). When every answer was ended, the last one's `_last` (socketOnEnd) has closed the socket already.
 */
function endOnceEndedAreWritten(socket: AnswerSocket): void {
  if (socket.destroyed || !socket.writable) return;
  const current = socket._httpMessage;
  if (!current?.writableEnded) return void socket.end();
  current.once('finish', () => endOnceEndedAreWritten(socket));
}

/** A body and encoding `end()` takes without throwing (or its callback in their place): only those wait. */
function endable(chunk: unknown, encoding: unknown): boolean {
  const body = chunk === undefined || chunk === null || typeof chunk === 'string' || typeof chunk === 'function' || chunk instanceof Uint8Array;
  // As the socket's write checks it (Writable: a falsy encoding is the default one).
  return body && (!encoding || typeof encoding === 'function' || encoding === 'buffer' || (typeof encoding === 'string' && Buffer.isEncoding(encoding)));
}

/** The names among `ours` the route set itself (in writeHead's headers or with setHeader), or null if none. */
function takenNames(res: ServerResponse, given: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined, ours: Set<string>): Set<string> | null {
  let taken: Set<string> | null = null;
  const take = (name: string) => {
    const lower = name.toLowerCase();
    if (ours.has(lower)) (taken ??= new Set()).add(lower);
  };
  if (Array.isArray(given)) {
    // [name, value, …] or [[name, value], …], as Node.js takes them.
    if (Array.isArray(given[0])) for (const pair of given as unknown as unknown[][]) take(String(pair[0]));
    else for (let i = 0; i < given.length; i += 2) take(String(given[i]));
  } else if (given) {
    for (const name in given) take(name);
  }
  for (const name of res.getHeaderNames()) take(name);
  return taken;
}

/** A request target's path, without its query. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
