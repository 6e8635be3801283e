import request from 'supertest';
import type { TestApp } from './test-app';

export type Agent = ReturnType<typeof request.agent>;

/** The value of a cookie in a Set-Cookie list. */
export function cookieValue(setCookie: string[] | string | undefined, name: string): string | undefined {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const line = list.find((c) => c.startsWith(`${name}=`));
  return line ? decodeURIComponent(line.slice(name.length + 1).split(';')[0]) : undefined;
}

export interface LoggedIn {
  agent: Agent;
  csrf: string;
  session: string;
  response: request.Response;
}

/**
 * What a browser does (seed §5.1): GET /api/login/ for the csrftoken cookie, then POST the form with
 * X-CSRFToken and a Referer on the login page. Answers the POST's response whatever its status (a refusal
 * re-renders the form). `headers` lets a test pose as another client address.
 */
export async function submitLoginForm(
  t: TestApp,
  username: string,
  password: string,
  opts: { agent?: Agent; headers?: Record<string, string>; next?: string; fields?: Record<string, string> } = {},
): Promise<{ agent: Agent; response: request.Response }> {
  const agent = opts.agent ?? t.agent();
  const page = await agent.get('/api/login/').set(opts.headers ?? {}).expect(200);
  const csrf = cookieValue(page.headers['set-cookie'], 'csrftoken') ?? (await currentCsrf(agent, t));
  const form: Record<string, string> = { username, password, ...opts.fields };
  if (opts.next) form.next = opts.next;
  const response = await agent
    .post('/api/login/')
    .set(opts.headers ?? {})
    .set('X-CSRFToken', csrf)
    .set('Referer', `${t.url}/api/login/`)
    .type('form')
    .send(form);
  return { agent, response };
}

/** A successful form login (302), with the session and CSRF cookies it set. */
export async function browserLogin(
  t: TestApp,
  username: string,
  password: string,
  opts: { agent?: Agent; headers?: Record<string, string>; next?: string; fields?: Record<string, string> } = {},
): Promise<LoggedIn> {
  const { agent, response } = await submitLoginForm(t, username, password, opts);
  if (response.status !== 302) throw new Error(`login failed: ${response.status} ${response.text.slice(0, 200)}`);
  return {
    agent,
    csrf: cookieValue(response.headers['set-cookie'], 'csrftoken')!,
    session: cookieValue(response.headers['set-cookie'], t.config.sessionCookieName)!,
    response,
  };
}

/** The csrftoken an agent already holds (the login page only sets one when there is none). */
async function currentCsrf(agent: Agent, t: TestApp): Promise<string> {
  const jar = (agent as unknown as { jar: { getCookie(name: string, access: unknown): { value: string } | undefined } }).jar;
  const { CookieAccessInfo } = require('cookiejar') as { CookieAccessInfo: new (...a: unknown[]) => unknown };
  const cookie = jar.getCookie('csrftoken', new CookieAccessInfo('127.0.0.1', '/', false, true));
  if (!cookie) throw new Error(`no csrftoken cookie for ${t.url}`);
  return cookie.value;
}
