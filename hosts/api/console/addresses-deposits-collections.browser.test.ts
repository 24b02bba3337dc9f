import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations, call, chromiumFound, consoleOrigin, emailOf, gzipSizes, launchChromium, mailedCode, newMerchant, openConsole, PASSWORD,
  screenshot, shows, signIn, startWorld, type ConsoleTab, type Merchant, type World,
} from './console.browser-fixture.js';

/**
 * The console's Addresses, Deposits and Collections screens (issue #38 item 1) in Debian's chromium against the `npm
 * start` stack: addresses with their balances and creating one (the plan's quota refused with the API's message); a
 * devnet deposit appearing without a reload, with its txid, state and link to its address; a collection with its cost
 * from the receipts; a viewer reads all three and creates nothing.
 */
if (!chromiumFound) process.stdout.write(`\nSKIPPED: console browser suite (addresses-deposits-collections): no chromium at ${process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'} (apt-get install -y chromium)\n\n`);

describe.skipIf(!chromiumFound)('console addresses, deposits and collections in chromium', () => {
  let browser: Browser;
  let w: World;
  let owner: Merchant;
  let tab: ConsoleTab;
  let depositTxid: string;
  beforeAll(async () => {
    [browser, w] = await Promise.all([launchChromium(), startWorld()]);
    owner = await newMerchant(w, { label: 'Till 1' });
    tab = await openConsole(browser, w, { path: '#/addresses', timezoneId: 'America/New_York' });
    await signIn(tab.page, await emailOf(w, owner));
  });
  afterAll(async () => {
    await browser?.close();
    await w?.dev.stop();
  });

  const main = (page: Page) => page.getByRole('main');
  /** A fresh minute of the API's per-caller read limit (60 GETs a minute, on the server's clock). */
  const nextMinute = () => w.clock.advance(61_000);
  const block = async () => {
    w.dev.devnet.mine(1);
    await w.dev.worker.tick();
    w.clock.advance(3_000);
  };

  it('Addresses: the main and sub-addresses with their balances; a sub-address created through the form; the plan\'s quota refused with the API\'s message', async () => {
    const { page } = tab;
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Addresses']);
    const list = main(page).getByRole('region', { name: 'Addresses', exact: true });
    await shows(page, list.getByRole('row').filter({ hasText: 'Till 1' }).filter({ hasText: owner.sub }).filter({ hasText: 'Sub-address' }));
    expect(await list.getByRole('row').filter({ hasText: 'Main address' }).count()).toBe(1);
    const create = main(page).getByRole('region', { name: 'New address', exact: true });
    await create.getByLabel('Label', { exact: true }).fill('Shop B');
    await create.getByRole('button', { name: 'Create address' }).click();
    await shows(page, create.getByRole('status').filter({ hasText: /^Address T\w+ created\.$/ }));
    const shopB = (await call(w, 'GET', '/api/wallets?type=2', { token: owner.apiToken })).items.find((x: { address_label: string | null }) => x.address_label === 'Shop B');
    expect(shopB).toMatchObject({ address_type: 2, status: 1 });
    await shows(page, list.getByRole('row').filter({ hasText: 'Shop B' }).filter({ hasText: shopB.address }));
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'addresses');

    // The starter plan's 10 sub-addresses: 2 made, 8 more, then the form's is refused with the API's own words.
    for (let i = 0; i < 8; i++) await call(w, 'POST', '/api/wallets', { token: owner.apiToken, body: { network_code: 'TRON', address_type: 2 }, expect: 201 });
    const refused = await fetch(`${w.dev.url}/api/wallets`, {
      method: 'POST', headers: { authorization: `Bearer ${owner.apiToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ network_code: 'TRON', address_type: 2 }),
    });
    const apiError = (await refused.json()) as { code: string; message: string };
    expect(apiError.code).toBe('BIZ-SUB-ADDRESS-QUOTA-EXCEEDED');
    await create.getByRole('button', { name: 'Create address' }).click();
    await shows(page, create.getByRole('alert').filter({ hasText: apiError.message }).filter({ hasText: apiError.code }));
  });

  it('Deposits: a devnet payment appears without a reload, pending then confirmed, with its txid and a link to its address; times local with UTC on hover', async () => {
    const { page } = tab;
    nextMinute();
    let loads = 0;
    page.on('load', () => { loads++; });
    // From the address's row, its deposits.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Addresses' }).click();
    await main(page).getByRole('row').filter({ hasText: 'Till 1' }).getByRole('link', { name: 'Deposits' }).click();
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Deposits']);
    const filters = main(page).getByRole('search', { name: 'Filter deposits' });
    expect(await filters.getByLabel('Address', { exact: true }).inputValue()).toBe(owner.sub);
    await shows(page, main(page).getByText('Nothing here yet.').or(main(page).getByText('No deposit matches.')));

    await w.dev.faucet.send(owner.sub, 'USDT', '7000000');
    await block();
    const row = main(page).getByRole('row').filter({ hasText: '7 USDT' });
    await shows(page, row, 15_000);
    let deposit = (await call(w, 'GET', `/api/deposits?address=${owner.sub}`, { token: owner.apiToken })).items[0];
    depositTxid = deposit.txid as string;
    expect(await row.innerText()).toContain(depositTxid);
    for (let i = 0; i < 40 && deposit.status !== 'confirmed'; i++) {
      await block();
      deposit = (await call(w, 'GET', `/api/deposits?address=${owner.sub}`, { token: owner.apiToken })).items[0];
    }
    expect(deposit.status).toBe('confirmed');
    nextMinute();
    await shows(page, row.getByText('confirmed', { exact: true }), 15_000);
    expect(loads).toBe(0);
    // The wallet routes' times are UTC: shown in New York's time, with UTC on hover.
    const seen = row.locator('time').first();
    expect(await seen.getAttribute('title')).toBe(`${deposit.detected_at} UTC`);
    const local = new Date(Date.parse(`${deposit.detected_at.replace(' ', 'T')}Z`)).toLocaleString('en-GB', { timeZone: 'America/New_York', hour12: false });
    expect(await seen.innerText()).toBe(local);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'deposits');

    // Filters: a status with none; then the link to the address, with its balance.
    await filters.getByLabel('Status', { exact: true }).selectOption('reverted');
    await filters.getByRole('button', { name: 'Search' }).click();
    await shows(page, main(page).getByText('No deposit matches.'));
    await filters.getByRole('button', { name: 'Clear' }).click();
    await row.getByRole('link', { name: owner.sub }).click();
    await shows(page, main(page).getByRole('heading', { name: 'Till 1' }));
    await shows(page, main(page).getByRole('region', { name: 'Balances', exact: true }).first().getByRole('row').filter({ hasText: 'USDT' }).filter({ hasText: '7 USDT' }));
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'addresses-detail');
  });

  it('Collections: a sweep with its cost from the receipts, in the list and on its page', async () => {
    const { page } = tab;
    const task = await call(w, 'POST', '/api/collections', { token: owner.apiToken, body: { address: owner.sub, asset_symbol: 'USDT' }, expect: 201 });
    let status = 0;
    for (let i = 0; i < 60 && status !== 11 && status !== 12; i++) {
      await block();
      status = (await call(w, 'GET', `/api/collections/${task.task_no}`, { token: owner.apiToken })).status as number;
    }
    expect(status).toBe(11);
    const cost = await call(w, 'GET', `/api/collections/${task.task_no}/costs`, { token: owner.apiToken });
    expect(cost.final).toBe(true);
    nextMinute();
    await page.goto(`${consoleOrigin(w)}/console#/collections`);
    const row = main(page).getByRole('row').filter({ hasText: task.task_no });
    await shows(page, row.filter({ hasText: 'DONE' }).filter({ hasText: '7 USDT' }));
    const trx = (sun: string) => `${BigInt(sun) / 1_000_000n}.${(BigInt(sun) % 1_000_000n).toString().padStart(6, '0')}`.replace(/\.?0+$/, '');
    await shows(page, row.getByText(`${trx(cost.cost.total_sun)} TRX (final)`));
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'collections');

    const filters = main(page).getByRole('search', { name: 'Filter collections' });
    await filters.getByLabel('Status', { exact: true }).selectOption('12');
    await filters.getByRole('button', { name: 'Search' }).click();
    await shows(page, main(page).getByText('No collection matches.'));
    await filters.getByRole('button', { name: 'Clear' }).click();

    await row.getByRole('link', { name: task.task_no }).click();
    await shows(page, main(page).getByRole('heading', { name: `Collection task ${task.task_no}` }));
    const parts = main(page).getByRole('region', { name: 'Cost', exact: true }).first();
    await shows(page, parts.getByRole('row').filter({ hasText: 'Total spent' }).filter({ hasText: `${trx(cost.cost.total_sun)} TRX` }));
    for (const txid of cost.cost.txids as string[]) expect(await main(page).getByText(txid, { exact: true }).count()).toBeGreaterThan(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'collections-detail');
    expect(tab.errors).toEqual([]);
  });

  it('a viewer reads addresses, deposits and collections at 360 px, sees no create, and the API refuses the viewer\'s POST /wallets', async () => {
    nextMinute();
    const viewerEmail = 'addresses-viewer@example.com';
    await call(w, 'POST', '/api/members', { token: owner.session, body: { email: viewerEmail, role: 'viewer' }, expect: 201 });
    const code = mailedCode(w, viewerEmail, (e) => new RegExp(`invitation code for ${e}: (\\S+)`));
    await call(w, 'POST', '/api/auth/register', { body: { email: viewerEmail, password: PASSWORD, invitation_code: code } });
    const t = await openConsole(browser, w, { path: '#/addresses', width: 360 });
    try {
      const { page } = t;
      await signIn(page, viewerEmail);
      // In Simplified Chinese, chosen with the switch.
      await page.getByRole('button', { name: '简体中文' }).click();
      await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['地址']);
      await shows(page, main(page).getByRole('row').filter({ hasText: 'Till 1' }).filter({ hasText: '子地址' }));
      expect(await main(page).getByRole('region', { name: '新建地址' }).count()).toBe(0);
      expect(await main(page).getByRole('button', { name: '创建地址' }).count()).toBe(0);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'addresses-viewer-zh-360');
      for (const [name, text] of [['充值', depositTxid], ['归集', 'DONE']] as const) {
        await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name, exact: true }).click();
        await shows(page, main(page).getByRole('row').filter({ hasText: text }));
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
        expect(await axeViolations(page), name).toEqual([]);
      }
      const cookie = (await t.context.cookies()).find((c) => c.name === 'ch_console')!.value;
      const res = await fetch(`${w.dev.url}/api/wallets`, {
        method: 'POST', body: JSON.stringify({ network_code: 'TRON', address_type: 2 }),
        headers: { cookie: `ch_console=${cookie}`, 'x-console': '1', 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'TEAM-ROLE-FORBIDDEN' });
      expect(t.errors).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('each screen\'s own script, gzip', async () => {
    const sizes = await gzipSizes(tab.scripts.filter((u) => /screens\/(addresses|deposits|collections|money-parts)\.js$/.test(u)), w);
    process.stdout.write(`screen scripts: ${[...sizes].map(([p, n]) => `${p} ${n} B`).join(', ')} (gzip)\n`);
    expect(sizes.size).toBe(4);
    for (const n of sizes.values()) expect(n).toBeLessThan(10 * 1024);
  });
});
