import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations, call, chromiumFound, consoleOrigin, emailOf, launchChromium, newMerchant, screenshot, shows, signIn, startWorld, type World,
} from './console.browser-fixture.js';

/** The dashboard's refresh period (screens/dashboard.js DASHBOARD_POLL_MS). */
const POLL_MS = 15_000;

/**
 * The console's dashboard (issue #38 item 1) against the `npm start` stack: a payment request paid in two parts from the
 * devnet faucet appears as paid, with its volume, without a reload; balances come from the books.
 */
if (!chromiumFound) process.stdout.write(`\nSKIPPED: console browser suite (dashboard): no chromium at ${process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'} (apt-get install -y chromium)\n\n`);

describe.skipIf(!chromiumFound)('console dashboard in chromium', () => {
  let browser: Browser;
  let w: World;
  beforeAll(async () => {
    [browser, w] = await Promise.all([launchChromium(), startWorld()]);
  });
  afterAll(async () => {
    await browser?.close();
    await w?.dev.stop();
  });

  it('shows a payment request paid in two parts, its volume and the balance, without a reload', async () => {
    const m = await newMerchant(w);
    const sub = (await call(w, 'POST', '/api/wallets', { token: m.apiToken, body: { network_code: 'TRON', address_type: 2 }, expect: 201 })).address as string;
    const request = await call(w, 'POST', '/api/cashier/tokens', {
      token: m.apiToken, body: { address: sub, amount: '25000000', asset_symbol: 'USDT', reference: 'Order 7' }, expect: 201,
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => { errors.push(e.message); });
      let loads = 0;
      page.on('load', () => { loads++; });
      // The page's timers (the dashboard's polling) run only when the test says so.
      await page.clock.install({ time: w.clock.now() });
      await page.goto(`${consoleOrigin(w)}/console#/dashboard`);
      await signIn(page, await emailOf(w, m));
      const today = page.locator('.card', { has: page.getByRole('heading', { name: 'Today' }) });
      await shows(page, today.getByText('1 created'));
      expect(await today.getByText('0 paid').count()).toBe(1);

      const received = async (): Promise<bigint> =>
        BigInt((await call(w, 'GET', `/api/cashier/tokens/${request.token_no}`, { token: m.apiToken })).payment.received as string);
      for (const part of ['10000000', '15000000']) {
        const before = await received();
        await w.dev.faucet.send(sub, 'USDT', part);
        for (let i = 0; i < 40 && (await received()) === before; i++) {
          w.dev.devnet.mine(1);
          await w.dev.worker.tick();
          w.clock.advance(3_000);
        }
      }
      expect((await call(w, 'GET', `/api/cashier/tokens/${request.token_no}`, { token: m.apiToken })).payment.status).toBe('paid');
      await page.clock.runFor(POLL_MS);
      await shows(page, today.getByText('1 paid'));
      expect(await today.getByText('Received: 25 USDT').count()).toBe(1);
      await page.getByRole('figure').getByText('Daily volume received', { exact: false }).first().waitFor();
      expect(await page.locator('figure canvas').count()).toBeGreaterThan(0);
      expect(loads).toBe(1);
      // Every panel's route answered: no panel shows an error.
      expect(await page.getByRole('alert').allInnerTexts()).toEqual([]);
      expect(await page.getByText('Nothing needs attention.').count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'dashboard');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
