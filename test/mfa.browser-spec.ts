import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generate } from 'otplib';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { launchChromium, newContext, screenshot, waitForText } from './support/browser';
import { freePort } from './support/free-port';
import { startTestApp, TestApp } from './support/test-app';


/**
 * Two-step verification in Debian's Chromium (issue 31, "Done when"): an authenticator app set up on the
 * Security tab and then asked for at login; a security key registered there with a virtual authenticator
 * (the DevTools protocol's WebAuthn domain) and then used for the second step; the forced set-up pages.
 */
describe('two-step verification in Chromium (SPEC §16)', () => {
  let t: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** WebAuthn relying-party ids cannot be IP addresses: the service is PUBLIC_URL http://localhost:<its port>. */
  let ORIGIN = '';

  before(async () => {
    const port = await freePort();
    ORIGIN = `http://localhost:${port}`;
    t = await startTestApp({ env: { PUBLIC_URL: ORIGIN }, port });
    browser = await launchChromium();
  });
  after(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
    await t?.close();
  });

  /** A page that reaches nothing but the service. */
  async function open(): Promise<Page> {
    const context = await newContext(browser);
    contexts.push(context);
    await context.route((url) => url.origin !== ORIGIN, (route) => route.abort());
    return context.newPage();
  }

  /** A virtual security key on this page (CTAP2 over USB, presence and verification answered at once). */
  async function virtualKey(page: Page): Promise<CDPSession> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'usb', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    return cdp;
  }

  const totp = (secret: string) => generate({ secret, epoch: Math.floor(t.clock.now().getTime() / 1000) });

  async function passwordStep(page: Page, username: string): Promise<void> {
    await page.goto(`${ORIGIN}/api/login/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill('Strong-pass-1');
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  async function openSecurityTab(page: Page): Promise<void> {
    await page.getByRole('tab', { name: 'Security' }).click();
    await waitForText(page.locator('#totp-state'), /authenticator app is set up|No authenticator app/);
  }

  async function logOut(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Log out' }).first().click();
    await page.waitForURL('**/api/login/**');
  }

  it('sets up an authenticator app on the Security tab, then asks for its code at login', async () => {
    await t.createUser('tara', 'Strong-pass-1');
    const page = await open();
    await passwordStep(page, 'tara');
    await page.waitForURL('**/accounts/profile/**');
    await openSecurityTab(page);
    await page.getByRole('button', { name: 'Set up authenticator app' }).click();
    const qr = page.getByRole('img', { name: /QR code for your authenticator app/ });
    await qr.waitFor();
    assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/png;base64,/);
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    await page.getByLabel('Authentication code').first().fill(await totp(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await waitForText(page.locator('#security-status'), /Authenticator app set up/);
    assert.equal(await page.locator('#recovery-codes-list li').count(), 10);
    await screenshot(page, 'security');

    await logOut(page);
    t.clock.advance(30); // the next code; the confirming one is spent
    await passwordStep(page, 'tara');
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await screenshot(page, 'second-step');
    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await waitForText(page.getByRole('alert'), /The code is not valid/);
    await page.getByLabel('Authentication code').fill(await totp(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/accounts/profile/**');
    await page.getByRole('heading', { name: 'tara' }).waitFor();

    // Five minutes after the second step, adding a key asks for a code of the app (issue 40), then works with one.
    await virtualKey(page);
    t.clock.advance(301);
    await openSecurityTab(page);
    await page.getByLabel('Key name').fill('Travel key');
    await page.getByRole('button', { name: 'Add security key' }).click();
    await waitForText(page.locator('#security-status'), /Enter a code of your authenticator app or a recovery code/);
    await page.getByLabel('Current code for changes').fill(await totp(secret));
    await page.getByRole('button', { name: 'Add security key' }).click();
    await waitForText(page.locator('#security-status'), /Security key "Travel key" added/);
    assert.equal(await page.getByLabel('Current code for changes').inputValue(), '', 'the spent code is cleared');
  });

  it('registers a security key on the Security tab, logs out, and logs in with it', async () => {
    await t.createUser('kim', 'Strong-pass-1');
    const page = await open();
    await virtualKey(page);
    await passwordStep(page, 'kim');
    await page.waitForURL('**/accounts/profile/**');
    await openSecurityTab(page);
    await page.getByLabel('Key name').fill('Desk key');
    await page.getByRole('button', { name: 'Add security key' }).click();
    await waitForText(page.locator('#security-status'), /Security key "Desk key" added/);
    await waitForText(page.locator('#keys-table tbody'), /Desk key/);
    // A first factor comes with its recovery codes, shown once.
    assert.equal(await page.locator('#recovery-codes-list li').count(), 10);
    assert.ok(await page.getByRole('button', { name: 'Remove', exact: true }).isVisible());

    await logOut(page);
    await passwordStep(page, 'kim');
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await page.getByRole('button', { name: 'Use a security key' }).click();
    await page.waitForURL('**/accounts/profile/**');
    await page.getByRole('heading', { name: 'kim' }).waitFor();
    await openSecurityTab(page);
    await waitForText(page.locator('#keys-table tbody'), /Desk key/);
    assert.doesNotMatch((await page.locator('#keys-table tbody tr').first().textContent()) ?? '', /Never$/, 'last used is recorded');

    // By keyboard: the tab list moves with the arrow keys, and Remove takes the key away.
    await page.getByRole('tab', { name: 'Security' }).focus();
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Sessions');
    // Selecting the tab reloads its lists: wait for that before focusing a row's button.
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/v2/me/mfa/')), page.keyboard.press('ArrowRight')]);
    await waitForText(page.locator('#keys-table tbody'), /Desk key/);
    await page.getByRole('button', { name: 'Remove', exact: true }).focus();
    await page.keyboard.press('Enter');
    await waitForText(page.locator('#security-status'), /removed/);
    await waitForText(page.locator('#keys-empty'), /No security keys yet/);
  });

  it('takes a user MFA_REQUIRED_FOR names through the set-up pages before the login completes', async () => {
    await t.createUser('root3', 'Strong-pass-1', { is_superuser: true });
    await t.settings({ MFA_REQUIRED_FOR: 'superusers' });
    try {
      const page = await open();
      await passwordStep(page, 'root3');
      await page.getByRole('heading', { name: 'Set up two-step verification' }).waitFor();
      assert.match((await page.getByRole('img', { name: /QR code for your authenticator app/ }).getAttribute('src')) ?? '', /^data:image\/png;base64,/);
      await screenshot(page, 'mfa-setup');
      const secret = (await page.locator('#totp-secret').textContent())!.trim();
      await page.getByLabel('Authentication code').fill(await totp(secret));
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
      assert.equal(await page.locator('.recovery-codes li').count(), 10);
      await page.getByRole('link', { name: 'Continue' }).click();
      await page.waitForURL('**/accounts/profile/**');
      await page.getByRole('heading', { name: 'root3' }).waitFor();
    } finally {
      await t.settings({ MFA_REQUIRED_FOR: 'none' });
    }
  });
});
