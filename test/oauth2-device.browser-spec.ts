import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, routedContext, screenshot, waitForText } from './support/browser';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';
import { deviceAuthorization, devicePoll, RegisteredApp, registerApp } from './support/oauth2';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';

/**
 * The device flow end to end in Debian's Chromium (issue 32, "Done when"): the polling side hears
 * `authorization_pending`, a person opens the verification URI, logs in (with a password, or through
 * the in-process OpenID provider), types the code, authorizes, sees `Device connected`, and then the
 * polling side gets its token. The polling side moves the service's clock past the interval rather than
 * waiting for it.
 */
describe('device authorization in Chromium (RFC 8628)', () => {
  let t: TestApp;
  let idp: OidcIdp;
  let browser: Browser;
  let tv: RegisteredApp;
  const contexts: BrowserContext[] = [];

  before(async () => {
    t = await startTestApp();
    idp = await OidcIdp.start({ redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`, accounts: { 'sub-sue': { preferred_username: 'sue', email: 'sue@corp.example' } } });
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } } });
    await t.createUser('alice', 'alice-Pass-1');
    tv = await registerApp(t, basic('admin', ADMIN_PASSWORD), { name: 'Living-room TV', client_type: 'public', authorization_grant_type: 'device-code' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await idp?.close();
    await t?.close();
  });

  /**
   * A browser in which PUBLIC_URL (http://127.0.0.1, what the service puts in verification_uri and gives
   * the provider as its callback) reaches the test app's real port, and nothing leaves the machine.
   */
  async function open(): Promise<Page> {
    const context = await routedContext(browser, t);
    contexts.push(context);
    return context.newPage();
  }

  async function closeAll(): Promise<void> {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  }

  /** The device's side: a code, and a first poll that hears authorization_pending. */
  async function startDevice() {
    const res = await deviceAuthorization(t, { clientId: tv.clientId }).expect(200);
    const pending = await devicePoll(t, res.body.device_code, { clientId: tv.clientId }).expect(400);
    assert.equal(pending.body.error, 'authorization_pending');
    return res.body as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string };
  }

  /** The device's next poll, an interval later: the token, whose user is `username`. */
  async function deviceGetsToken(deviceCode: string, username: string): Promise<void> {
    t.clock.advance(5);
    const res = await devicePoll(t, deviceCode, { clientId: tv.clientId });
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.refresh_token, /^svcr_/);
    const me = await t.http().get('/api/v2/me/').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
    assert.equal(me.body.results[0].username, username);
  }

  /** On the consent page: the application named, then Authorize, then Device connected. */
  async function authorize(page: Page): Promise<void> {
    await page.getByRole('heading', { name: 'Authorize Living-room TV?' }).waitFor();
    await page.getByRole('button', { name: 'Deny' }).waitFor();
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.getByRole('heading', { name: 'Device connected' }).waitFor();
    await waitForText(page.getByRole('status'), /Living-room TV now has access/);
  }

  it('a person logs in, types the code, authorizes; then the device gets its token', async () => {
    try {
      const device = await startDevice();
      const page = await open();
      await page.goto(device.verification_uri);
      // Anonymous: the login page first, which comes back to the device page.
      await page.waitForURL('**/api/login/?next=**');
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill('alice-Pass-1');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL('**/api/o/device/');
      // Typed as a person might: lower case, no dash.
      const field = page.getByLabel('Code');
      assert.equal(await field.inputValue(), '');
      await field.fill('wrong-code');
      await page.getByRole('button', { name: 'Continue' }).click();
      await waitForText(page.getByRole('alert'), /That code is not valid/);
      await page.getByLabel('Code').fill(device.user_code.toLowerCase().replace('-', ''));
      await page.getByRole('button', { name: 'Continue' }).click();
      await authorize(page);
      await deviceGetsToken(device.device_code, 'alice');
    } finally {
      await closeAll();
    }
  });

  it('an SSO user logs in through the OpenID provider from verification_uri_complete and authorizes', async () => {
    await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true });
    try {
      const device = await startDevice();
      const page = await open();
      await page.goto(device.verification_uri_complete);
      await page.waitForURL('**/api/login/?next=**');
      await page.getByRole('link', { name: /corp/ }).click();
      // The provider's own (development) pages: sign in, then consent.
      await page.waitForURL(`${idp.issuer}/interaction/**`);
      await page.locator('input[name="login"]').fill('sub-sue');
      await page.locator('input[name="password"]').fill('any');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      // Back through /sso/complete/oidc/ to the device page, the code already in the field.
      await page.waitForURL(`**/api/o/device/?user_code=${device.user_code}`);
      assert.equal(await page.getByLabel('Code').inputValue(), device.user_code);
      await screenshot(page, 'device-code');
      await page.getByRole('button', { name: 'Continue' }).click();
      await authorize(page);
      await deviceGetsToken(device.device_code, 'sue');
    } finally {
      await t.settings({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false });
      await closeAll();
    }
  });
});
