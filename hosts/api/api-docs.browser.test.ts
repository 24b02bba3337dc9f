import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFound, CHROMIUM, launchChromium } from './cashier-page/payer-page.browser-fixture.js';
import { API_DOCS_PAGE_HEADERS } from './api-docs/api-docs.js';
import { startHarness, type ApiHarness } from './test-harness.js';

if (!chromiumFound) {
  process.stdout.write(`\nSKIPPED: API reference page browser suite: no chromium at ${CHROMIUM} (apt-get install -y chromium)\n\n`);
}

/** What the page did besides rendering: console errors, uncaught exceptions, CSP refusals, requests off the origin. */
interface Trace {
  readonly errors: string[];
  readonly violations: string[];
  readonly offOrigin: string[];
}

async function openDocs(context: BrowserContext, base: string): Promise<{ page: Page; trace: Trace; csp: string | undefined }> {
  const trace: Trace = { errors: [], violations: [], offOrigin: [] };
  // Anything not served by the API fails (and is recorded): the page must work offline, with no CDN.
  await context.route('**/*', (route) => {
    if (route.request().url().startsWith(`${base}/`)) return route.continue();
    trace.offOrigin.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  await page.exposeFunction('reportViolation', (text: string) => { trace.violations.push(text); });
  // Installed through the devtools protocol, so the page's own CSP does not apply to this listener.
  await page.addInitScript(
    'document.addEventListener("securitypolicyviolation", (e) => window.reportViolation(`${e.violatedDirective} ${e.blockedURI}`))',
  );
  page.on('console', (message) => { if (message.type() === 'error') trace.errors.push(message.text()); });
  page.on('pageerror', (error) => { trace.errors.push(error.message); });
  const response = await page.goto(`${base}/api/docs`);
  return { page, trace, csp: response?.headers()['content-security-policy'] };
}

/** The API reference page (issue #15 part 4) in Debian's chromium: rendered from /api/openapi.json, offline, under its CSP. */
describe.skipIf(!chromiumFound)('API reference page in chromium', () => {
  let browser: Browser;
  let h: ApiHarness;
  beforeAll(async () => {
    [browser, h] = await Promise.all([launchChromium(), startHarness()]);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('renders every operation and the webhooks with their examples, with no CSP refusal, console error or request off the origin', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const { page, trace, csp } = await openDocs(context, h.url);
      expect(csp).toBe(API_DOCS_PAGE_HEADERS['content-security-policy']);
      const operation = page.locator('#operations-Collection-createCollection');
      await operation.waitFor({ state: 'visible', timeout: 30_000 });
      expect(await page.locator('.info .title').innerText()).toContain('Custody Hub API');
      const paths = Object.values(h.host.openapi['paths'] as Record<string, object>).reduce((n, ops) => n + Object.keys(ops).length, 0);
      expect(await page.locator('.opblock-tag-section .opblock').count()).toBeGreaterThanOrEqual(paths);
      await page.locator('#operations-webhooks-collectionCompletedEvent').waitFor({ state: 'attached' });

      await operation.locator('.opblock-summary-control').click();
      await operation.locator('.responses-wrapper', { hasText: 'T20260525095916482139075512' }).waitFor({ timeout: 10_000 });
      expect(await operation.locator('.opblock-section-request-body').innerText()).toContain('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8');

      expect(trace).toEqual({ errors: [], violations: [], offOrigin: [] });

      // The probes see a refusal: an inline script and a CDN script are both refused.
      await page.evaluate(`(() => {
        const inline = document.createElement('script'); inline.textContent = 'window.inlineRan = true'; document.body.append(inline);
        const cdn = document.createElement('script'); cdn.src = 'https://cdn.example/swagger-ui-bundle.js'; document.body.append(cdn);
      })()`);
      await expect.poll(() => trace.violations.length).toBeGreaterThanOrEqual(2);
      expect(trace.violations).toEqual(expect.arrayContaining(['script-src-elem inline', 'script-src-elem https://cdn.example/swagger-ui-bundle.js']));
      expect(await page.evaluate('window.inlineRan === true')).toBe(false);
    } finally {
      await context.close();
    }
  });
});
