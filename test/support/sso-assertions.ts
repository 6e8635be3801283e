import assert from 'node:assert/strict';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Browser } from './sso-browser';
import type { TestApp } from './test-app';

type Response = { status: number; headers: Record<string, string> & { 'set-cookie'?: string | string[] }; text: string };

export function setCookies(res: Response): string[] {
  const raw = res.headers['set-cookie'] as unknown;
  return Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
}

function dataSource(t: TestApp): DataSource {
  return t.app.get<DataSource>(getDataSourceToken());
}

/** Rows in user_session: a refused login must not add one. */
export async function sessionCount(t: TestApp): Promise<number> {
  const rows = await dataSource(t).query('SELECT COUNT(*) AS n FROM user_session');
  return Number(rows[0].n);
}

/** The keys in pending_state: what a login start stored (compared as sets, so a sweep between reads cannot confuse it). */
export async function pendingStateKeys(t: TestApp): Promise<Set<string>> {
  const rows = (await dataSource(t).query('SELECT state_key FROM pending_state')) as { state_key: string }[];
  return new Set(rows.map((r) => String(r.state_key)));
}

/** A start's binding cookie as its Set-Cookie names it (`name=value`), for a test that sends it again by hand. */
export function startCookie(res: Response, prefix: string): string | undefined {
  return setCookies(res).find((c) => c.startsWith(prefix))?.split(';')[0];
}

export async function userCount(t: TestApp): Promise<number> {
  const rows = await dataSource(t).query('SELECT COUNT(*) AS n FROM auth_user');
  return Number(rows[0].n);
}

/** The last structured log event of a kind, parsed. */
export function lastEvent(t: TestApp, event: string): Record<string, unknown> | undefined {
  for (let i = t.logs.length - 1; i >= 0; i--) {
    if (!t.logs[i].includes(`"event":"${event}"`)) continue;
    return JSON.parse(t.logs[i]) as Record<string, unknown>;
  }
  return undefined;
}

/**
 * A refused single sign-on: 302 to the login page with the reason code, no session cookie, no new
 * session row, and the login page showing the reason in its role="alert" element.
 */
export async function assertRefused(t: TestApp, browser: Browser, res: Response, code: string, sessionsBefore: number): Promise<void> {
  assert.equal(res.status, 302, `refused with a redirect (got ${res.status} ${res.text.slice(0, 200)})`);
  const location = new URL(res.headers.location, 'http://x');
  assert.equal(location.pathname, '/api/login/');
  assert.equal(location.searchParams.get('sso_error'), code, `reason (log: ${JSON.stringify(lastEvent(t, 'sso_login'))})`);
  assert.ok(!setCookies(res).some((c) => c.startsWith(`${t.config.sessionCookieName}=`)), 'no session cookie');
  assert.equal(await sessionCount(t), sessionsBefore, 'no session row');
  const page = await browser.get(res.headers.location).expect(200);
  assert.match(page.text, /<div class="alert" role="alert">Single sign-on failed: [^<]+<\/div>/);
  const event = lastEvent(t, 'sso_login');
  assert.equal(event?.outcome, 'failure');
  assert.equal(event?.reason, code);
}

/** A successful single sign-on: 302 to `next`, a session cookie, and /api/v2/me/ answering for the user. */
export async function assertLoggedIn(t: TestApp, browser: Browser, res: Response, location = '/accounts/profile/'): Promise<Record<string, unknown>> {
  assert.equal(res.status, 302, `logged in (got ${res.status} ${res.headers.location} ${JSON.stringify(lastEvent(t, 'sso_login'))})`);
  assert.equal(res.headers.location, location);
  assert.equal(res.headers['content-length'], '0');
  const cookies = setCookies(res);
  const session = cookies.find((c) => c.startsWith(`${t.config.sessionCookieName}=`));
  assert.ok(session, 'session cookie');
  assert.match(session, /HttpOnly/);
  assert.match(session, /SameSite=Lax/);
  assert.ok(cookies.some((c) => c.startsWith('userLoggedIn=true')));
  assert.ok(cookies.some((c) => c.startsWith('csrftoken=')), 'csrftoken rotated');
  assert.equal(res.headers['x-api-session-cookie-name'], t.config.sessionCookieName);
  assert.equal(res.headers['session-timeout'], '1800');
  const me = await browser.get('/api/v2/me/').expect(200);
  return me.body.results[0];
}
