import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations, chromiumFound, launchChromium, mailedCode, openConsole, PASSWORD, screenshot, shows, signIn, startWorld, type ConsoleTab,
  type World,
} from './console.browser-fixture.js';
import { codesOf, consoleCookie, type CodeSource } from './console-team.browser-fixture.js';

const USDT = 1_000_000n;
const COMMAND_SUCCEEDED = 3;
const DONE_TASK = 11;

/**
 * Issue #38 "Done means", the end-to-end tour through the `npm start` stack (hosts/dev on a manual clock, blocks mined by
 * the test) in Debian's chromium, one world for the whole file: a new merchant signs up through the console (register and
 * the mailed code), turns 2FA on (Security), makes a main and a sub-address (Addresses) and a payment request (Payments),
 * which the faucet pays in two parts; the request shows as paid and forwarded without a reload; the statement's CSV and
 * the entries' CSV (Books) hold the payment, and the books match the chain; the owner invites an approver and an
 * operator (Security), who accept in their own browser contexts (the approver enrols 2FA); the operator asks for a
 * withdrawal above the approval threshold (Withdrawals), the approver approves it with a step-up code in a second
 * context, it is paid (shown without a reload), and the audit log (Security) names both members. Screenshots:
 * test-artifacts/console-tour-*.png. The pages poll on their own timers; the test only makes those run sooner
 * (playwright's clock).
 *
 * The plans are activated on the Dashboard, which a new account without API access lands on.
 */
if (!chromiumFound) process.stdout.write(`\nSKIPPED: console browser suite (tour): no chromium at ${process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'} (apt-get install -y chromium)\n\n`);

describe.skipIf(!chromiumFound)('the console tour in chromium through npm start', () => {
  let browser: Browser;
  let w: World;
  let owner: ConsoleTab;
  let ownerCode: CodeSource;
  let approverCode: CodeSource;
  let approver: ConsoleTab;
  let operator: ConsoleTab;
  let main: string;
  let sub: string;
  let tokenNo: string;
  let commandNo: string;
  const ownerEmail = 'tour-owner@shop.example';
  const approverEmail = 'tour-approver@shop.example';
  const operatorEmail = 'tour-operator@shop.example';
  const started = Date.now();
  const laps: string[] = [];
  const lap = (what: string): void => { laps.push(`${what} ${Date.now() - started} ms`); };

  beforeAll(async () => {
    [browser, w] = await Promise.all([launchChromium(), startWorld()]);
  }, 60_000);
  afterAll(async () => {
    process.stdout.write(`console tour: ${laps.join(', ')}\n`);
    await browser?.close();
    await w?.dev.stop();
  });

  const nav = (page: Page, screen: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: screen, exact: true }).click();
  const heading = (page: Page, name: string) => expect.poll(() => page.locator('h1').allInnerTexts()).toEqual([name]);
  /** Answers the step-up dialog with a fresh code. */
  const stepUp = async (page: Page, code: CodeSource): Promise<void> => {
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Authentication code').fill(code());
    await dialog.getByRole('button', { name: 'Confirm' }).click();
  };
  /** One block: the devnet mines, the worker runs a pass, 3 s go by on the server's clock. */
  const block = async (): Promise<void> => {
    w.dev.devnet.mine(1);
    await w.dev.worker.tick();
    w.clock.advance(3_000);
  };
  /** Blocks until `done` holds (the pages are not touched: they poll by themselves). */
  const blocksUntil = async (what: string, done: () => Promise<boolean>, most = 60): Promise<void> => {
    for (let i = 0; i < most; i++) {
      await block();
      if (await done()) return;
    }
    throw new Error(`${what} did not happen within ${most} blocks`);
  };
  /** The page's poll timers run now (its clock jumps), so that what the server holds shows without waiting. */
  const polls = (page: Page, ms = 10_000) => page.clock.fastForward(ms);
  /** A read beside the page, with the tab's own cookie (as a background poll: it does not keep the session alive). */
  const read = async (tab: ConsoleTab, path: string): Promise<any> => {
    const res = await fetch(`${w.dev.url}/api${path}`, {
      headers: { cookie: `ch_console=${await consoleCookie(tab.context)}`, 'x-console': '1', 'x-console-poll': '1', 'sec-fetch-site': 'same-origin' },
    });
    const json = (await res.json()) as { code: string; message: string; data: unknown };
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${json.code} ${json.message}`);
    return json.data;
  };
  /** A mailed invitation accepted through the sign-in page's form, then signed in. */
  const accept = async (tab: ConsoleTab, email: string): Promise<void> => {
    const { page } = tab;
    await page.getByRole('button', { name: 'Accept a team invitation' }).click();
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Invitation code', { exact: true }).fill(mailedCode(w, email, (e) => new RegExp(`invitation code for ${e.replace(/[.+]/g, '\\$&')}: (\\S+)`)));
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await shows(page, page.getByText('You joined the team. Sign in now.'));
    await signIn(page, email);
  };

  it('signs up through the console: register, the mailed code, sign in', { timeout: 30_000 }, async () => {
    owner = await openConsole(browser, w);
    const { page } = owner;
    await page.clock.install();
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByLabel('Email', { exact: true }).fill(ownerEmail);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await shows(page, page.getByText(`We sent a code to ${ownerEmail}.`));
    await page.getByLabel('Verification code', { exact: true }).fill(mailedCode(w, ownerEmail, (e) => new RegExp(`verification code for ${e.replace(/[.+]/g, '\\$&')}: (\\d{6})`)));
    await page.getByRole('button', { name: 'Verify e-mail' }).click();
    await shows(page, page.getByText('Your e-mail is verified. Sign in now.'));
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'tour-signed-up');
    await signIn(page, ownerEmail);
    await heading(page, 'Dashboard');
    expect(await page.getByText(`Signed in as ${ownerEmail} (owner)`).count()).toBe(1);
    // A new account has no API access: the Dashboard offers the plans (POST /subscriptions/activate), then reloads.
    await page.getByRole('heading', { name: 'Start receiving payments' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'tour-plans');
    await page.getByLabel('Sub-address plan').selectOption('starter');
    await page.getByRole('button', { name: 'Activate the plans' }).click();
    await page.getByRole('heading', { name: 'Balances' }).waitFor();
    expect((await read(owner, '/subscriptions/config/developer')).status).toBe('active');
    lap('signed up');
  });

  it('turns 2FA on (Security), makes a main and a sub-address (Addresses) and a payment request (Payments)', { timeout: 60_000 }, async () => {
    const { page } = owner;
    await nav(page, 'Security');
    await heading(page, 'Security');
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    ownerCode = codesOf(w, (await page.locator('code.secret').innerText()).trim());
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Authentication code', { exact: true }).fill(ownerCode());
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    // The codes appear once the API has answered: wait for them (counting at once raced the answer under load).
    await page.locator('ul.codes li').first().waitFor();
    expect(await page.locator('ul.codes li').count()).toBe(10);
    await screenshot(page, 'tour-two-factor');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await shows(page, page.getByText(`Two-factor authentication is on for ${ownerEmail}.`));

    await nav(page, 'Addresses');
    await heading(page, 'Addresses');
    for (const [type, label] of [['1', 'Main address'], ['2', 'Sub-address']] as const) {
      await page.getByLabel('Type', { exact: true }).first().selectOption(type);
      if (type === '2') await page.getByLabel('Label', { exact: true }).fill('Tour till');
      await page.getByRole('button', { name: 'Create address' }).click();
      const created = page.getByText(/^Address T\w+ created\.$/);
      await shows(page, created);
      const address = /Address (T\w+) created\./.exec(await created.innerText())![1]!;
      if (type === '1') main = address; else sub = address;
      await shows(page, page.getByRole('row').filter({ hasText: address }).getByText(label));
    }

    await nav(page, 'Payments');
    await heading(page, 'Payments');
    await page.getByRole('link', { name: 'New payment request' }).click();
    const form = page.getByRole('main');
    await form.getByLabel('Address', { exact: true }).selectOption(sub);
    await form.getByLabel('Asset', { exact: true }).selectOption('USDT');
    await form.getByLabel('Amount', { exact: true }).fill('25');
    await form.getByLabel('Reference', { exact: true }).fill('Tour order 1');
    await form.getByRole('button', { name: 'Create payment request' }).click();
    await shows(page, form.getByRole('link', { name: /\/cashier\?ct=ct_/ }));
    await screenshot(page, 'tour-payment-request');
    await form.getByRole('link', { name: 'Open the request' }).click();
    tokenNo = decodeURIComponent(new URL(page.url()).hash.replace('#/payments/', ''));
    expect(tokenNo).not.toBe('');
    lap('request made');
  });

  it('the faucet pays it in two parts; it shows paid and forwarded without a reload', { timeout: 90_000 }, async () => {
    const { page } = owner;
    let loads = 0;
    page.on('load', () => { loads++; });
    await shows(page, page.getByRole('heading', { name: 'Timeline' }));
    const status = async (): Promise<string> => (await read(owner, `/cashier/tokens/${tokenNo}`)).payment.status as string;
    await w.dev.faucet.send(sub, 'USDT', String(10n * USDT));
    await blocksUntil('partially paid', async () => (await status()) === 'partially_paid');
    await polls(page);
    await shows(page, page.getByText('Payment of 10 USDT confirmed'));
    await w.dev.faucet.send(sub, 'USDT', String(15n * USDT));
    await blocksUntil('paid', async () => (await status()) === 'paid');
    const forwarded = async (): Promise<{ status: number; sweep_tx_hash: string } | undefined> => {
      const tasks = (await read(owner, `/collections?address=${sub}`)).items as { status: number; sweep_tx_hash: string }[];
      return tasks.find((t) => t.status === DONE_TASK);
    };
    await blocksUntil('forwarded', async () => (await forwarded()) !== undefined);
    const forward = (await forwarded())!;
    await polls(page);
    const forwards = page.getByRole('region', { name: 'Forwards to the main address', exact: true }).first();
    await shows(page, forwards.getByRole('row').filter({ hasText: 'DONE' }).filter({ hasText: '25 USDT' }).filter({ hasText: forward.sweep_tx_hash }), 15_000);
    await shows(page, page.getByText('Payment of 15 USDT confirmed'));
    expect(loads).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'tour-paid-forwarded');
    lap('paid and forwarded');
  });


  it('downloads the statement\'s CSV and the entries\' CSV (Books): the payment is in both', { timeout: 60_000 }, async () => {
    const { page } = owner;
    await nav(page, 'Books');
    await heading(page, 'Books');
    await page.getByLabel('Asset', { exact: true }).selectOption('USDT');
    await page.getByRole('button', { name: 'Show statement' }).click();
    await shows(page, page.getByRole('region', { name: 'Statement' }).getByRole('row').filter({ hasText: 'USDT' }));
    const csvOf = async (button: string): Promise<Record<string, string>[]> => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
      return parse(readFileSync((await download.path())!, 'utf8'), { columns: true }) as Record<string, string>[];
    };
    // The statement: the 25 USDT received, all of it now on the main address (the forward is inside the books).
    expect(await csvOf('Download statement CSV')).toEqual([expect.objectContaining({
      asset_symbol: 'USDT', opening: '0', received: String(25n * USDT), sent: '0', closing: String(25n * USDT),
    })]);
    // The entries: each part of the payment, by its chain transaction, into the request's sub-address, then forwarded.
    const txids = ((await read(owner, `/deposits?address=${sub}`)).items as { txid: string }[]).map((d) => d.txid);
    expect(txids).toHaveLength(2);
    const entries = await csvOf('Download entries CSV');
    const parts = entries.filter((e) => e['kind'] === 'deposit' && e['account.kind'] === 'custodial' && e['account.address'] === sub);
    expect(parts.map((e) => [e['cause.txid'], e['amount']]).sort()).toEqual(
      [[txids[0], expect.any(String)], [txids[1], expect.any(String)]].sort(),
    );
    expect(parts.map((e) => BigInt(e['amount']!)).reduce((a, b) => a + b, 0n)).toBe(25n * USDT);
    expect(entries.some((e) => e['kind'] === 'collection' && e['account.address'] === main && e['account.asset_symbol'] === 'USDT' && e['amount'] === String(25n * USDT))).toBe(true);
    // The books against the chain: nothing in discrepancy (npm start's main-address TRX is a real, booked transfer).
    await page.getByRole('button', { name: 'Check the books against the chain' }).click();
    await shows(page, page.getByText(/\d+ matched, \d+ explained, \d+ unsettled, 0 discrepancies/), 20_000);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'tour-books');
    lap('books');
  });

  it('invites an approver and an operator (Security); they accept in their own contexts, the approver with 2FA', { timeout: 90_000 }, async () => {
    const { page } = owner;
    await nav(page, 'Security');
    await heading(page, 'Security');
    // A tightening, at once: withdrawals above 5 TRX wait for a person.
    await page.getByLabel('Approval above (TRX)', { exact: true }).fill('5');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await stepUp(page, ownerCode);
    await shows(page, page.getByText('Policy saved.'));
    for (const [email, role] of [[approverEmail, 'approver'], [operatorEmail, 'operator']] as const) {
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Role', { exact: true }).selectOption(role);
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      // An invitation loosens the team: a pending change (202), which takes effect at once here (POLICY_CHANGE_DELAY_H=0).
      await shows(page, page.getByRole('region', { name: 'Members and roles' }).getByRole('row').filter({ hasText: email }));
    }
    await screenshot(page, 'tour-invited');

    approver = await openConsole(browser, w, { path: '#/withdrawals' });
    await approver.page.clock.install();
    await accept(approver, approverEmail);
    // The approver's role needs 2FA: the shell asks at once.
    await shows(approver.page, approver.page.getByText('Your role needs two-factor authentication'));
    await approver.page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    approverCode = codesOf(w, (await approver.page.locator('code.secret').innerText()).trim());
    await approver.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await approver.page.getByLabel('Authentication code', { exact: true }).fill(approverCode());
    await approver.page.getByRole('button', { name: 'Turn on', exact: true }).click();
    await approver.page.getByRole('button', { name: 'I have saved them' }).click();
    await approver.page.getByText('Your role needs two-factor authentication').waitFor({ state: 'detached' });

    operator = await openConsole(browser, w, { path: '#/withdrawals' });
    await operator.page.clock.install();
    await accept(operator, operatorEmail);
    await heading(operator.page, 'Withdrawals');
    const members = (await read(owner, '/members')).items as { email: string; role: string; status: string }[];
    expect(members.map((m) => [m.email, m.role]).sort()).toEqual([[approverEmail, 'approver'], [operatorEmail, 'operator']]);
    lap('team joined');
  });

  it('the operator asks for a withdrawal above the threshold; the approver approves it in a second context; it is paid', { timeout: 90_000 }, async () => {
    const to = w.dev.devnet.info().witnesses[2]!;
    const { page } = operator;
    await page.getByLabel('To address', { exact: true }).fill(to);
    await page.getByLabel('Asset', { exact: true }).selectOption('TRX');
    await page.getByLabel('Amount', { exact: true }).fill('10');
    await page.getByRole('button', { name: 'Request withdrawal' }).click();
    const notice = page.getByRole('status').filter({ hasText: /Withdrawal \S+ requested\./ });
    await shows(page, notice, 15_000);
    commandNo = /Withdrawal (\S+) requested\./.exec(await notice.innerText())![1]!;
    const awaiting = page.getByRole('region', { name: 'Awaiting approval' }).getByRole('row').filter({ hasText: commandNo });
    await shows(page, awaiting);
    expect(await awaiting.getByText('10 TRX').count()).toBe(1);
    // The operator may not decide it.
    expect(await page.getByRole('button', { name: `Approve ${commandNo}` }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'tour-withdrawal-requested');

    const a = approver.page;
    await nav(a, 'Withdrawals');
    await heading(a, 'Withdrawals');
    await polls(a);
    await shows(a, a.getByRole('button', { name: `Approve ${commandNo}` }));
    await a.getByRole('button', { name: `Approve ${commandNo}` }).click();
    await stepUp(a, approverCode);
    await shows(a, a.getByText(`Withdrawal ${commandNo} approved.`));
    await screenshot(a, 'tour-withdrawal-approved');

    let loads = 0;
    page.on('load', () => { loads++; });
    a.on('load', () => { loads++; });
    await blocksUntil('the withdrawal paid', async () => (await read(owner, `/commands/${commandNo}`)).status === COMMAND_SUCCEEDED);
    const row = (p: Page) => p.getByRole('region', { name: 'Withdrawals' }).getByRole('row').filter({ hasText: commandNo });
    for (const p of [page, a]) {
      await polls(p);
      await shows(p, row(p).getByText('paid', { exact: true }), 15_000);
    }
    expect(loads).toBe(0);
    const command = await read(owner, `/commands/${commandNo}`);
    const ids = new Map(((await read(owner, '/members')).items as { email: string; user_id: number }[]).map((m) => [m.email, m.user_id]));
    expect(command.approval).toMatchObject({ state: 'approved', requested_by: ids.get(operatorEmail), decided_by: ids.get(approverEmail) });
    await screenshot(page, 'tour-withdrawal-paid');
    lap('withdrawal paid');
  });

  it('the audit log (Security) names both members: the operator\'s request and the approver\'s decision', { timeout: 60_000 }, async () => {
    const { page } = owner;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard', exact: true }).click();
    await nav(page, 'Security');
    await heading(page, 'Security');
    const audit = page.getByRole('region', { name: 'Audit log' });
    await shows(page, audit.getByRole('row').filter({ hasText: approverEmail }));
    await shows(page, audit.getByRole('row').filter({ hasText: operatorEmail }));
    const actions = await audit.getByRole('row').evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).map((c) => (c as unknown as { innerText: string }).innerText)));
    const byActor = (email: string) => actions.filter((cells) => cells[3] === email).map((cells) => cells[2]);
    expect(byActor(operatorEmail), JSON.stringify(actions)).toContain('withdrawal.requested');
    expect(byActor(approverEmail), JSON.stringify(actions)).toContain('withdrawal.approved');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'tour-audit-log');
    for (const tab of [owner, approver, operator]) expect(tab.errors).toEqual([]);
    lap('audit');
  });
});
