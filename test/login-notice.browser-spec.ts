import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ADMIN_PASSWORD, basic, startTestApp, TestApp } from './support/test-app';
import { launchChromium, routedContext, screenshot } from './support/browser';
import { CLIENT_ID, CLIENT_SECRET, OidcIdp } from './support/oidc-idp';

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';
const NOTICE = 'USE OF THIS SYSTEM IS CONSENT TO MONITORING.\n  <img src=x onerror="document.title=\'ran\'"> & <b>not bold</b>\nLine three';

/** SPEC §22's notice and click-through in Debian's Chromium: text as typed, nothing run, the box gating every way in. */
describe('the login notice and its acknowledgement in Chromium (SPEC §22)', () => {
  let t: TestApp;
  let idp: OidcIdp;
  let browser: Browser;

  before(async () => {
    t = await startTestApp();
    await t.createUser('alice', 'Alice-pass-1');
    idp = await OidcIdp.start({ redirectUri: `${t.config.publicUrl}/sso/complete/oidc/`, accounts: { 'sub-olga': { preferred_username: 'olga' } } });
    await t.settings({ SOCIAL_AUTH_OIDC_PROVIDERS: { corp: { issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET } } });
    await t
      .http()
      .patch('/api/v2/settings/ui/')
      .set('Authorization', basic('admin', ADMIN_PASSWORD))
      .send({ CUSTOM_LOGIN_INFO: NOTICE, CUSTOM_LOGO: PNG, LOGIN_CONSENT_REQUIRED: true })
      .expect(200);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await idp?.close();
    await t?.close();
  });

  it('shows the notice as the characters set, the logo, and keeps Log in and SSO disabled until the box is ticked', async () => {
    const context = await routedContext(browser, t);
    const requests: string[] = [];
    context.on('request', (r) => requests.push(r.url()));
    try {
      const page = await context.newPage();
      await page.goto(`${t.url}/api/login/`);
      const notice = page.getByRole('region', { name: 'Notice' });
      assert.equal(await notice.innerText(), NOTICE, 'the text as typed, line breaks and leading spaces kept');
      assert.equal(await notice.locator('img, b, script').count(), 0, 'nothing in it is markup');
      assert.notEqual(await page.title(), 'ran');
      assert.ok(!requests.some((u) => new URL(u).pathname === '/x' || u.endsWith('/x')), 'no request because of the notice');
      const logo = page.getByRole('img', { name: 'Logo' });
      assert.equal(await logo.getAttribute('src'), PNG);
      assert.ok(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 1), 'the logo is decoded and shown');

      const box = page.getByLabel('I acknowledge the notice');
      const logIn = page.getByRole('button', { name: 'Log in' });
      const sso = page.getByText('Log in with corp');
      assert.equal(await box.isChecked(), false);
      assert.equal(await logIn.isDisabled(), true);
      assert.equal(await sso.getAttribute('aria-disabled'), 'true');
      assert.equal(await sso.getAttribute('href'), null);
      await screenshot(page, 'login-notice');

      await box.check();
      assert.equal(await logIn.isEnabled(), true);
      assert.equal(await sso.getAttribute('aria-disabled'), null);
      assert.equal(await sso.getAttribute('href'), '/sso/login/oidc/?idp=corp&consent=accepted');
      await box.uncheck();
      assert.equal(await logIn.isDisabled(), true);
      assert.equal(await sso.getAttribute('href'), null);

      // Reloaded after a tick, the box is unchecked again.
      await box.check();
      await page.reload();
      assert.equal(await page.getByLabel('I acknowledge the notice').isChecked(), false);
      assert.equal(await page.getByRole('button', { name: 'Log in' }).isDisabled(), true);

      await page.getByLabel('I acknowledge the notice').check();
      await page.getByText('Log in with corp').click();
      await page.waitForURL((url) => url.href.startsWith(idp.issuer));
    } finally {
      await context.close();
    }
  });

  it('logs in once ticked, and the next login from the same browser asks again', async () => {
    const context = await routedContext(browser, t);
    try {
      const page = await context.newPage();
      await page.goto(`${t.url}/api/login/`);
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill('Alice-pass-1');
      await page.getByLabel('I acknowledge the notice').check();
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL('**/accounts/profile/**');
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.goto(`${t.url}/api/login/`);
      assert.equal(await page.getByLabel('I acknowledge the notice').isChecked(), false);
      assert.equal(await page.getByRole('button', { name: 'Log in' }).isDisabled(), true);
      // A form sent around the disabled button (the page's script aside) is refused by the server.
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill('Alice-pass-1');
      await page.evaluate(() => document.querySelector('form')!.submit());
      await page.getByRole('alert').waitFor();
      assert.equal(await page.getByRole('alert').innerText(), 'You must acknowledge the notice to log in.');
      assert.ok(page.url().endsWith('/api/login/'));
    } finally {
      await context.close();
    }
  });

  it('shows the previous login and the failed attempts since on the profile page after each login (SPEC §22, AC-9)', async () => {
    await t.createUser('paula', 'Paula-pass-1');
    const context = await routedContext(browser, t);
    try {
      const page = await context.newPage();
      const logIn = async () => {
        await page.goto(`${t.url}/api/login/`);
        await page.getByLabel('Username').fill('paula');
        await page.getByLabel('Password').fill('Paula-pass-1');
        await page.getByLabel('I acknowledge the notice').check();
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL('**/accounts/profile/**');
      };
      await logIn();
      assert.equal(await page.locator('#previous-login[role="status"]').innerText(), 'This is your first login. 0 failed login attempts since then.');
      const first = (await t.http().get('/api/v2/users/?username=paula').set('Authorization', basic('admin', ADMIN_PASSWORD)).expect(200)).body.results[0].last_login as string;
      await page.getByRole('button', { name: 'Log out' }).click();
      for (let i = 0; i < 2; i++) await t.http().get('/api/v2/me/').set('Authorization', basic('paula', 'wrong-password')).expect(401);
      await logIn();
      const line = await page.locator('#previous-login[role="status"]').innerText();
      assert.equal(line, `Previous login: ${first} from 127.0.0.1. 2 failed login attempts since then.`);
      await screenshot(page, 'previous-login');
    } finally {
      await context.close();
    }
  });
});
