import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SESSION_END_MESSAGES } from '../src/sessions/session-end-reason';
import { ADMIN_PASSWORD, startTestApp, TestApp } from './support/test-app';
import { launchChromium, logInWithForm, newContext, screenshot, waitForCount, waitForText } from './support/browser';

const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';

/**
 * The browser pages in Debian's Chromium (SPEC §13), found by role and accessible name only.
 * Each test uses its own user, so sessions left by one test never show up in another's lists.
 */
describe('browser pages in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    t = await startTestApp();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(opts: { userAgent?: string; clipboard?: boolean } = {}): Promise<Page> {
    const context = await newContext(browser, opts);
    contexts.push(context);
    return context.newPage();
  }

  async function closeAll(): Promise<void> {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  }

  async function signedIn(username: string, opts: { userAgent?: string; clipboard?: boolean } = {}): Promise<Page> {
    const page = await open(opts);
    await logInWithForm(page, t.url, username, `${username}-Pass-1`);
    return page;
  }

  it('logs in through the form with the keyboard and lands on the profile', async () => {
    await t.createUser('alice', 'alice-Pass-1', { first_name: 'Alice', last_name: 'Liddell', email: 'alice@example.com' });
    try {
      const page = await open();
      await page.goto(`${t.url}/api/login/`);
      await screenshot(page, 'login');
      const username = page.getByLabel('Username');
      assert.ok(await username.evaluate((e) => e === document.activeElement), 'the username field has focus');
      await page.keyboard.type('alice');
      await page.keyboard.press('Tab');
      await page.keyboard.type('alice-Pass-1');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/accounts/profile/**');
      await page.getByRole('heading', { name: 'alice', level: 1 }).waitFor();
      assert.equal(await page.getByRole('tab', { name: 'Tokens' }).getAttribute('aria-selected'), 'true');
      assert.equal(await page.getByRole('tab', { name: 'Sessions' }).getAttribute('aria-selected'), 'false');
      await page.getByRole('button', { name: 'Log out' }).waitFor();
      await page.getByRole('button', { name: 'Create token' }).waitFor();
      assert.deepEqual(await page.getByLabel('Scope').locator('option').allTextContents(), ['read', 'write']);
      await page.getByLabel('Description').waitFor();
    } finally {
      await closeAll();
    }
  });

  it('shows a failed login in the alert', async () => {
    const page = await open();
    try {
      await page.goto(`${t.url}/api/login/`);
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill('wrong');
      await page.getByRole('button', { name: 'Log in' }).click();
      await waitForText(page.getByRole('alert'), /correct username and password/);
    } finally {
      await closeAll();
    }
  });

  it('the login page names the reason of every forced logout in its alert', async () => {
    // Each message carries the words SPEC §13 pins (src/sessions/session-end-reason.spec.ts).
    const page = await open();
    try {
      for (const [reason, message] of Object.entries(SESSION_END_MESSAGES)) {
        await page.goto(`${t.url}/api/login/?reason=${reason}`);
        assert.equal((await page.getByRole('alert').textContent())?.trim(), message, reason);
        await page.getByRole('button', { name: 'Log in' }).waitFor();
      }
    } finally {
      await closeAll();
    }
  });

  it('switches tabs with the arrow keys, Home and End (WAI-ARIA tabs)', async () => {
    await t.createUser('kim', 'kim-Pass-1');
    try {
      const page = await signedIn('kim');
      const tokens = page.getByRole('tab', { name: 'Tokens' });
      const sessions = page.getByRole('tab', { name: 'Sessions' });
      await tokens.focus();
      await page.keyboard.press('ArrowRight');
      assert.equal(await sessions.getAttribute('aria-selected'), 'true');
      assert.ok(await sessions.evaluate((e) => e === document.activeElement), 'focus follows the selection');
      await page.getByRole('tabpanel', { name: 'Sessions' }).waitFor();
      assert.equal(await page.getByRole('tabpanel', { name: 'Tokens' }).count(), 0, 'the other panel is hidden');
      const security = page.getByRole('tab', { name: 'Security' });
      await page.keyboard.press('ArrowRight');
      assert.equal(await security.getAttribute('aria-selected'), 'true');
      await page.keyboard.press('ArrowRight');
      assert.equal(await tokens.getAttribute('aria-selected'), 'true', 'wraps around');
      await page.keyboard.press('End');
      assert.equal(await security.getAttribute('aria-selected'), 'true');
      await page.keyboard.press('Home');
      assert.equal(await tokens.getAttribute('aria-selected'), 'true');
      assert.equal(await sessions.getAttribute('tabindex'), '-1', 'one tab stop for the tab list');
    } finally {
      await closeAll();
    }
  });

  it('lists the sessions with the current one marked, and ends another', async () => {
    await t.createUser('sam', 'sam-Pass-1');
    try {
      const other = await signedIn('sam', { userAgent: FIREFOX_ON_WINDOWS });
      const page = await signedIn('sam');
      await page.getByRole('tab', { name: 'Sessions' }).click();
      const panel = page.getByRole('tabpanel', { name: 'Sessions' });
      const rows = panel.getByRole('row');
      await waitForCount(rows, 3);
      for (const header of ['Browser', 'Address', 'Signed in', 'Last seen', 'Expires']) {
        await panel.getByRole('columnheader', { name: header }).waitFor();
      }
      const current = rows.filter({ hasText: 'current' });
      assert.equal(await current.count(), 1);
      assert.match((await current.textContent()) ?? '', /Headless Chrome \d+ on Linux current /);
      assert.match((await current.getByRole('cell').first().innerText()) ?? '', /on Linux current\b/, 'words stay apart for screen readers');
      assert.equal(await current.getByRole('button', { name: 'End session' }).count(), 0, 'no End session on the current one');
      const firefox = rows.filter({ hasText: 'Firefox 128 on Windows' });
      assert.match((await firefox.textContent()) ?? '', /127\.0\.0\.1/);
      await screenshot(page, 'sessions');
      await firefox.getByRole('button', { name: 'End session' }).click();
      await waitForCount(rows, 2);
      await waitForText(panel.getByRole('status'), /ended/);
      // The other browser learns it at once, with the reason.
      await waitForText(other.getByRole('alert').filter({ hasText: 'logged out' }), /ended from your sessions list/, 10000);
      await other.getByRole('link', { name: 'Log in' }).waitFor();
    } finally {
      await closeAll();
    }
  });

  it('creates a token shown once with a copy button, lists it, and revokes it', async () => {
    await t.createUser('tia', 'tia-Pass-1');
    try {
      const page = await signedIn('tia', { clipboard: true });
      const panel = page.getByRole('tabpanel', { name: 'Tokens' });
      await panel.getByLabel('Description').fill('Nightly backup');
      await panel.getByRole('button', { name: 'Create token' }).click();
      const shown = panel.getByRole('textbox', { name: 'New token' });
      await shown.waitFor();
      const first = await shown.inputValue();
      assert.ok(first.length > 20, 'the token is shown');
      assert.ok(await shown.evaluate((e) => (e as HTMLInputElement).readOnly), 'in a read-only field');
      await panel.getByLabel('Description').fill('CI deploy');
      await panel.getByLabel('Scope').selectOption('read');
      await panel.getByRole('button', { name: 'Create token' }).click();
      await waitForCount(panel.getByRole('row'), 3);
      const token = await shown.inputValue();
      assert.notEqual(token, first);
      await panel.getByRole('button', { name: 'Copy' }).click();
      await waitForText(panel.getByRole('status'), /copied/i);
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
      const row = panel.getByRole('row').filter({ hasText: 'CI deploy' });
      assert.match((await row.textContent()) ?? '', /read/);
      assert.match((await row.textContent()) ?? '', /Never/, 'not used yet');
      for (const header of ['Description', 'Scope', 'Last used', 'Expires']) await panel.getByRole('columnheader', { name: header }).waitFor();
      await screenshot(page, 'tokens');
      await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${token}`).expect(200);
      // Shown once: after a reload the page has only the list.
      await page.reload();
      assert.equal(await page.getByRole('textbox', { name: 'New token' }).count(), 0);
      assert.doesNotMatch((await page.getByRole('tabpanel', { name: 'Tokens' }).textContent()) ?? '', new RegExp(token));
      const again = page.getByRole('tabpanel', { name: 'Tokens' }).getByRole('row').filter({ hasText: 'CI deploy' });
      await again.getByRole('button', { name: 'Revoke' }).click();
      await waitForCount(page.getByRole('tabpanel', { name: 'Tokens' }).getByRole('row'), 2);
      await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${token}`).expect(401);
    } finally {
      await closeAll();
    }
  });

  it('marks tokens that expire soon, and Rotate shows the new token once and kills the old one (SPEC §15)', async () => {
    await t.createUser('rory', 'rory-Pass-1');
    try {
      const create = async (body: Record<string, unknown>) =>
        (await t.http().post('/api/v2/tokens/').auth('rory', 'rory-Pass-1').send(body).expect(201)).body as { id: number; token: string };
      const soon = await create({ description: 'Short-lived', expires_in: 3600 });
      await create({ description: 'Long-lived' });
      const page = await signedIn('rory');
      const panel = page.getByRole('tabpanel', { name: 'Tokens' });
      const shortRow = panel.getByRole('row').filter({ hasText: 'Short-lived' });
      await waitForText(shortRow, /Expires soon/);
      assert.doesNotMatch((await panel.getByRole('row').filter({ hasText: 'Long-lived' }).textContent()) ?? '', /Expires soon/);
      await screenshot(page, 'tokens-expiring');
      await shortRow.getByRole('button', { name: 'Rotate' }).click();
      const shown = panel.getByRole('textbox', { name: 'New token' });
      await shown.waitFor();
      const rotated = await shown.inputValue();
      assert.match(rotated, /^svcp_/);
      assert.notEqual(rotated, soon.token);
      await waitForText(panel.getByRole('status'), /rotated/i);
      await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${soon.token}`).expect(401);
      await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${rotated}`).expect(200);
      // Still one short-lived row (the new token, same description and lifetime), still marked.
      await waitForCount(panel.getByRole('row').filter({ hasText: 'Short-lived' }), 1);
      await waitForText(panel.getByRole('row').filter({ hasText: 'Short-lived' }), /Expires soon/);
      await page.reload();
      assert.equal(await page.getByRole('textbox', { name: 'New token' }).count(), 0, 'shown once');
    } finally {
      await closeAll();
    }
  });

  it('tells a page within 10 s that a login elsewhere hit the session limit, and offers Log in', async () => {
    await t.createUser('lee', 'lee-Pass-1');
    await t.settings({ SESSIONS_PER_USER: 1 });
    try {
      const first = await signedIn('lee');
      await signedIn('lee', { userAgent: FIREFOX_ON_WINDOWS });
      const alert = first.getByRole('alert').filter({ hasText: 'session limit' });
      await alert.waitFor({ timeout: 10000 });
      assert.match((await alert.textContent()) ?? '', /You were logged out: the session limit was reached/);
      const login = first.getByRole('link', { name: 'Log in' });
      assert.equal(await login.getAttribute('href'), '/api/login/?reason=session_limit');
      assert.ok(await login.evaluate((e) => e === document.activeElement), 'focus moves to Log in');
      await screenshot(first, 'session-ended');
      await login.click();
      await first.waitForURL('**/api/login/**');
      await waitForText(first.getByRole('alert'), /session limit/);
      await first.getByRole('button', { name: 'Log in' }).waitFor();
    } finally {
      await t.settings({ SESSIONS_PER_USER: -1 });
      await closeAll();
    }
  });

  it('warns sixty seconds before the idle timeout, and Stay signed in slides the session', async () => {
    await t.createUser('ida', 'ida-Pass-1');
    // A 70-second session: the warning is due ten seconds after the page loads.
    await t.settings({ SESSION_COOKIE_AGE: 70 });
    try {
      const page = await signedIn('ida');
      const dialog = page.getByRole('alertdialog', { name: 'Are you still there?' });
      await dialog.waitFor({ timeout: 20000 });
      const stay = dialog.getByRole('button', { name: 'Stay signed in' });
      assert.ok(await stay.evaluate((e) => e === document.activeElement), 'focus is on Stay signed in');
      const left = Number(await page.locator('#idle-seconds').textContent());
      assert.ok(left > 0 && left <= 60, `countdown ${left}`);
      await screenshot(page, 'idle-warning');
      const quietExpires = () =>
        page.evaluate(async () => {
          const res = await fetch('/api/v2/me/sessions/', { headers: { 'X-WS-Session-Quiet': '1' } });
          return ((await res.json()) as { results: { current: boolean; expires: string }[] }).results.find((s) => s.current)!.expires;
        });
      const before = await quietExpires();
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'hidden', timeout: 5000 });
      const after = await quietExpires();
      assert.ok(Date.parse(after) > Date.parse(before), `expiry slid from ${before} to ${after}`);
      assert.equal(await page.getByRole('alert').filter({ hasText: /\S/ }).count(), 0, 'still signed in');
    } finally {
      await t.settings({ SESSION_COOKIE_AGE: 1800 });
      await closeAll();
    }
  });

  it('Log out ends the session and returns to the login page', async () => {
    await t.createUser('otto', 'otto-Pass-1');
    try {
      const page = await signedIn('otto');
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL('**/api/login/');
      await page.goto(`${t.url}/accounts/profile/`);
      await page.waitForURL('**/api/login/?next=%2Faccounts%2Fprofile%2F');
    } finally {
      await closeAll();
    }
  });
  it('shows the OpenAPI page under its CSP without a console error or a blank band (issue 34)', async () => {
    try {
      const page = await open();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      await page.goto(`${t.url}/api/swagger/`, { waitUntil: 'networkidle' });
      const title = page.locator('.information-container .title');
      await waitForText(title, /API/);
      assert.deepEqual(problems, []);
      // The sprite <svg> at the top takes no room (its style attribute applies), so the title is near the top.
      const box = await title.boundingBox();
      assert.ok(box && box.y < 200, `title at y=${box?.y}`);
      const csp = (await page.request.get(`${t.url}/api/swagger/`)).headers()['content-security-policy'];
      assert.match(csp, /script-src 'self'(;|$)/, 'scripts stay strict on the OpenAPI page');
      assert.equal((await page.request.get(`${t.url}/api/swagger/yaml/`)).status(), 200);
    } finally {
      await closeAll();
    }
  });

});

describe('browser pages without OAuth 2 (SPEC §6)', () => {
  let t: TestApp;
  let browser: Browser;
  before(async () => {
    t = await startTestApp({ env: { OAUTH2_PROVIDER_ENABLED: 'false' } });
    await t.createUser('nora', 'nora-Pass-1');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('has no Tokens tab; Sessions is the selected tab', async () => {
    const context = await newContext(browser);
    try {
      const page = await context.newPage();
      await logInWithForm(page, t.url, 'nora', 'nora-Pass-1');
      const sessions = page.getByRole('tab', { name: 'Sessions' });
      await sessions.waitFor();
      assert.equal(await page.getByRole('tab', { name: 'Tokens' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Create token' }).count(), 0);
      assert.equal(await sessions.getAttribute('aria-selected'), 'true');
      await waitForCount(page.getByRole('tabpanel', { name: 'Sessions' }).getByRole('row'), 2);
    } finally {
      await context.close();
    }
  });
});
