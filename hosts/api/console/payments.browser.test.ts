import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations, call, chromiumFound, consoleOrigin, emailOf, gzipSizes, launchChromium, mailedCode, newMerchant, openConsole, PASSWORD,
  screenshot, shows, signIn, startWorld, type ConsoleTab, type Merchant, type World,
} from './console.browser-fixture.js';
import { enrol } from './console-team.browser-fixture.js';

/**
 * The console's Payments screen (issue #38 item 1) in Debian's chromium against the `npm start` stack: a payment
 * request created through the form gives its payer link and QR code; paid in two parts from the devnet faucet it shows
 * as paid without a reload; its detail has the timeline and the transfers with their txids; it is found by reference
 * and status; the owner refunds it (POST /transfers with refund_of); a viewer sees no create or refund and the API
 * refuses the viewer's writes; a bad input shows the API's own message.
 */
if (!chromiumFound) process.stdout.write(`\nSKIPPED: console browser suite (payments): no chromium at ${process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'} (apt-get install -y chromium)\n\n`);

describe.skipIf(!chromiumFound)('console payments in chromium', () => {
  let browser: Browser;
  let w: World;
  let owner: Merchant;
  let tab: ConsoleTab;
  let tokenNo: string;
  let sub: string;
  beforeAll(async () => {
    [browser, w] = await Promise.all([launchChromium(), startWorld()]);
    owner = await newMerchant(w);
    sub = (await call(w, 'POST', '/api/wallets', { token: owner.apiToken, body: { network_code: 'TRON', address_type: 2, address_label: 'Till 2' }, expect: 201 })).address as string;
    // A zone away from UTC, so that the page's local times and their UTC titles differ.
    tab = await openConsole(browser, w, { path: '#/payments', timezoneId: 'Asia/Shanghai' });
    await signIn(tab.page, await emailOf(w, owner));
  });
  afterAll(async () => {
    await browser?.close();
    await w?.dev.stop();
  });

  /** Mines and runs the worker until the request leaves `from` (a block is 3 s on the server's clock). */
  const mineUntilNot = async (no: string, from: string): Promise<string> => {
    for (let i = 0; i < 40; i++) {
      w.dev.devnet.mine(1);
      await w.dev.worker.tick();
      w.clock.advance(3_000);
      const status = (await call(w, 'GET', `/api/cashier/tokens/${no}`, { token: owner.apiToken })).payment.status as string;
      if (status !== from) return status;
    }
    throw new Error(`the request stayed ${from}`);
  };

  const main = (page: Page) => page.getByRole('main');

  it('creates a payment request through the form: the payer link and its QR code; a bad amount shows the API\'s message', async () => {
    const { page } = tab;
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Payments']);
    await page.getByRole('link', { name: 'New payment request' }).click();
    const form = main(page);
    await form.getByLabel('Address', { exact: true }).selectOption(sub);
    await form.getByLabel('Asset', { exact: true }).selectOption('USDT');
    // A bad input: nothing to pay. The API's own message is shown, as the API words it.
    await form.getByLabel('Amount', { exact: true }).fill('0');
    await form.getByLabel('Reference', { exact: true }).fill('Order 42');
    await form.getByRole('button', { name: 'Create payment request' }).click();
    const refused = await fetch(`${w.dev.url}/api/cashier/tokens`, {
      method: 'POST', headers: { authorization: `Bearer ${owner.apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ address: sub, amount: '0', asset_symbol: 'USDT', ttl_minutes: 60, reference: 'Order 42' }),
    });
    const apiError = (await refused.json()) as { code: string; message: string };
    expect(refused.status).toBe(422);
    await shows(page, form.getByRole('alert').filter({ hasText: apiError.message }));
    expect(await form.getByRole('alert').innerText()).toContain(apiError.code);

    await form.getByLabel('Amount', { exact: true }).fill('25');
    await form.getByLabel('Description', { exact: true }).fill('Two mugs');
    await form.getByRole('button', { name: 'Create payment request' }).click();
    const link = form.getByRole('link', { name: /\/cashier\?ct=ct_/ });
    await shows(page, link);
    // The result takes the focus, so that the keyboard and a screen reader go on from the link.
    await expect.poll(() => page.evaluate<string>('document.activeElement.textContent')).toBe('Payer link');
    const payerUrl = await link.getAttribute('href');
    expect(payerUrl).toMatch(new RegExp(`^${consoleOrigin(w)}/cashier\\?ct=ct_`));
    const qr = form.getByRole('img', { name: 'QR code of the payer link' });
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    expect(await qr.evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).complete && (img as unknown as { naturalWidth: number }).naturalWidth > 0)).toBe(true);
    // The payer link works: the payer page answers it.
    expect((await fetch(`${w.dev.url}${new URL(payerUrl!).pathname}${new URL(payerUrl!).search}`)).status).toBe(200);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'payments-create');
    await form.getByRole('link', { name: 'Open the request' }).click();
    tokenNo = decodeURIComponent(new URL(page.url()).hash.replace('#/payments/', ''));
    expect((await call(w, 'GET', `/api/cashier/tokens/${tokenNo}`, { token: owner.apiToken })).payment).toMatchObject({ amount: '25000000', reference: 'Order 42' });
  });

  it('a request paid in two parts on the devnet shows as paid in the list without a reload; its detail has the timeline and the txids', async () => {
    const { page } = tab;
    let loads = 0;
    page.on('load', () => { loads++; });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payments' }).click();
    const row = main(page).getByRole('row').filter({ hasText: 'Order 42' });
    await shows(page, row.getByText('awaiting'));
    const txids: string[] = [];
    for (const [part, after] of [['10000000', 'partially_paid'], ['15000000', 'paid']] as const) {
      await w.dev.faucet.send(sub, 'USDT', part);
      expect(await mineUntilNot(tokenNo, after === 'paid' ? 'partially_paid' : 'awaiting')).toBe(after);
    }
    await shows(page, row.getByRole('cell', { name: 'paid', exact: true }), 15_000);
    expect(await row.innerText()).toContain('25 USDT');
    expect(loads).toBe(0);
    for (const d of (await call(w, 'GET', `/api/deposits?address=${sub}`, { token: owner.apiToken })).items as { txid: string }[]) txids.push(d.txid);
    expect(txids).toHaveLength(2);

    await row.getByRole('link', { name: 'Order 42' }).focus();
    await page.keyboard.press('Enter');
    await shows(page, main(page).getByRole('heading', { name: 'Timeline' }));
    await expect.poll(() => page.evaluate<string>('document.activeElement.textContent')).toBe('Order 42');
    const timeline = main(page).locator('ol.timeline');
    await shows(page, timeline.getByText('Payment of 15 USDT confirmed'));
    expect(await timeline.getByText('Payment request created for 25 USDT').count()).toBe(1);
    expect(await timeline.getByText('Payment of 10 USDT seen').count()).toBe(1);
    const transfers = main(page).getByRole('region', { name: 'Transfers to the sub-address', exact: true }).first();
    for (const txid of txids) expect(await transfers.getByText(txid, { exact: true }).count()).toBe(1);
    // Times are the browser's (UTC+8 here), with UTC on hover; the deposits' wallet times ("YYYY-MM-DD HH:MM:SS") are UTC.
    const deposits = (await call(w, 'GET', `/api/deposits?address=${sub}`, { token: owner.apiToken })).items as { txid: string; detected_at: string }[];
    const seen = transfers.getByRole('row').filter({ hasText: deposits[0]!.txid }).locator('time').first();
    expect(await seen.getAttribute('title')).toBe(`${deposits[0]!.detected_at} UTC`);
    const local = new Date(Date.parse(`${deposits[0]!.detected_at.replace(' ', 'T')}Z`) + 8 * 3_600_000).toISOString();
    expect(await seen.innerText()).toBe(`${local.slice(8, 10)}/${local.slice(5, 7)}/${local.slice(0, 4)}, ${local.slice(11, 19)}`);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'payments-detail');
  });

  it('finds the request by reference and by status', async () => {
    const { page } = tab;
    await page.goto(`${consoleOrigin(w)}/console#/payments`);
    const search = main(page).getByRole('search', { name: 'Search payment requests' });
    await search.getByLabel('Reference', { exact: true }).fill('Order 42');
    await search.getByLabel('Status', { exact: true }).selectOption('paid');
    await search.getByRole('button', { name: 'Search' }).click();
    await shows(page, main(page).getByRole('row').filter({ hasText: 'Order 42' }));
    await expect.poll(() => main(page).getByRole('row').count()).toBe(2); // the header and the request
    await search.getByLabel('Status', { exact: true }).selectOption('expired');
    await search.getByRole('button', { name: 'Search' }).click();
    await shows(page, main(page).getByText('No payment request matches.'));
    await search.getByLabel('Reference', { exact: true }).fill('Order 43');
    await search.getByLabel('Status', { exact: true }).selectOption('');
    await search.getByRole('button', { name: 'Search' }).click();
    await shows(page, main(page).getByText('No payment request matches.'));
    await search.getByRole('button', { name: 'Clear' }).click();
    await shows(page, main(page).getByRole('row').filter({ hasText: 'Order 42' }));
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'payments');
  });

  it('the owner refunds part of it with POST /transfers refund_of; the refund shows under the request', async () => {
    const { page } = tab;
    const payer = await newMerchant(w);
    // The paid request is forwarded to the main address first (its sub-address is locked meanwhile).
    for (let i = 0; i < 60; i++) {
      const tasks = (await call(w, 'GET', `/api/collections?address=${sub}`, { token: owner.apiToken })).items as { status: number }[];
      if (tasks.length > 0 && tasks.every((task) => task.status === 11)) break;
      w.dev.devnet.mine(1);
      await w.dev.worker.tick();
      w.clock.advance(3_000);
    }
    const [forward] = (await call(w, 'GET', `/api/collections?address=${sub}`, { token: owner.apiToken })).items as { status: number; sweep_tx_hash: string }[];
    expect(forward!.status).toBe(11);
    await page.goto(`${consoleOrigin(w)}/console#/payments/${tokenNo}`);
    const forwards = main(page).getByRole('region', { name: 'Forwards to the main address', exact: true }).first();
    await shows(page, forwards.getByRole('row').filter({ hasText: 'DONE' }).filter({ hasText: '25 USDT' }).filter({ hasText: forward!.sweep_tx_hash }));
    const refund = main(page).getByRole('region', { name: 'Refund', exact: true });
    await shows(page, refund.getByText('Refundable now: 25 USDT'));
    await refund.getByLabel('Send to address', { exact: true }).fill(payer.sub);
    await refund.getByLabel('Amount', { exact: true }).fill('5');
    // A forwarded request is refunded from the main address, where its money went: the form's choice for it.
    const mainAddress = (await call(w, 'GET', '/api/wallets?type=1', { token: owner.apiToken })).items[0].address as string;
    expect(await refund.getByLabel('Send from', { exact: true }).inputValue()).toBe(mainAddress);
    await refund.getByRole('button', { name: 'Refund payment' }).click();
    await shows(page, refund.getByText(/^Refund requested: withdrawal \S+\.$/));
    const refunds = (await call(w, 'GET', `/api/cashier/tokens/${tokenNo}`, { token: owner.apiToken })).payment.refunds as { command_no: string; amount: string }[];
    expect(refunds).toMatchObject([{ amount: '5000000' }]);
    await shows(page, main(page).getByRole('region', { name: 'Refunds', exact: true }).first().getByText(refunds[0]!.command_no));
    await shows(page, refund.getByText('Refundable now: 20 USDT'));
    // Asking for more than is left: the API's message.
    await refund.getByLabel('Amount', { exact: true }).fill('21');
    await refund.getByRole('button', { name: 'Refund payment' }).click();
    await shows(page, refund.getByRole('alert').filter({ hasText: 'REFUND-EXCEEDS-RECEIVED' }));
    expect(await refund.getByRole('alert').innerText()).toContain('at most 20000000 is left to refund');
    expect(tab.errors).toEqual([]);
  });

  it('a viewer sees the requests but no create or refund, and the API refuses the viewer\'s writes', async () => {
    const viewerEmail = 'payments-viewer@example.com';
    await call(w, 'POST', '/api/members', { token: owner.session, body: { email: viewerEmail, role: 'viewer' }, expect: 201 });
    const code = mailedCode(w, viewerEmail, (e) => new RegExp(`invitation code for ${e}: (\\S+)`));
    await call(w, 'POST', '/api/auth/register', { body: { email: viewerEmail, password: PASSWORD, invitation_code: code } });
    const t = await openConsole(browser, w, { path: '#/payments', width: 360 });
    try {
      const { page } = t;
      await signIn(page, viewerEmail);
      await shows(page, main(page).getByRole('row').filter({ hasText: 'Order 42' }));
      expect(await main(page).getByRole('link', { name: 'New payment request' }).count()).toBe(0);
      // At 360 px the page does not scroll sideways; wide tables scroll inside their region.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'payments-viewer-360');
      await main(page).getByRole('link', { name: 'Order 42' }).click();
      await shows(page, main(page).getByRole('heading', { name: 'Timeline' }));
      expect(await main(page).getByRole('heading', { name: 'Refund', exact: true }).count()).toBe(0);
      expect(await main(page).getByRole('button', { name: 'Refund payment' }).count()).toBe(0);
      await page.goto(`${consoleOrigin(w)}/console#/payments/new`);
      await shows(page, main(page).getByRole('alert').filter({ hasText: 'Your role may not use this screen.' }));
      // The API refuses what the console hides.
      const cookie = (await t.context.cookies()).find((c) => c.name === 'ch_console')!.value;
      const post = (path: string, body: unknown) => fetch(`${w.dev.url}${path}`, {
        method: 'POST', body: JSON.stringify(body),
        headers: { cookie: `ch_console=${cookie}`, 'x-console': '1', 'sec-fetch-site': 'same-origin', 'content-type': 'application/json', 'idempotency-key': 'viewer-1' },
      });
      for (const [path, body] of [
        ['/api/cashier/tokens', { address: sub, amount: '1000000', asset_symbol: 'USDT' }],
        ['/api/transfers', { from_address: sub, to_address: owner.sub, asset_symbol: 'USDT', amount: '1000000', refund_of: tokenNo }],
      ] as const) {
        const res = await post(path, body);
        expect(res.status, path).toBe(403);
        expect(await res.json()).toMatchObject({ code: 'TEAM-ROLE-FORBIDDEN' });
      }
      expect(t.errors).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('with two-factor on, a refund asks for the authentication code in the step-up dialog and is then accepted', async () => {
    const { page } = tab;
    // A request paid in part, not forwarded: its refund leaves its own sub-address (the form's choice for it).
    const till = (await call(w, 'POST', '/api/wallets', { token: owner.apiToken, body: { network_code: 'TRON', address_type: 2 }, expect: 201 })).address as string;
    const partial = await call(w, 'POST', '/api/cashier/tokens', {
      token: owner.apiToken, body: { address: till, amount: '10000000', asset_symbol: 'USDT', reference: 'Order 44' }, expect: 201,
    });
    await w.dev.faucet.send(till, 'USDT', '4000000');
    expect(await mineUntilNot(partial.token_no as string, 'awaiting')).toBe('partially_paid');
    const code = await enrol(w, owner.session);
    w.clock.advance(61_000);
    await page.goto(`${consoleOrigin(w)}/console#/payments/${partial.token_no}`);
    await page.reload();
    await shows(page, page.getByRole('heading', { level: 1 }));
    if (await page.getByRole('heading', { level: 1, name: 'Sign in' }).isVisible()) await signIn(page, await emailOf(w, owner), PASSWORD, code());
    const refund = main(page).getByRole('region', { name: 'Refund', exact: true });
    await shows(page, refund.getByText('Refundable now: 4 USDT'));
    expect(await refund.getByLabel('Send from', { exact: true }).inputValue()).toBe(till);
    await refund.getByLabel('Send to address', { exact: true }).fill(owner.sub);
    await refund.getByLabel('Amount', { exact: true }).fill('1');
    await refund.getByRole('button', { name: 'Refund payment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm with your authentication code' });
    await shows(page, dialog);
    await dialog.getByLabel('Authentication code', { exact: true }).fill(code());
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await shows(page, refund.getByText(/^Refund requested: withdrawal \S+\.$/));
    const refunds = (await call(w, 'GET', `/api/cashier/tokens/${partial.token_no}`, { token: owner.apiToken })).payment.refunds as { amount: string; command_no: string }[];
    expect(refunds.map((r) => r.amount)).toEqual(['1000000']);
    expect(await refund.getByRole('status').innerText()).toBe(`Refund requested: withdrawal ${refunds[0]!.command_no}.`);
    expect(tab.errors).toEqual([]);
  });

  it('Payments\' own script stays small: its modules\' gzip size', async () => {
    const sizes = await gzipSizes(tab.scripts.filter((u) => /screens\/(payments|money-parts)\.js$/.test(u)), w);
    const total = [...sizes.values()].reduce((a, b) => a + b, 0);
    process.stdout.write(`payments screen script: ${[...sizes].map(([p, n]) => `${p} ${n} B`).join(', ')} (gzip)\n`);
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThan(20 * 1024);
  });
});
