import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Locator, Page } from 'playwright-core';

/** Debian's Chromium: the tests never download a browser (.ci/run installs the `chromium` package). */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ROOT = join(__dirname, '..', '..', '..');
const DOCS_SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
const RUN_SCREENSHOTS = join(ROOT, 'test-output', 'screenshots');

/**
 * Headless Chromium, offline and quiet. Playwright gives each launch a new, empty user-data-dir of
 * its own (passing --user-data-dir here is refused), and every context is a separate cookie jar:
 * a "second browser".
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic',
      '--no-first-run', '--disable-component-update', '--disable-sync',
    ],
  });
}

export async function newContext(browser: Browser, opts: { userAgent?: string; clipboard?: boolean } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 720 },
    locale: 'en-GB',
    timezoneId: 'UTC',
    userAgent: opts.userAgent,
    permissions: opts.clipboard ? ['clipboard-read', 'clipboard-write'] : [],
  });
  context.setDefaultTimeout(15000);
  return context;
}

/**
 * A context in which the service's PUBLIC_URL (http://127.0.0.1, what it puts in the URLs it hands out and gives
 * identity providers as its callbacks) reaches the test app's real port, and nothing leaves the machine.
 */
export async function routedContext(browser: Browser, app: { url: string; config: { publicUrl: string } }): Promise<BrowserContext> {
  const context = await newContext(browser);
  const publicOrigin = new URL(app.config.publicUrl).origin;
  await context.route(
    (url) => url.origin === publicOrigin,
    (route) => {
      const url = new URL(route.request().url());
      return route.fulfill({ status: 302, headers: { location: `${app.url}${url.pathname}${url.search}` } });
    },
  );
  await context.route((url) => url.hostname !== '127.0.0.1', (route) => route.abort());
  return context;
}

/** Logs in through the form as a person would: labelled fields, then the "Log in" button. */
export async function logInWithForm(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/api/login/`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('**/accounts/profile/**');
}

/** Waits until the locator's text matches (Playwright's `expect` is not part of playwright-core). */
export async function waitForText(locator: Locator, pattern: RegExp, timeoutMs = 10000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    last = (await locator.first().textContent({ timeout: Math.max(1, deadline - Date.now()) }).catch(() => '')) ?? '';
    if (pattern.test(last)) return last;
    if (Date.now() > deadline) throw new Error(`text ${pattern} not seen within ${timeoutMs} ms (last: "${last}")`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function waitForCount(locator: Locator, count: number, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  while ((last = await locator.count()) !== count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} elements, found ${last} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Saves a screenshot for this run under test-output/screenshots/, and into docs/screenshots/ (the
 * README's pictures) when that file is missing or UPDATE_SCREENSHOTS=1, so a normal test run does
 * not rewrite committed images whose dates and tokens differ every time.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const png = await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide' });
  mkdirSync(RUN_SCREENSHOTS, { recursive: true });
  writeFileSync(join(RUN_SCREENSHOTS, `${name}.png`), png);
  const doc = join(DOCS_SCREENSHOTS, `${name}.png`);
  if (process.env.UPDATE_SCREENSHOTS === '1' || !existsSync(doc)) {
    mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    writeFileSync(doc, png);
  }
}
