import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../composition/tokens.js';
import {
  axeViolations, block, call, chromiumFound, CHROMIUM, launchChromium, newMerchant, openPayerPage, pass, screenshot, startWorld, VIEWPORTS,
  type Merchant, type PayerPage, type World,
} from './payer-page.browser-fixture.js';

if (!chromiumFound) {
  process.stdout.write(`\nSKIPPED: payer page browser suite: no chromium at ${CHROMIUM} (apt-get install -y chromium)\n\n`);
}

const POLL_MS = 5_000;

/**
 * The payer page (issue 12) in Debian's chromium at 390×844 and at desktop width, against the `npm start` stack with
 * every clock manual. Deposits are real devnet transactions from the faucet, found by the worker's balance scanner.
 */
describe.skipIf(!chromiumFound)('payer page in chromium', () => {
  let browser: Browser;
  let w: World;
  beforeAll(async () => {
    [browser, w] = await Promise.all([launchChromium(), startWorld()]);
  });
  afterAll(async () => {
    await browser?.close();
    await w?.dev.stop();
  });

  /** The page's refresh runs (5 s of page time); then wait for what it shows. */
  const refreshed = (p: PayerPage): Promise<void> => pass(w, p.page, POLL_MS);
  const text = (p: PayerPage, selector: string): Promise<string> => p.page.locator(selector).innerText();
  const waitText = async (p: PayerPage, selector: string, expected: string | RegExp): Promise<void> => {
    await p.page.locator(selector, { hasText: expected }).first().waitFor({ timeout: 10_000 });
  };
  /** Blocks until the task is terminal (or `rounds` run out); the page's refreshes run as the blocks pass. */
  const untilTaskEnds = async (p: PayerPage, m: Merchant, rounds = 40): Promise<number> => {
    for (let i = 0; i < rounds; i++) {
      await block(w, p.page);
      const task = await call(w, 'GET', '/api/cashier/task', { token: m.ct });
      if (task !== null && (task.status === 11 || task.status === 12)) return task.status as number;
    }
    throw new Error('the collection did not end');
  };
  const deposit = async (m: Merchant, asset: 'TRX' | 'USDT', amount: string): Promise<void> => {
    await w.dev.faucet.send(m.sub, asset, amount);
  };

  for (const vp of VIEWPORTS) {
    describe(`at ${vp.name} width`, () => {
      it('loads with the QR code, the address, its label, the network warning, minimums and a live countdown; the token leaves the URL', async () => {
        const m = await newMerchant(w, { label: 'Order 1042', minimums: { USDT: '1000000' } });
        const p = await openPayerPage(browser, w, vp, `?ct=${m.ct}`);
        try {
          await p.page.locator('#qr').waitFor({ state: 'visible' });
          expect(p.page.url()).toBe(`${w.base}/cashier`);
          expect(await p.page.evaluate('[isSecureContext, typeof crypto.randomUUID]')).toEqual([false, 'undefined']);
          expect(await text(p, '#address')).toBe(m.sub);
          expect(await p.page.locator('#qr').getAttribute('alt')).toBe(`QR code of the address ${m.sub}`);
          const qr = await p.page.evaluate('(() => { const i = document.getElementById("qr"); return [i.naturalWidth > 0, i.src.slice(0, 5)]; })()');
          expect(qr).toEqual([true, 'blob:']);
          expect(await text(p, '#reference')).toBe('Reference: Order 1042');
          expect(await text(p, '.warning')).toContain('Send only USDT (TRC20) or TRX on TRON.');
          expect(await text(p, '#minimums')).toBe('Minimum amount: 1 USDT');
          expect(await text(p, '#countdown')).toBe('Time left: 1:00:00');
          // It ticks every second; each refresh (every 5 s) slides the session, as every payment-API call does.
          await pass(w, p.page, 2_000);
          expect(await text(p, '#countdown')).toBe('Time left: 59:58');
          await pass(w, p.page, 3_000);
          await waitText(p, '#countdown', 'Time left: 1:00:00');
          expect(await text(p, '#status')).toMatch(/^Waiting for your payment/);
          expect(await p.page.locator('#collect').isDisabled()).toBe(true);
          await screenshot(p.page, `${vp.name}-01-loaded`);
          expect(p.errors).toEqual([]);
        } finally {
          await p.close();
        }
      });
    });
  }
});
