import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, routedContext, screenshot, waitForText } from './support/browser';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Single logout in Debian's Chromium (SPEC §17, §13; issue 33): logging out of the service goes on to the
 * OpenID provider's logout page and back to the login page; signing out at the provider makes an open
 * profile page say, within 10 seconds, that the identity provider ended the session, and offer the login page.
 */
describe('single logout in Chromium (SPEC §17)', () => {
  let t: TestApp;
  let idp: OidcIdp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    t = await startTestApp();
    idp = await OidcIdp.start({
      redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`,
      accounts: { 'sub-sue': { preferred_username: 'sue' } },
      postLogoutRedirectUri: `${t.config.publicUrl}/sso/logout/oidc/`,
      backchannelLogoutUri: `${t.url}/sso/backchannel/oidc/?idp=corp`,
    });
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } } });
    browser = await launchChromium();
  });
  after(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
    await idp?.close();
    await t?.close();
  });

  /** A browser in which PUBLIC_URL (http://127.0.0.1) reaches the test app's real port, and nothing leaves the machine. */
  async function open(): Promise<BrowserContext> {
    const context = await routedContext(browser, t);
    contexts.push(context);
    return context;
  }

  /** Logs in as a person would: the provider's button on the login page, the provider's own sign-in and consent pages. */
  async function logInThroughProvider(page: Page): Promise<void> {
    await page.goto(`${t.url}/api/login/`);
    await page.getByRole('link', { name: /corp/ }).click();
    await page.waitForURL(`${idp.issuer}/interaction/**`);
    await page.locator('input[name="login"]').fill('sub-sue');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL('**/accounts/profile/');
  }

  it('"Log out" on the profile page ends the session at the provider too, then shows the login page', async () => {
    const context = await open();
    const page = await context.newPage();
    await logInThroughProvider(page);
    await page.getByRole('button', { name: 'Log out' }).click();
    // The provider's logout page (oidc-provider's development page), then back to ours.
    await page.waitForURL(`${idp.issuer}/session/end**`);
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL('**/api/login/?reason=logged_out');
    await waitForText(page.getByRole('alert'), /You logged out/);
    // Not logged straight back in: the provider asks for the password again.
    await page.getByRole('link', { name: /corp/ }).click();
    await page.waitForURL(`${idp.issuer}/interaction/**`);
    assert.equal(await page.locator('input[name="login"]').count(), 1);
  });

  it('signing out at the provider makes an open page say the identity provider ended the session, and offer the login page', async () => {
    const context = await open();
    const page = await context.newPage();
    await logInThroughProvider(page);
    const elsewhere = await context.newPage();
    await elsewhere.goto(`${idp.issuer}/session/end`);
    await elsewhere.getByRole('button', { name: 'Yes, sign me out' }).click();
    await elsewhere.waitForURL(`${idp.issuer}/session/end/success**`);
    await waitForText(page.getByRole('alert'), /identity provider/, 10000);
    await screenshot(page, 'idp-logout');
    await page.getByRole('link', { name: 'Log in' }).click();
    await page.waitForURL('**/api/login/?reason=idp_logout');
    await waitForText(page.getByRole('alert'), /You were logged out by your identity provider/);
  });
});
