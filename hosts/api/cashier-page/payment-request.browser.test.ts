import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations, block, call, chromiumFound, CHROMIUM, launchChromium, newMerchant, openPayerPage, pass, screenshot, startWorld, VIEWPORTS,
  type PayerPage, type Viewport, type World,
} from './payer-page.browser-fixture.js';

if (!chromiumFound) {
  process.stdout.write(`\nSKIPPED: payment request browser suite: no chromium at ${CHROMIUM} (apt-get install -y chromium)\n\n`);
}

const POLL_MS = 5_000;
const MINUTE = 60_000;

/** A merchant named "Acme Store" whose sub-address carries a payment request (issue #25) instead of a plain token. */
interface Request { readonly sub: string; readonly ct: string; readonly apiToken: string }

/**
 * The payer page of a payment request (issue #25 item 4) in Debian's chromium at 390×844 and at desktop width, against
 * the `npm start` stack with every clock manual; payments are real devnet transfers from the faucet, confirmed at the
 * solidified depth by the worker's scanner, and the worker's own payment watcher forwards paid requests.
 */
describe.skipIf(!chromiumFound)('payment request payer page in chromium', () => {
  let browser: Browser;
  let w: World;
  beforeAll(async () => {
    [browser, w] = await Promise.all([launchChromium(), startWorld()]);
  });
  afterAll(async () => {
    await browser?.close();
    await w?.dev.stop();
  });

  async function requestFor(body: Record<string, unknown>): Promise<Request> {
    const m = await newMerchant(w);
    await call(w, 'PUT', '/api/subscriptions/config', { token: m.session, body: { service_code: 'developer', config: { display_name: 'Acme Store' } }, expect: 200 });
    await call(w, 'DELETE', `/api/cashier/tokens/${m.tokenNo}`, { token: m.apiToken, body: {}, expect: 200 });
    const token = await call(w, 'POST', '/api/cashier/tokens', {
      token: m.apiToken, body: { address: m.sub, amount: '25000000', asset_symbol: 'USDT', reference: 'Order 2501', ...body }, expect: 201,
    });
    return { sub: m.sub, ct: token.token, apiToken: m.apiToken };
  }

  const text = (p: PayerPage, selector: string): Promise<string> => p.page.locator(selector).innerText();
  const waitText = async (p: PayerPage, selector: string, expected: string | RegExp): Promise<void> => {
    try {
      await p.page.locator(selector, { hasText: expected }).first().waitFor({ timeout: 10_000 });
    } catch (error) {
      const shown = await p.page.locator('main').innerText().catch(() => '(no page)');
      throw new Error(`${selector} never showed ${String(expected)}; the page shows:\n${shown}`, { cause: error });
    }
  };
  const pay = async (r: Request, amount: string): Promise<string> => (await w.dev.faucet.send(r.sub, 'USDT', amount)).txid;
  /** Blocks pass (the scanner confirms at the solidified depth, the watcher judges) until the session's payment says so. */
  async function untilPayment(p: PayerPage, r: Request, done: (payment: any, session: any) => boolean, rounds = 60): Promise<void> {
    for (let i = 0; i < rounds; i++) {
      await block(w, p.page);
      // The page's own refreshes use 24 of the token's 60 GETs a minute (spec §8): look every third block (9 s) only.
      if (i % 3 !== 2 && i !== rounds - 1) continue;
      const session = await call(w, 'GET', '/api/cashier/session', { token: r.ct, expect: 200 })
        .catch((error: unknown) => { throw new Error(`${String(error)} after ${i + 1} blocks, ${p.apiCalls.length} page calls`); });
      if (done(session.payment, session)) {
        await pass(w, p.page, POLL_MS);
        return;
      }
    }
    throw new Error('the payment request never got there');
  }
  /** Every primary element lies within the first screen (390×844 on a phone). */
  async function aboveTheFold(p: PayerPage, vp: Viewport): Promise<void> {
    const height = vp.options.viewport!.height;
    for (const selector of ['#heading', '#merchant', '#summary', '#amount', '#address', '#copy-amount', '#copy', '#deadline']) {
      const box = await p.page.locator(selector).boundingBox();
      expect({ selector, visible: box !== null, bottom: box !== null && box.y + box.height <= height }).toEqual({ selector, visible: true, bottom: true });
    }
  }
  /** Presses "Copy amount" (by keyboard when asked): what it copied (outside a secure context, the selection) and its data. */
  async function copiedAmount(p: PayerPage, how: 'click' | 'keyboard' = 'click'): Promise<{ copied: string; data: string | null }> {
    await p.page.evaluate('getSelection().removeAllRanges()');
    if (how === 'click') {
      await p.page.locator('#copy-amount').click();
    } else {
      // From the top of the page, Tab reaches the button and Enter presses it.
      await p.page.evaluate('document.activeElement?.blur(); window.scrollTo(0, 0)');
      for (let i = 0; i < 12 && await p.page.evaluate('document.activeElement.id') !== 'copy-amount'; i++) await p.page.keyboard.press('Tab');
      expect(await p.page.evaluate('document.activeElement.id')).toBe('copy-amount');
      await p.page.keyboard.press('Enter');
    }
    await waitText(p, '#copy-status', 'Amount copied.');
    return { copied: await p.page.evaluate<string>('getSelection().toString()'), data: await p.page.locator('#copy-amount').getAttribute('data-amount') };
  }
  /**
   * Issue #34: nothing on the page offers itself as something to pay (no QR code, address, amount, copy button,
   * countdown). Hidden (display: none), a control takes no focus either.
   */
  async function offersNothingToPay(p: PayerPage, r: Request): Promise<void> {
    for (const selector of ['#pay-card', '#qr', '#address', '#amount', '#copy-amount', '#copy', '#deadline']) {
      expect({ selector, hidden: await p.page.locator(selector).isHidden() }).toEqual({ selector, hidden: true });
    }
    expect(await text(p, 'main')).not.toContain(r.sub);
  }
  /** The transfers the page lists: amount, status and txid. */
  const transfersShown = (p: PayerPage): Promise<string[][]> => p.page.locator('#transfer-list li').evaluateAll((items) => items.map((li) => [
    li.querySelector('.transfer-amount')!.textContent!, li.querySelector('.transfer-status')!.textContent!, li.querySelector('.txid')!.textContent!,
  ]));
  const clean = async (p: PayerPage, name: string): Promise<void> => {
    expect(await axeViolations(p.page)).toEqual([]);
    await screenshot(p.page, name);
    expect(p.errors).toEqual([]);
  };

  for (const vp of VIEWPORTS) {
    describe(`at ${vp.name} width`, () => {
      it('partial then completed: "Pay 25 USDT" above the fold, the fixed deadline, "send 15 more", then paid and forwarded by itself', async () => {
        const r = await requestFor({ description: 'Two mugs', pay_within_minutes: 20 });
        const p = await openPayerPage(browser, w, vp, `?ct=${r.ct}`);
        try {
          await waitText(p, '#heading', 'Pay 25 USDT');
          expect(await text(p, '#merchant')).toBe('To Acme Store');
          expect(await text(p, '#reference')).toBe('Reference: Order 2501');
          expect(await text(p, '#description')).toBe('Two mugs');
          expect(await text(p, '#amount')).toBe('25 USDT');
          expect(await text(p, '#address')).toBe(r.sub);
          expect(await text(p, '#summary')).toBe('Send exactly 25 USDT to this address. This page updates by itself.');
          expect(await text(p, '#network')).toBe('Send only USDT (TRC20) on TRON.');
          expect(await text(p, '#deadline')).toBe('Pay within 20:00');
          // Only the requested asset: no asset choice, no button to press, no sliding "Time left".
          expect(await p.page.locator('#assets').isHidden()).toBe(true);
          expect(await p.page.locator('input[type="radio"]').count()).toBe(0);
          expect(await p.page.locator('#collect').isHidden()).toBe(true);
          expect(await p.page.locator('#countdown').isHidden()).toBe(true);
          await aboveTheFold(p, vp);
          // The deadline is fixed: refreshes slide the token's expiry, never it.
          await pass(w, p.page, 2 * POLL_MS);
          await waitText(p, '#deadline', 'Pay within 19:50');
          // Outside a secure context the copy falls back to selecting the amount: the number alone, as a wallet takes it.
          expect(await copiedAmount(p)).toEqual({ copied: '25', data: '25' });
          expect(await p.page.locator('#transfers').isHidden()).toBe(true);
          await clean(p, `request-${vp.name}-01-awaiting`);

          const first = await pay(r, '10000000');
          await untilPayment(p, r, (payment) => payment.status === 'partially_paid');
          await waitText(p, '#summary', 'Received 10 USDT of 25 USDT: send 15 USDT more.');
          expect(await p.page.locator('[data-step="received"]').getAttribute('aria-current')).toBe('step');
          expect(await p.page.locator('#deadline').isVisible()).toBe(true);
          // Issue #34: after a partial payment the amount shown and copied is what is left, not the request's 25.
          expect(await text(p, '#amount-label')).toBe('Left to pay');
          expect(await text(p, '#amount')).toBe('15 USDT');
          expect(await copiedAmount(p, 'keyboard')).toEqual({ copied: '15', data: '15' });
          expect(await transfersShown(p)).toEqual([['10 USDT', 'Confirmed', first]]);
          await aboveTheFold(p, vp);
          await clean(p, `request-${vp.name}-02-partial`);

          // The missing 15 is seen and confirming: the page says so and asks for nothing (no "send 15 more", no address).
          const second = await pay(r, '15000000');
          await block(w, p.page);
          expect((await call(w, 'GET', '/api/cashier/session', { token: r.ct, expect: 200 })).payment)
            .toMatchObject({ status: 'partially_paid', confirming: '15000000', remaining: '15000000' });
          await pass(w, p.page, POLL_MS);
          await waitText(p, '#summary', 'Received 10 USDT of 25 USDT. A payment of 15 USDT is being confirmed by the network. It covers the rest: do not send it again.');
          expect(await text(p, 'main')).not.toMatch(/send 15 USDT more|send the remaining/);
          await offersNothingToPay(p, r);
          expect(await transfersShown(p)).toEqual([['10 USDT', 'Confirmed', first], ['15 USDT', 'Being confirmed', second]]);
          await clean(p, `request-${vp.name}-03-confirming`);
          await p.page.getByRole('button', { name: '简体中文' }).click();
          expect(await text(p, '#summary')).toBe('已收到 10 USDT（共 25 USDT）。一笔 15 USDT 的付款正在等待网络确认，已足额：请勿重复付款。');
          expect(await transfersShown(p)).toEqual([['10 USDT', '已确认', first], ['15 USDT', '确认中', second]]);
          expect(await text(p, '#transfers-heading')).toBe('已检测到的转账');
          expect(await axeViolations(p.page)).toEqual([]);
          await screenshot(p.page, `request-${vp.name}-03-confirming-zh`);
          await p.page.getByRole('button', { name: 'English' }).click();

          await untilPayment(p, r, (payment, session) => payment.status === 'paid' && session.active_task !== null);
          await waitText(p, '#summary', 'Paid: being forwarded to the merchant.');
          expect(await p.page.locator('[data-step="sweeping"]').getAttribute('aria-current')).toBe('step');
          await offersNothingToPay(p, r);
          expect(await transfersShown(p)).toEqual([['10 USDT', 'Confirmed', first], ['15 USDT', 'Confirmed', second]]);
          await clean(p, `request-${vp.name}-04-forwarding`);
          await untilPayment(p, r, (_payment, session) => session.active_task?.status === 11);
          await waitText(p, '#summary', 'Paid. The merchant has received your payment.');
          expect(await p.page.locator('[data-step="done"]').getAttribute('class')).toBe('done');
          await offersNothingToPay(p, r);
          await clean(p, `request-${vp.name}-05-done`);
        } finally {
          await p.close();
        }
      });

      it('exact payment, in Simplified Chinese: 支付 25 USDT, then paid', async () => {
        const r = await requestFor({ pay_within_minutes: 15 });
        const p = await openPayerPage(browser, w, vp, `?ct=${r.ct}`, { locale: 'zh-CN' });
        try {
          await waitText(p, '#heading', '支付 25 USDT');
          expect(await text(p, '#merchant')).toBe('收款方：Acme Store');
          expect(await text(p, '#summary')).toBe('请向此地址准确发送 25 USDT。本页面会自动更新。');
          expect(await text(p, '#deadline')).toBe('请在 15:00 内付款');
          expect(await text(p, '#copy-amount')).toBe('复制金额');
          await aboveTheFold(p, vp);
          await clean(p, `request-${vp.name}-06-zh-awaiting`);
          const txid = await pay(r, '25000000');
          await untilPayment(p, r, (payment, session) => payment.status === 'paid' && session.active_task !== null);
          await waitText(p, '#summary', '已付款：正在转交给商户。');
          expect(await transfersShown(p)).toEqual([['25 USDT', '已确认', txid]]);
          expect(await text(p, '#transfers')).toContain('交易哈希');
          await clean(p, `request-${vp.name}-07-zh-paid`);
          await p.page.getByRole('button', { name: 'English' }).click();
          expect(await text(p, '#heading')).toBe('Pay 25 USDT');
          expect(await text(p, '#summary')).toBe('Paid: being forwarded to the merchant.');
        } finally {
          await p.close();
        }
      });

      it('overpaid: "Overpaid by 2 USDT: contact the merchant", and forwarded all the same', async () => {
        const r = await requestFor({});
        const p = await openPayerPage(browser, w, vp, `?ct=${r.ct}`);
        try {
          await waitText(p, '#heading', 'Pay 25 USDT');
          await pay(r, '27000000');
          await untilPayment(p, r, (payment, session) => payment.status === 'overpaid' && session.active_task !== null);
          await waitText(p, '#summary', 'Overpaid by 2 USDT: contact the merchant about the difference. Paid: being forwarded to the merchant.');
          await offersNothingToPay(p, r);
          await clean(p, `request-${vp.name}-08-overpaid`);
        } finally {
          await p.close();
        }
      });

      it('expired with nothing received: "Expired: do not send"; then paid after the deadline: "Arrived after the deadline", in both languages', async () => {
        const r = await requestFor({ pay_within_minutes: 5 });
        const p = await openPayerPage(browser, w, vp, `?ct=${r.ct}`);
        try {
          await waitText(p, '#deadline', 'Pay within 5:00');
          // Five minutes at once (each timer fires at most once): a minute-by-minute walk would crowd the page's refreshes
          // into the token's rate-limit windows.
          w.clock.advance(5 * MINUTE);
          await p.page.clock.fastForward(5 * MINUTE);
          await untilPayment(p, r, (payment) => payment.status === 'expired', 3);
          await waitText(p, '#summary', 'Expired: do not send. The time to pay is over.');
          expect(await p.page.locator('#deadline').isHidden()).toBe(true);
          expect(await p.page.locator('[data-step="waiting"]').getAttribute('class')).toBe('failed');
          await offersNothingToPay(p, r);
          await clean(p, `request-${vp.name}-09-expired`);
          await p.page.getByRole('button', { name: '简体中文' }).click();
          expect(await text(p, '#summary')).toBe('已过期：请勿再付款。付款时间已结束。');
          expect(await axeViolations(p.page)).toEqual([]);
          await p.page.getByRole('button', { name: 'English' }).click();

          const late = await pay(r, '25000000');
          await untilPayment(p, r, (payment) => payment.status === 'paid_late');
          await waitText(p, '#summary', 'Arrived after the deadline: contact the merchant.');
          // Not forwarded by itself: the merchant decides.
          expect((await call(w, 'GET', '/api/cashier/session', { token: r.ct })).active_task).toBeNull();
          await offersNothingToPay(p, r);
          expect(await transfersShown(p)).toEqual([['25 USDT', 'Confirmed', late]]);
          await clean(p, `request-${vp.name}-10-paid-late`);
          await p.page.getByRole('button', { name: '简体中文' }).click();
          expect(await text(p, '#summary')).toBe('付款在截止时间之后到账：请联系商户。');
          expect(await axeViolations(p.page)).toEqual([]);
        } finally {
          await p.close();
        }
      });
    });
  }

  it('a payment seen before the deadline still confirming after it: "do not send more", nothing offered to pay; then expired with what arrived', async () => {
    const r = await requestFor({ pay_within_minutes: 5 });
    const p = await openPayerPage(browser, w, VIEWPORTS[0]!, `?ct=${r.ct}`);
    try {
      await waitText(p, '#deadline', 'Pay within 5:00');
      w.clock.advance(4 * MINUTE);
      await p.page.clock.fastForward(4 * MINUTE);
      const txid = await pay(r, '10000000');
      await block(w, p.page);
      // Past the deadline the server holds the request open (a payment seen in time is confirming): the page asks no more.
      w.clock.advance(2 * MINUTE);
      await p.page.clock.fastForward(2 * MINUTE);
      expect((await call(w, 'GET', '/api/cashier/session', { token: r.ct, expect: 200 })).payment)
        .toMatchObject({ status: 'awaiting', confirming: '10000000', remaining: '25000000' });
      await pass(w, p.page, POLL_MS);
      await waitText(p, '#summary', 'The time to pay is over: do not send more. A payment of 10 USDT is being confirmed by the network.');
      await offersNothingToPay(p, r);
      expect(await transfersShown(p)).toEqual([['10 USDT', 'Being confirmed', txid]]);
      await clean(p, 'request-mobile-12-closing');
      await p.page.getByRole('button', { name: '简体中文' }).click();
      expect(await text(p, '#summary')).toBe('付款时间已过：请勿再付款。一笔 10 USDT 的付款正在等待网络确认。');
      await p.page.getByRole('button', { name: 'English' }).click();
      await untilPayment(p, r, (payment) => payment.status === 'expired');
      await waitText(p, '#summary', 'Expired: do not send more. Received 10 USDT of 25 USDT: contact the merchant.');
      await offersNothingToPay(p, r);
      expect(await transfersShown(p)).toEqual([['10 USDT', 'Confirmed', txid]]);
      await clean(p, 'request-mobile-13-expired-partial');
    } finally {
      await p.close();
    }
  });

  it('a confirming payment dropped by a reorg: listed as not counted, and the page asks for the whole amount again', async () => {
    const r = await requestFor({});
    const p = await openPayerPage(browser, w, VIEWPORTS[0]!, `?ct=${r.ct}`);
    try {
      await waitText(p, '#heading', 'Pay 25 USDT');
      const txid = await pay(r, '25000000');
      await block(w, p.page);
      await pass(w, p.page, POLL_MS);
      await waitText(p, '#summary', 'A payment of 25 USDT is being confirmed by the network. It covers the rest: do not send it again.');
      await offersNothingToPay(p, r);
      // The block that held it is replaced by a branch without it: the scanner marks the deposit reverted.
      w.dev.devnet.reorg(1, { keep: 'none' });
      await untilPayment(p, r, (payment) => payment.transfers[0]?.status === 'reverted' && payment.confirming === '0', 6);
      await waitText(p, '#summary', 'Send exactly 25 USDT to this address. This page updates by itself.');
      expect(await text(p, '#amount')).toBe('25 USDT');
      expect(await copiedAmount(p)).toEqual({ copied: '25', data: '25' });
      expect(await transfersShown(p)).toEqual([['25 USDT', 'Dropped by the network: not counted', txid]]);
      await clean(p, 'request-mobile-14-reverted');
    } finally {
      await p.close();
    }
  });

  it('paid, then the forward fails (a blacklisted sub-address): "Paid. Forwarding … did not finish", nothing offered to pay', async () => {
    const r = await requestFor({});
    const p = await openPayerPage(browser, w, VIEWPORTS[0]!, `?ct=${r.ct}`);
    try {
      await waitText(p, '#heading', 'Pay 25 USDT');
      // Tether's blacklist lets the payment in and makes the sweep out of the sub-address revert: FAILED before any spend.
      w.dev.devnet.setUsdtBlacklisted(r.sub);
      const txid = await pay(r, '25000000');
      await untilPayment(p, r, (payment, session) => payment.status === 'paid' && session.active_task?.status === 12);
      await waitText(p, '#summary', 'Paid. Forwarding to the merchant did not finish: the merchant will complete it. You need do nothing.');
      expect(await p.page.locator('[data-step="sweeping"]').getAttribute('class')).toBe('failed');
      await offersNothingToPay(p, r);
      expect(await transfersShown(p)).toEqual([['25 USDT', 'Confirmed', txid]]);
      await clean(p, 'request-mobile-11-forward-failed');
      await p.page.getByRole('button', { name: '简体中文' }).click();
      expect(await text(p, '#summary')).toBe('已付款。转交给商户未能完成，商户将会处理，您无需任何操作。');
      expect(await axeViolations(p.page)).toEqual([]);
    } finally {
      w.dev.devnet.setUsdtBlacklisted(r.sub, false);
      await p.close();
    }
  });

  it('an asset covered by auto_collect needs no press: the page says it is forwarded by itself, then shows the forwarding (issue #24)', async () => {
    const m = await newMerchant(w);
    await call(w, 'PUT', '/api/subscriptions/config', {
      token: m.session, body: { service_code: 'developer', config: { auto_collect: { USDT: { min_amount: '1000000', max_fee_sun: '100000000' } } } }, expect: 200,
    });
    const p = await openPayerPage(browser, w, VIEWPORTS[0]!, `?ct=${m.ct}`);
    try {
      await waitText(p, '#status', /^Waiting for your payment/);
      await w.dev.faucet.send(m.sub, 'USDT', '5000000');
      await block(w, p.page);
      await pass(w, p.page, POLL_MS);
      // Seen, not yet confirmed: the page says it is forwarded by itself and offers no button.
      await waitText(p, '#status', 'Received 5 USDT. It is forwarded to the merchant by itself: there is nothing to press.');
      expect(await p.page.locator('#collect').isHidden()).toBe(true);
      expect(await p.page.locator('#collect-hint').isHidden()).toBe(true);
      await clean(p, 'auto-collect-01-received');
      for (let i = 0; i < 60; i++) {
        await block(w, p.page);
        if ((await call(w, 'GET', '/api/cashier/session', { token: m.ct })).active_task !== null) break;
      }
      await pass(w, p.page, POLL_MS);
      await waitText(p, '#status', 'Your payment is being forwarded to the merchant.');
      await clean(p, 'auto-collect-02-forwarding');
    } finally {
      await p.close();
    }
  });
});
