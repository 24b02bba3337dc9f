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
    try {
      await p.page.locator(selector, { hasText: expected }).first().waitFor({ timeout: 10_000 });
    } catch (error) {
      const shown = await p.page.locator('main').innerText().catch(() => '(no page)');
      throw new Error(`${selector} never showed ${String(expected)}; the page shows:\n${shown}`, { cause: error });
    }
  };
  /** Blocks until the task is terminal (or `rounds` run out); the page's refreshes run as the blocks pass. */
  const untilTaskEnds = async (p: PayerPage, m: Merchant, rounds = 40): Promise<number | string> => {
    for (let i = 0; i < rounds; i++) {
      await block(w, p.page);
      const task = await call(w, 'GET', '/api/cashier/task', { token: m.ct });
      if (task !== null && (task.status === 11 || task.status === 12)) {
        // The developer's view says why a task failed (the payer's never does).
        const view = await call(w, 'GET', `/api/collections/${task.task_no}`, { token: m.apiToken });
        return task.status === 11 ? 11 : `12 ${view.error_code}: ${view.last_error}`;
      }
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
          // No clipboard API outside a secure context: the button falls back to selecting and copying the address.
          await p.page.locator('#copy').click();
          await waitText(p, '#copy-status', 'Address copied.');
          expect(await p.page.evaluate('getSelection().toString()')).toBe(m.sub);
          // It ticks every second; each refresh (every 5 s) slides the session, as every payment-API call does.
          await pass(w, p.page, 2_000);
          expect(await text(p, '#countdown')).toBe('Time left: 59:58');
          await pass(w, p.page, 3_000);
          await waitText(p, '#countdown', 'Time left: 1:00:00');
          expect(await text(p, '#status')).toMatch(/^Waiting for your payment/);
          expect(await p.page.locator('#collect').isDisabled()).toBe(true);
          await screenshot(p.page, `${vp.name}-01-loaded`);
          expect(await axeViolations(p.page)).toEqual([]);
          expect(p.errors).toEqual([]);
        } finally {
          await p.close();
        }
      });

      it('a devnet deposit shows up by itself, in units; the payer\'s choice survives refreshes; USDT is collected and the progress reaches done', async () => {
        const m = await newMerchant(w, { label: 'Order 7' });
        const p = await openPayerPage(browser, w, vp, `?ct=${m.ct}`);
        try {
          await waitText(p, '#status', /^Waiting for your payment/);
          await deposit(m, 'USDT', '10500000');
          // One block: the transfer is mined and the scanner updates the cached balance; the page's next refresh shows it.
          await block(w, p.page);
          await refreshed(p);
          await waitText(p, '#status', 'Received 10.5 USDT. Confirm the payment below.');
          expect(await p.page.locator('input[value="USDT"]').isChecked()).toBe(true);
          expect(await text(p, '[data-symbol="USDT"] .amount')).toBe('10.5 USDT');
          expect(await p.page.locator('body').innerText()).not.toContain('10500000');
          expect(await p.page.locator('#status').getAttribute('role')).toBe('status');
          expect(await p.page.locator('[data-step="received"]').getAttribute('aria-current')).toBe('step');
          expect(await text(p, '#collect')).toBe('Confirm payment of 10.5 USDT');
          expect(await p.page.locator('#collect').isEnabled()).toBe(true);
          expect(await axeViolations(p.page)).toEqual([]);
          await screenshot(p.page, `${vp.name}-02-received`);

          // The payer picks TRX (nothing there): refreshes keep the choice and the button stays off.
          await p.page.locator('[data-symbol="TRX"]').click();
          const before = p.apiCalls.length;
          await refreshed(p);
          await expect.poll(() => p.apiCalls.length).toBeGreaterThanOrEqual(before + 2);
          await refreshed(p);
          await expect.poll(() => p.apiCalls.length).toBeGreaterThanOrEqual(before + 4);
          expect(await p.page.locator('input[value="TRX"]').isChecked()).toBe(true);
          expect(await p.page.locator('#collect').isDisabled()).toBe(true);

          await p.page.locator('[data-symbol="USDT"]').click();
          await p.page.locator('#collect').click();
          await waitText(p, '#status', 'Your payment is being forwarded to the merchant.');
          expect(await p.page.locator('[data-step="sweeping"]').getAttribute('aria-current')).toBe('step');
          expect(await p.page.locator('#collect').isDisabled()).toBe(true);
          await screenshot(p.page, `${vp.name}-03-forwarding`);
          expect(await untilTaskEnds(p, m)).toBe(11);
          await refreshed(p);
          await waitText(p, '#status', 'Done. The merchant has received your payment.');
          expect(await p.page.locator('[data-step="done"]').getAttribute('class')).toBe('done');
          expect(await text(p, '[data-symbol="USDT"] .amount')).toBe('0 USDT');
          expect(await p.page.locator('#collect').isDisabled()).toBe(true);
          await screenshot(p.page, `${vp.name}-04-done`);

          // Dust is never offered (issue #24 item 5): the sweep's activation funding left 1 SUN on the sub-address.
          const cached = await call(w, 'GET', '/api/cashier/balance', { token: m.ct });
          expect(cached.items.find((i: { symbol: string }) => i.symbol === 'TRX').balance_available).toBe('1');
          expect(await text(p, '[data-symbol="TRX"] .amount')).toBe('0 TRX');
          await p.page.locator('[data-symbol="TRX"]').click();
          await refreshed(p);
          expect(await p.page.locator('input[value="TRX"]').isChecked()).toBe(true);
          expect(await text(p, '#collect')).toBe('Confirm payment');
          expect(await p.page.locator('#collect').isDisabled()).toBe(true);
          expect(await p.page.locator('body').innerText()).not.toContain('0.000001');
          expect(p.errors).toEqual([]);
        } finally {
          await p.close();
        }
      });

      it('a failed collection says so in plain words and the payer retries it successfully', async () => {
        const m = await newMerchant(w);
        // A stale snapshot: the cache says 10.5 USDT the chain does not hold, so the worker fails the sweep at PENDING.
        const now = w.clock.now();
        await w.dev.composition.container.get(TOKENS.Stores).balances.put({
          address: m.sub, refreshSource: 1, updatedAt: now,
          items: [{ symbol: 'TRX', available: 0n, updatedAt: now }, { symbol: 'USDT', available: 10_500_000n, updatedAt: now }],
        });
        const p = await openPayerPage(browser, w, vp, `?ct=${m.ct}`);
        try {
          await waitText(p, '#status', 'Received 10.5 USDT.');
          await p.page.locator('#collect').click();
          await waitText(p, '#status', 'being forwarded');
          expect(await untilTaskEnds(p, m)).toMatch(/^12 BIZ-NOTHING-TO-COLLECT/);
          await refreshed(p);
          await waitText(p, '#status', 'The payment could not be forwarded to the merchant. Your funds are still on the address: you can try again.');
          expect(await p.page.locator('[data-step="sweeping"]').getAttribute('class')).toBe('failed');
          expect(await text(p, '[data-step="sweeping"]')).toBe('Failed');
          const page = await p.page.locator('body').innerText();
          expect(page).not.toMatch(/BIZ-|NOTHING|[0-9a-f]{64}|status 12/i);
          expect(await p.page.locator('#collect').isEnabled()).toBe(true);
          await screenshot(p.page, `${vp.name}-05-failed`);

          // The real payment arrives; the retry sweeps it.
          await deposit(m, 'USDT', '10500000');
          await block(w, p.page);
          await refreshed(p);
          await p.page.locator('#collect').click();
          await waitText(p, '#status', 'being forwarded');
          expect(await untilTaskEnds(p, m)).toBe(11);
          await refreshed(p);
          await waitText(p, '#status', 'Done. The merchant has received your payment.');
          await screenshot(p.page, `${vp.name}-06-retried`);
          expect(p.errors).toEqual([]);
        } finally {
          await p.close();
        }
      });

      it('unknown, disabled, expired and missing tokens end in clear messages; an idle tab pauses and lets the session expire', async () => {
        const ended = async (query: string, message: string): Promise<PayerPage> => {
          const p = await openPayerPage(browser, w, vp, query);
          await waitText(p, '#problem', message);
          expect(await p.page.locator('#checkout').isHidden()).toBe(true);
          return p;
        };
        const unknown = await ended('?ct=ct_unknown', 'This payment link is no longer valid');
        expect(await axeViolations(unknown.page)).toEqual([]);
        await screenshot(unknown.page, `${vp.name}-07-invalid`);
        await unknown.close();
        await (await ended('', 'This payment link is incomplete.')).close();

        // Disabled by the merchant while the page is open.
        const m = await newMerchant(w);
        const disabled = await openPayerPage(browser, w, vp, `?ct=${m.ct}`);
        await waitText(disabled, '#status', /^Waiting/);
        await call(w, 'DELETE', `/api/cashier/tokens/${m.tokenNo}`, { token: m.apiToken, body: { reason: 'order cancelled' }, expect: 200 });
        await refreshed(disabled);
        await waitText(disabled, '#problem', 'This payment link is no longer valid');
        expect(await disabled.page.locator('#address').isVisible()).toBe(false);
        await disabled.close();

        // An open tab nobody touches: refreshes stop after 10 minutes (no request slides the session), a tap resumes them.
        const idle = await newMerchant(w);
        const p = await openPayerPage(browser, w, vp, `?ct=${idle.ct}`);
        try {
          await waitText(p, '#status', /^Waiting/);
          w.clock.advance(10 * 60_000);
          await p.page.clock.fastForward(10 * 60_000);
          await waitText(p, '#paused', 'Updates paused after 10 minutes without activity.');
          await screenshot(p.page, `${vp.name}-08-paused`);
          const calls = p.apiCalls.length;
          // force: playwright's "stable" check waits for animation frames, which the fast-forwarded page clock holds.
          await p.page.locator('#resume').click({ force: true });
          await expect.poll(() => p.apiCalls.length).toBeGreaterThan(calls);
          await p.page.locator('#paused').waitFor({ state: 'hidden' });
          w.clock.advance(10 * 60_000);
          await p.page.clock.fastForward(10 * 60_000);
          await waitText(p, '#paused', 'Updates paused');
          const paused = p.apiCalls.length;
          w.clock.advance(50 * 60_000);
          await p.page.clock.fastForward(50 * 60_000);
          await waitText(p, '#problem', 'This payment session has expired.');
          expect(p.apiCalls.length).toBe(paused);
          await screenshot(p.page, `${vp.name}-09-expired`);
        } finally {
          await p.close();
        }
        // Loaded after expiry: the server says only "invalid" (spec §5), the message covers both.
        await (await ended(`?ct=${idle.ct}`, 'it has expired or was cancelled by the merchant')).close();
      });

      it('renders in Simplified Chinese from Accept-Language, with a switch to English and back', async () => {
        const m = await newMerchant(w, { label: '订单 88', minimums: { USDT: '5000000', TRX: '1000000' } });
        const p = await openPayerPage(browser, w, vp, `?ct=${m.ct}`, { locale: 'zh-CN' });
        try {
          await waitText(p, '#status', '等待您的付款');
          expect(await p.page.evaluate('document.documentElement.lang')).toBe('zh-CN');
          expect(await text(p, 'h1')).toBe('使用 USDT 或 TRX 付款');
          expect(await text(p, '#reference')).toBe('订单备注：订单 88');
          expect(await text(p, '.warning')).toContain('仅可发送 TRON 网络上的 USDT (TRC20) 或 TRX。');
          expect(await text(p, '#minimums')).toBe('最低金额：1 TRX · 5 USDT');
          await deposit(m, 'USDT', '2500000');
          await block(w, p.page);
          await refreshed(p);
          await waitText(p, '#status', '已收到 2.5 USDT。最低金额为 5 USDT，请至少再发送 2.5 USDT。');
          expect(await p.page.locator('#collect').isDisabled()).toBe(true);
          expect(await axeViolations(p.page)).toEqual([]);
          await screenshot(p.page, `${vp.name}-10-zh-CN`);
          await p.page.getByRole('button', { name: 'English' }).click();
          expect(await text(p, 'h1')).toBe('Pay with USDT or TRX');
          expect(await text(p, '#status')).toBe('Received 2.5 USDT. The minimum is 5 USDT: send at least 2.5 USDT more.');
          expect(await p.page.evaluate('document.documentElement.lang')).toBe('en');
          await p.page.getByRole('button', { name: '简体中文' }).click();
          expect(await text(p, '#collect')).toBe('确认付款 2.5 USDT');
          expect(p.errors).toEqual([]);
        } finally {
          await p.close();
        }
      });
    });
  }

  it('runs its script from the file beside the page; an inline script added to the page is refused and never runs', async () => {
    const m = await newMerchant(w);
    const p = await openPayerPage(browser, w, VIEWPORTS[1]!, `?ct=${m.ct}`);
    try {
      await p.page.locator('#qr').waitFor({ state: 'visible' });
      // The page works (its QR code is shown), and the only script element that is code is the file.
      const scripts = await p.page.evaluate('[...document.scripts].map((s) => [s.type, s.src === "" ? "inline" : new URL(s.src).pathname])');
      expect(scripts).toEqual([['application/json', 'inline'], ['', '/cashier/payer-page.js']]);
      expect(p.errors).toEqual([]);
      const outcome = await p.page.evaluate(`new Promise((resolve) => {
        document.addEventListener('securitypolicyviolation', (e) => resolve([e.effectiveDirective, e.blockedURI, window.injected === true]), { once: true });
        const script = document.createElement('script');
        script.textContent = 'window.injected = true;';
        document.body.append(script);
        if (window.injected === true) resolve(['none', 'none', true]); // an allowed inline script runs as it is added
      })`);
      expect(outcome).toEqual(['script-src-elem', 'inline', false]);
      expect(p.errors).toHaveLength(1);
      expect(p.errors[0]).toMatch(/Content Security Policy/);
    } finally {
      await p.close();
    }
  });
});
