import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations, call, chromiumFound, emailOf, launchChromium, newMerchant, openConsole, screenshot, signIn, startWorld, type ConsoleTab,
  type Merchant, type World,
} from './console.browser-fixture.js';

/** A local day as the date field takes it (the browser and this process share the zone). */
const dayOf = (date: Date): string => `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;

/**
 * The console's Books screen (issue #38) against the `npm start` stack: a confirmed USDT deposit appears in the
 * statement for the month and among the entries; the statement's CSV downloads and parses with the deposit's amount;
 * the reconciliation is read on demand; a period whose start is after its end shows the API's message. Every role may
 * read the books: a viewer sees the screen too.
 */
if (!chromiumFound) process.stdout.write(`\nSKIPPED: console browser suite (books): no chromium at ${process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'} (apt-get install -y chromium)\n\n`);

describe.skipIf(!chromiumFound)('console books in chromium', () => {
  let browser: Browser;
  let w: World;
  let m: Merchant;
  let tab: ConsoleTab;
  beforeAll(async () => {
    [browser, w] = await Promise.all([launchChromium(), startWorld()]);
    m = await newMerchant(w);
    await w.dev.faucet.send(m.sub, 'USDT', '25000000');
    for (let i = 0; i < 40; i++) {
      w.dev.devnet.mine(1);
      await w.dev.worker.tick();
      w.clock.advance(3_000);
      const totals = (await call(w, 'GET', '/api/ledger/balances', { token: m.apiToken })).totals as { asset_symbol: string; balance: string }[];
      if (totals.some((t) => t.asset_symbol === 'USDT' && t.balance === '25000000')) break;
    }
    tab = await openConsole(browser, w, { path: '#/books' });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await w?.dev.stop();
  });

  it('shows the statement and the entries of a confirmed deposit; the statement CSV downloads and parses; the reconciliation reads the chain', { timeout: 60_000 }, async () => {
    const { page } = tab;
    await signIn(page, await emailOf(w, m));
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Books']);
    await page.getByLabel('Asset', { exact: true }).selectOption('USDT');
    await page.getByRole('button', { name: 'Show statement' }).click();
    const statement = page.getByRole('region', { name: 'Statement' });
    await statement.getByRole('row').filter({ hasText: 'USDT' }).waitFor();
    expect(await statement.getByRole('row').filter({ hasText: 'USDT' }).getByRole('cell').allInnerTexts()).toEqual([
      'USDT', '0 USDT', '25 USDT', '0 USDT', '0 USDT', '0 USDT', '25 USDT', '0 USDT',
    ]);
    // Every account kind the books keep can be chosen, the stake's and the rental provider's among them.
    expect(await page.getByLabel('Account', { exact: true }).locator('option').allInnerTexts()).toEqual(expect.arrayContaining([
      'staked', 'unstaking', 'energy provider (prepaid)',
    ]));
    // The entries: the deposit from outside into the sub-address.
    const entries = page.getByRole('region', { name: 'Entries' });
    await entries.getByRole('row').filter({ hasText: m.sub }).waitFor();
    expect(await entries.getByRole('row').filter({ hasText: m.sub }).getByText('25 USDT').count()).toBeGreaterThan(0);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download statement CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^statement-\d{4}-\d{2}-01-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows).toEqual([expect.objectContaining({ asset_symbol: 'USDT', opening: '0', received: '25000000', closing: '25000000' })]);

    await page.getByRole('button', { name: 'Check the books against the chain' }).click();
    await page.getByText(/\d+ matched, \d+ explained, \d+ unsettled, \d+ discrepancies/).waitFor({ timeout: 20_000 });
    expect(await page.getByRole('region', { name: 'Reconciliation' }).getByRole('row').filter({ hasText: m.sub }).count()).toBeGreaterThan(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'books');
    expect(tab.errors).toEqual([]);
  });

  it('a period whose start is after its end shows the API\'s message; at 360 px the screen stays usable', { timeout: 30_000 }, async () => {
    const { page } = tab;
    await page.setViewportSize({ width: 360, height: 800 });
    const today = new Date();
    await page.getByLabel('From', { exact: true }).fill(dayOf(new Date(today.getFullYear(), today.getMonth(), today.getDate() + 2)));
    await page.getByLabel('To', { exact: true }).fill(dayOf(today));
    await page.getByRole('button', { name: 'Show statement' }).click();
    await page.getByRole('alert').filter({ hasText: 'from' }).filter({ hasText: 'must not be after to' }).waitFor();
    // Nothing sticks out sideways: the page is no wider than the phone.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(await axeViolations(page)).toEqual([]);
    // In Simplified Chinese: the screen's own texts.
    await page.getByRole('button', { name: '简体中文' }).click();
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['账簿']);
    for (const name of ['对账单', '分录', '对账']) await page.getByRole('heading', { level: 2, name, exact: true }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'English' }).click();
  });

  it('a viewer reads the books too', { timeout: 30_000 }, async () => {
    await call(w, 'POST', '/api/members', { token: m.session, body: { email: 'books-viewer@example.com', role: 'viewer' }, expect: 201 });
    const code = w.output.map((l) => /invitation code for books-viewer@example\.com: (\S+)/.exec(l)?.[1]).filter(Boolean).at(-1)!;
    await call(w, 'POST', '/api/auth/register', { body: { email: 'books-viewer@example.com', password: 'correct horse battery staple', invitation_code: code }, expect: 201 });
    const viewer = await openConsole(browser, w, { path: '#/books' });
    try {
      await signIn(viewer.page, 'books-viewer@example.com');
      await viewer.page.getByRole('region', { name: 'Entries' }).getByRole('row').filter({ hasText: m.sub }).waitFor();
    } finally {
      await viewer.close();
    }
  });
});
