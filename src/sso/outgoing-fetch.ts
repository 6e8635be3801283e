import http from 'node:http';
import https from 'node:https';
import { trustedCas } from '../common/trusted-cas';

// The CA list is shared with the LDAP directories (each adds its CA_CERT): it lives in common/.
export { trustedCas };

export interface FetchOptions {
  method?: string;
  headers?: Record<string, string> | Headers;
  body?: unknown;
  signal?: AbortSignal | null;
}

const MAX_BODY = 1024 * 1024;

/**
 * A fetch for openid-client (its `customFetch` hook): node:https with the CA list above, no redirects
 * followed (openid-client asks for `redirect: 'manual'`), bodies capped at 1 MiB.
 */
export function createOutgoingFetch(ca: string[]) {
  const agent = new https.Agent({ ca, keepAlive: true });
  return (url: string, options: FetchOptions = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const headers: Record<string, string> = {};
      if (options.headers instanceof Headers) options.headers.forEach((value, name) => (headers[name] = value));
      else Object.assign(headers, options.headers ?? {});
      const body = toBuffer(options.body);
      if (body !== undefined) headers['content-length'] = String(body.length);
      const transport = target.protocol === 'https:' ? https : http;
      const req = transport.request(
        target,
        { method: options.method ?? 'GET', headers, agent: target.protocol === 'https:' ? agent : undefined, signal: options.signal ?? undefined },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY) {
              req.destroy(new Error('response body too large'));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, item);
            }
            const status = res.statusCode ?? 502;
            const payload = status === 204 || status === 304 ? null : Buffer.concat(chunks);
            resolve(new Response(payload, { status, statusText: res.statusMessage, headers: responseHeaders }));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

function toBuffer(body: unknown): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof URLSearchParams) return Buffer.from(String(body));
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('unsupported request body');
}
