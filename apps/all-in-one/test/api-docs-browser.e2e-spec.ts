import { existsSync } from 'node:fs';
import { openApiPath, ROUTES } from '@lms/contracts';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startTestSystem, type TestSystem } from './test-system.js';

/**
 * The docs page as a person meets it: a real headless Chromium (Debian's, which `.ci/run` installs) loads
 * `/api/docs`, finds every route of the contract table, authorises with a token and runs one GET with
 * "Try it out". Nothing of the gateway's own code reads the page here; the browser does.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const describeWithBrowser = existsSync(CHROMIUM) ? describe : describe.skip;

/**
 * Swagger UI draws a long list of operations virtually: only what is near the viewport is in the DOM. So
 * the page is read as a person reads it, scrolling down a screen at a time; `visit` sees what each screen
 * holds and answers true to stop.
 */
async function scrollThrough(page: Page, visit: () => Promise<boolean>, pauseMs = 50): Promise<void> {
  // Evaluated in the page (strings: this file is compiled without the DOM's types).
  await page.evaluate('window.scrollTo(0, 0)');
  for (let screens = 0; screens < 500; screens++) {
    if (await visit()) return;
    const moved = await page.evaluate('(() => { const before = window.scrollY; window.scrollBy(0, window.innerHeight * 0.8); return window.scrollY > before; })()');
    if (!moved && (await visit())) return;
    if (!moved) return;
    await page.waitForTimeout(pauseMs);
  }
}

describeWithBrowser('the API docs page in a browser', () => {
  let t: TestSystem;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    t = await startTestSystem();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // As root Chromium needs --no-sandbox; the rest keeps it off a network this machine does not have.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists every route of the contract table', async () => {
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${t.api.baseUrl}/api/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
    const shown = new Set<string>();
    const routes = ROUTES.flatMap((route) => route.methods.map((method) => `${method} ${openApiPath(route.path)}`));
    // A busy machine draws slower than the page scrolls: read it again, slower, while a route is missing.
    for (const pauseMs of [50, 250, 750]) {
      await scrollThrough(
        page,
        async () => {
          const blocks = await page.locator('.opblock').evaluateAll((all) =>
            all.map((block) => `${block.querySelector('.opblock-summary-method')?.textContent?.trim()} ${block.querySelector('[data-path]')?.getAttribute('data-path')}`),
          );
          for (const block of blocks) shown.add(block);
          return false;
        },
        pauseMs,
      );
      if (routes.every((route) => shown.has(route))) break;
    }
    expect(routes.filter((route) => !shown.has(route))).toEqual([]);
    expect(shown.size).toBeGreaterThanOrEqual(routes.length);
    // A strict Content-Security-Policy and the page's own script get along: nothing was refused.
    expect(errors).toEqual([]);
  }, 120_000);

  it('authorises with a token and runs a GET with "Try it out", answering 200', async () => {
    await page.locator('.auth-wrapper .authorize').click();
    const bearer = page.locator('.modal-ux .auth-container').filter({ hasText: 'bearerAuth' });
    await bearer.locator('input').fill(t.token);
    await bearer.locator('button.authorize').click();
    // Authorised: the scheme now offers to log out.
    await bearer.locator('button', { hasText: 'Logout' }).waitFor();
    await bearer.locator('button.btn-done').click();

    const operation = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/api/author/custom_fields"]') });
    await scrollThrough(page, async () => (await operation.count()) > 0);
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    expect((await status.textContent())?.trim()).toBe('200');
    // The answer is the real list, not an error page.
    expect(JSON.parse((await operation.locator('.live-responses-table .response-col_description pre').first().textContent()) ?? '')).toEqual({ meta: {}, custom_fields: [] });
  }, 120_000);
});
