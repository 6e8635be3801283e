import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { FastifyReply } from 'fastify';
import { clearCookie, registerCookies, setCookie } from './cookies';

/** A Fastify app with the service's cookies and one route that sets what it is given. */
async function answer(write: (reply: FastifyReply) => void, cookieHeader?: string) {
  const app = Fastify();
  registerCookies(app);
  app.get('/', (request, reply) => {
    write(reply);
    reply.send({ cookies: request.cookies });
  });
  const res = await app.inject({ url: '/', headers: cookieHeader ? { cookie: cookieHeader } : {} });
  await app.close();
  const header = res.headers['set-cookie'];
  return { lines: header === undefined ? [] : Array.isArray(header) ? header : [header], cookies: res.json().cookies };
}

describe('cookies', () => {
  it('reads the request’s cookies when asked, and none is an empty object', async () => {
    assert.deepEqual((await answer(() => undefined, 'a=1; b=%7B%22x%22%3A1%7D')).cookies, { a: '1', b: '{"x":1}' });
    assert.deepEqual((await answer(() => undefined)).cookies, {});
  });

  it('writes SameSite=Lax by default, in the library’s attribute order', async () => {
    const { lines } = await answer((r) => setCookie(r, 'csrftoken', 'abc', { path: '/', httpOnly: true, maxAge: 60 }));
    assert.deepEqual(lines, ['csrftoken=abc; Max-Age=60; Path=/; HttpOnly; SameSite=Lax']);
  });

  it('replaces a cookie of the same name, domain and path set earlier in the answer, and keeps the others', async () => {
    const { lines } = await answer((r) => {
      r.header('Set-Cookie', 'session=s; Path=/; HttpOnly');
      setCookie(r, 'a', '1');
      setCookie(r, 'a', '2', { path: '/other' });
      setCookie(r, 'a', '3', { domain: 'example.com' });
      setCookie(r, 'b', '1');
      clearCookie(r, 'a');
    });
    assert.deepEqual(lines, [
      'session=s; Path=/; HttpOnly',
      'a=2; Path=/other; SameSite=Lax',
      'a=3; Domain=example.com; SameSite=Lax',
      'b=1; SameSite=Lax',
      'a=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax',
    ]);
  });
});
