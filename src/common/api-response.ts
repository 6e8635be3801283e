import { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse, validateHeaderName, validateHeaderValue } from 'node:http';

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

  return class ApiResponse extends ServerResponse<ApiRequest> {
    declare _header: string | null;

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
  };

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
