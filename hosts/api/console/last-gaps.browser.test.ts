import { setTimeout as sleep } from 'node:timers/promises';
import { Secret } from 'otpauth';
import type { Browser, Locator } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../adapters/memory/index.js';
import { NodeSecretHasher, OtpauthTotpGenerator, TEST_SCRYPT_COST } from '../../../adapters/node/index.js';
import { COLLECTION_STATUS } from '../../../core/domain/model/collection-task.js';
import { stepAt } from '../../../core/domain/two-factor-rules.js';
import { aTask } from '../../../contracts-tests/support/fixtures.js';
import { startDev } from '../../dev/start-dev.js';
import { TOKENS } from '../../composition/tokens.js';
import {
  axeViolations, call, chromiumFound, CONSOLE_HOST, emailOf, launchChromium, newMerchant, openConsole, PASSWORD, shows, signIn,
  type Merchant, type World,
} from './console.browser-fixture.js';
import { consoleCookie, ok, request, teamOf, withCookie, type Team } from './console-team.browser-fixture.js';

/**
 * The `npm start` stack on manual clocks with loosenings waiting 1 h and energy only from the main address's own stake
 * (ENERGY_PROVIDER=self, no burning): a paid request's automatic forward then waits for energy (issue #34).
 */
async function startLastGapsWorld(): Promise<World> {
  const output: string[] = [];
  const clock = new ManualClock(Date.now());
  const dev = await startDev({
    env: { PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '0', POLICY_CHANGE_DELAY_H: '1', ENERGY_PROVIDER: 'self', ENERGY_BURN: 'false' },
    writeLine: (line) => output.push(line),
    manualWorker: true, clock, logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
  });
  return { dev, clock, output, base: `http://${CONSOLE_HOST}:${new URL(dev.url).port}` };
}

/** The headers the console's own calls carry (same origin), for a sign-in made outside the page. */
const CONSOLE_CALL = { 'x-console': '1', 'sec-fetch-site': 'same-origin' };
const FAILED_TASK = 'KFAILEDLASTGAPS';

/**
 * The last gaps of issue #38's browser suite: signing in with a recovery code (a used one refused with the API's
 * message); the Dashboard listing a paid request whose forward waits for energy, linking to Payments; and an owner
 * changing roles and removing a member through Security (a lowering at once, a raise pending, a removed member's
 * console cookie refused).
 */
if (!chromiumFound) process.stdout.write(`\nSKIPPED: console browser suite (last gaps): no chromium at ${process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'} (apt-get install -y chromium)\n\n`);

describe.skipIf(!chromiumFound)('console last gaps of issue #38 in chromium', () => {
  let browser: Browser;
  let w: World;
  let m: Merchant;
  let email: string;
  let recoveryCodes: string[];
  let tokenNo: string;
  beforeAll(async () => {
    [browser, w] = await Promise.all([launchChromium(), startLastGapsWorld()]);
    m = await newMerchant(w);
    email = await emailOf(w, m);
    // 2FA on over HTTP, keeping the recovery codes it answers once.
    const setup = await ok(w, 'POST', '/auth/2fa/setup', 200, { token: m.session });
    const secret = Secret.fromBase32(new URL(setup.otpauth_uri as string).searchParams.get('secret')!).bytes;
    const enabled = await ok(w, 'POST', '/auth/2fa/enable', 200, {
      token: m.session, body: { password: PASSWORD, code: new OtpauthTotpGenerator().codeAt(secret, stepAt(w.clock.now())) },
    });
    recoveryCodes = enabled.recovery_codes as string[];

    // A USDT payment request paid in full; its automatic forward finds no energy (the main address stakes none) and waits.
    const sub = (await call(w, 'POST', '/api/wallets', { token: m.apiToken, body: { network_code: 'TRON', address_type: 2 }, expect: 201 })).address as string;
    tokenNo = (await call(w, 'POST', '/api/cashier/tokens', {
      token: m.apiToken, body: { address: sub, amount: '5000000', asset_symbol: 'USDT', reference: 'Order waits' }, expect: 201,
    })).token_no as string;
    await w.dev.faucet.send(sub, 'USDT', '5000000');
    const view = async (): Promise<any> => (await call(w, 'GET', `/api/cashier/tokens/${tokenNo}`, { token: m.apiToken })).payment;
    for (let i = 0; i < 60 && (await view()).forward === undefined; i++) {
      w.dev.devnet.mine(1);
      await w.dev.worker.tick();
      w.clock.advance(3_000);
    }
    expect(await view()).toMatchObject({ status: 'paid', forward: { status: 'pending', error_code: 'BIZ-ENERGY-UNAVAILABLE' } });
    // A forward that failed for good: its collection task FAILED, as the worker leaves one.
    const userId = (await ok(w, 'GET', '/auth/console/session', 200, { token: m.session })).user_id as number;
    const main = (await ok(w, 'GET', '/wallets?type=1', 200, { token: m.apiToken })).items[0].address as string;
    await w.dev.composition.container.get(TOKENS.Stores).uow.commit({ newTasks: [aTask({
      taskNo: FAILED_TASK, commandNo: 'CFAILEDLASTGAPS', userId, address: sub, mainAddress: main, status: COLLECTION_STATUS.FAILED,
      errorCode: 'CHAIN-TX-FAILED', lastError: 'the sweep failed on chain', startedAt: w.clock.now(), finishedAt: w.clock.now(), nextRunAt: w.clock.now(),
    })] });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await w?.dev.stop();
  });

  it('signs in with an unused recovery code; the Dashboard lists the paid request whose forward waits (linking to Payments) and the FAILED forward (linking to Collections); a used recovery code is refused with the API\'s message', { timeout: 60_000 }, async () => {
    const tab = await openConsole(browser, w, { path: '#/dashboard' });
    try {
      const { page } = tab;
      const [first] = recoveryCodes;
      await signIn(page, email, PASSWORD, first!);
      await shows(page, page.getByText(`Signed in as ${email}`, { exact: false }));

      const attention = page.getByRole('region', { name: 'Needs attention' });
      const waits = attention.getByRole('link', { name: 'Paid requests whose forward waits: 1' });
      await shows(page, waits);
      expect(await waits.getAttribute('href')).toBe('#/payments');
      const failed = attention.getByRole('link', { name: 'Collections and forwards FAILED: 1' });
      await shows(page, failed);
      expect(await failed.getAttribute('href')).toBe(`#/collections?status=${COLLECTION_STATUS.FAILED}`);
      expect(await page.getByText('Nothing needs attention.').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await failed.click();
      await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Collections']);
      await shows(page, page.getByRole('link', { name: FAILED_TASK }));
      await page.goBack();
      await waits.click();
      await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Payments']);
      await shows(page, page.getByText('Order waits'));

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Authentication code', { exact: true }).fill(first!);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const refused = await request(w, 'POST', '/auth/console/session', { headers: CONSOLE_CALL, body: { email, password: PASSWORD, code: first } });
      expect({ status: refused.status, code: refused.code }).toEqual({ status: 401, code: 'AUTH-TOTP-INVALID' });
      await shows(page, page.getByRole('alert').filter({ hasText: refused.message }));
      expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
      // Another unused one still serves.
      await page.getByLabel('Authentication code', { exact: true }).fill(recoveryCodes[1]!);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 10_000 });
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('Security: the owner lowers a role (at once), raises one (pending), removes a member whose console cookie is then refused', { timeout: 90_000 }, async () => {
    const team: Team = await teamOf(w);
    // The operator is signed in to the console in a browser of their own.
    const theirs = await openConsole(browser, w, { path: '#/dashboard' });
    const owner = await openConsole(browser, w, { path: '#/security' });
    try {
      await signIn(theirs.page, team.operator.email);
      const cookie = await consoleCookie(theirs.context);
      expect((await withCookie(w, cookie, 'GET', '/auth/console/session')).status).toBe(200);

      const { page } = owner;
      await signIn(page, team.ownerEmail, PASSWORD, team.ownerCode());
      await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Security']);
      const members = page.getByRole('region', { name: 'Members and roles' });
      const rowOf = (who: string): Locator => members.getByRole('row').filter({ hasText: who });
      /** Answers the step-up dialog with a fresh code whenever it shows, until `done` shows. */
      const stepUpUntil = async (done: Locator): Promise<void> => {
        const until = Date.now() + 20_000;
        while (Date.now() < until) {
          if (await done.count() > 0) return;
          const dialog = page.getByRole('dialog');
          if (await dialog.count() > 0 && await dialog.isVisible()) {
            await dialog.getByLabel('Authentication code').fill(team.ownerCode());
            await dialog.getByRole('button', { name: 'Confirm' }).click();
            await dialog.waitFor({ state: 'detached' });
          }
          await sleep(100);
        }
        await shows(page, done, 1);
      };
      const roleOf = async (who: string): Promise<string> =>
        (await ok(w, 'GET', '/members', 200, { token: team.owner.session })).items.find((x: { email: string }) => x.email === who).role as string;

      // A lowering (operator to viewer) applies at once.
      await shows(page, rowOf(team.operator.email));
      await rowOf(team.operator.email).getByLabel(`Role of ${team.operator.email}`).selectOption('viewer');
      await rowOf(team.operator.email).getByRole('button', { name: 'Change role' }).click();
      await stepUpUntil(members.getByText(`Role of ${team.operator.email} changed.`));
      expect(await roleOf(team.operator.email)).toBe('viewer');

      // A raise (approver to operator: the right to pay) is a pending change; the role stays.
      await rowOf(team.approver.email).getByLabel(`Role of ${team.approver.email}`).selectOption('operator');
      await rowOf(team.approver.email).getByRole('button', { name: 'Change role' }).click();
      await stepUpUntil(members.getByText('This change waits', { exact: false }));
      expect(await roleOf(team.approver.email)).toBe('approver');
      const pending = (await ok(w, 'GET', '/policies/changes', 200, { token: team.owner.session })).items as { loosens: string[] }[];
      expect(pending.flatMap((c) => c.loosens).some((l) => l.startsWith('members.'))).toBe(true);

      // Removal ends the member's access: their console cookie is refused.
      await rowOf(team.operator.email).getByRole('button', { name: `Remove ${team.operator.email}` }).click();
      await stepUpUntil(members.getByText(`${team.operator.email} removed.`));
      // The notice shows before the list is read again.
      await expect.poll(() => rowOf(team.operator.email).count()).toBe(0);
      expect((await withCookie(w, cookie, 'GET', '/auth/console/session')).status).toBe(401);
      expect(await axeViolations(page)).toEqual([]);
      expect(owner.errors).toEqual([]);
    } finally {
      await theirs.close();
      await owner.close();
    }
  });
});
