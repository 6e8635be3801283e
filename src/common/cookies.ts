import { parseCookie, parseSetCookie, stringifySetCookie, type SerializeOptions } from 'cookie';
import type { FastifyInstance, FastifyReply } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's cookies, parsed from its Cookie header when read (`cookies.ts`). */
    readonly cookies: Record<string, string | undefined>;
  }
}

/**
 * Cookies with jshttp's `cookie` library (the one @fastify/cookie wraps), without a hook on every request.
 * The plugin parsed the Cookie header of every request in an `onRequest` hook and wrote its cookies in an
 * `onSend` hook, both run for a ping or a bearer call that has none: 6 % of a ping's instructions with
 * callgrind (issue 43, docs/decisions.md). Here `request.cookies` parses the header when a route reads it,
 * and a cookie is written into the answer's Set-Cookie header when it is set.
 */
export function registerCookies(fastify: FastifyInstance): void {
  fastify.decorateRequest('cookies', {
    getter(this: { headers: { cookie?: string } }) {
      const header = this.headers.cookie;
      return header ? parseCookie(header) : {};
    },
  });
}

/** What the plugin's `setCookie` took: SameSite=Lax unless told otherwise. */
export type CookieOptions = SerializeOptions;

/**
 * Writes the cookie into the answer's Set-Cookie at once. A cookie of the same name, domain and path already in
 * this answer is replaced, as the plugin did (it kept them in a Map until onSend): read from the header itself.
 */
export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions = {}): void {
  const line = stringifySetCookie(name, value, { sameSite: 'lax', ...options });
  const header = reply.getHeader('set-cookie');
  const lines = header === undefined ? [] : Array.isArray(header) ? header.map(String) : [String(header)];
  const path = options.path || '/';
  const kept = lines.filter((l) => {
    const earlier = parseSetCookie(l);
    return earlier.name !== name || earlier.domain !== options.domain || (earlier.path || '/') !== path;
  });
  reply.removeHeader('set-cookie');
  reply.header('set-cookie', [...kept, line]);
}

/** Expires the cookie now (an epoch Expires and Max-Age=0), Path=/ unless told otherwise. */
export function clearCookie(reply: FastifyReply, name: string, options: CookieOptions = {}): void {
  setCookie(reply, name, '', { path: '/', ...options, expires: new Date(0), maxAge: 0 });
}
