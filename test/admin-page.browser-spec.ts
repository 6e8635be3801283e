import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { launchChromium, logInWithForm, newContext, screenshot, waitForCount, waitForText } from './support/browser';
import { browserLogin } from './support/browser-login';

/** `/accounts/admin/` in Chromium (SPEC §22): everyone logged in now and the locked pairs, buttons for superusers only. */
describe('the administration page in Chromium (SPEC §22)', () => {
  let t: TestApp;
  let browser: Browser;

  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1');
    await t.createUser('bob', 'Bob-pass-1');
    await t.createUser('audrey', 'Audrey-pass-1', { is_system_auditor: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(username: string, password: string): Promise<Page> {
    const page = await (await newContext(browser)).newPage();
    await logInWithForm(page, t.url, username, password);
    await page.goto(`${t.url}/accounts/admin/`);
    return page;
  }

  /** Five wrong passwords for bob from this address: the pair locks (LOGIN_FAILURES_ALLOWED 5). */
  async function lockBob(): Promise<void> {
    for (let i = 0; i < 5; i++) await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'wrong')).expect(401);
    await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'Bob-pass-1')).expect(429);
  }

  it('lets a superuser end anyone\'s session and unlock a locked pair', async () => {
    const alice = await browserLogin(t, 'alice', 'Alice-pass-1');
    await lockBob();
    const page = await signedIn('admin', ADMIN_PASSWORD);
    try {
      await page.getByRole('heading', { name: 'Administration', level: 1 }).waitFor();
      assert.equal(await page.getByRole('tab', { name: 'Sessions' }).getAttribute('aria-selected'), 'true');
      const sessions = page.getByRole('table', { name: 'Live sessions' });
      const aliceRow = sessions.getByRole('row').filter({ hasText: 'alice' });
      await waitForCount(aliceRow, 1);
      assert.deepEqual(await sessions.locator('thead th').allTextContents(), ['User', 'Address', 'Method', 'Created', 'Last activity', 'Actions']);
      const cells = await aliceRow.locator('td').allTextContents();
      assert.deepEqual(cells.slice(0, 3), ['alice', '127.0.0.1', 'local']);
      await screenshot(page, 'admin-sessions');
      await aliceRow.getByRole('button', { name: 'End session' }).click();
      await waitForText(page.locator('#admin-sessions-status'), /Session of alice at 127\.0\.0\.1 ended\./);
      await waitForCount(sessions.getByRole('row').filter({ hasText: 'alice' }), 0);
      assert.equal((await alice.agent.get('/api/v2/me/').expect(401)).body.reason, 'revoked_by_admin');

      await page.getByRole('tab', { name: 'Locked' }).click();
      const locks = page.getByRole('table', { name: 'Locked names and addresses' });
      const bobRow = locks.getByRole('row').filter({ hasText: 'bob' });
      await waitForCount(bobRow, 1);
      assert.deepEqual(await locks.locator('thead th').allTextContents(), ['User', 'Address', 'Failures', 'Locked until', 'Actions']);
      assert.deepEqual((await bobRow.locator('td').allTextContents()).slice(0, 3), ['bob', '127.0.0.1', '5']);
      await bobRow.getByRole('button', { name: 'Unlock' }).click();
      await waitForText(page.locator('#admin-locks-status'), /bob from 127\.0\.0\.1 unlocked\./);
      await waitForCount(locks.getByRole('row').filter({ hasText: 'bob' }), 0);
      await t.http().get('/api/v2/me/').set('Authorization', basic('bob', 'Bob-pass-1')).expect(200);
    } finally {
      await page.context().close();
    }
  });

  it('shows a system auditor the same tables without a button', async () => {
    await browserLogin(t, 'alice', 'Alice-pass-1');
    await lockBob();
    const page = await signedIn('audrey', 'Audrey-pass-1');
    try {
      const sessions = page.getByRole('table', { name: 'Live sessions' });
      await waitForCount(sessions.getByRole('row').filter({ hasText: 'alice' }), 1);
      assert.equal(await sessions.getByRole('button').count(), 0);
      await page.getByRole('tab', { name: 'Locked' }).click();
      const locks = page.getByRole('table', { name: 'Locked names and addresses' });
      await waitForCount(locks.getByRole('row').filter({ hasText: 'bob' }), 1);
      assert.equal(await locks.getByRole('button').count(), 0);
    } finally {
      await page.context().close();
    }
  });

  it('sends an anonymous browser to the login page and gives anyone else a 403 page', async () => {
    const anonymous = await t.http().get('/accounts/admin/').redirects(0).expect(302);
    assert.equal(anonymous.headers.location, '/api/login/?next=%2Faccounts%2Fadmin%2F');
    const page = await signedIn('alice', 'Alice-pass-1');
    try {
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Forbidden');
      assert.equal(await page.getByRole('alert').innerText(), 'You do not have permission to view this page.');
    } finally {
      await page.context().close();
    }
    const forbidden = await (await browserLogin(t, 'alice', 'Alice-pass-1')).agent.get('/accounts/admin/').expect(403);
    assert.match(forbidden.headers['content-type'], /^text\/html/);
  });
});
