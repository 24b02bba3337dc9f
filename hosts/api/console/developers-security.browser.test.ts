import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations, chromiumFound, consoleOrigin, emailOf, launchChromium, newMerchant, openConsole, PASSWORD, screenshot, signIn,
  type ConsoleTab, type Merchant, type World,
} from './console.browser-fixture.js';
import { codesOf, consoleCookie, joinAs, ok, request, startTeamWorld, withCookie, type CodeSource } from './console-team.browser-fixture.js';

const NAV = ['Dashboard', 'Payments', 'Deposits', 'Addresses', 'Collections', 'Withdrawals', 'Books', 'Developers', 'Security'];

/**
 * The console's Developers and Security screens (issue #38) against the `npm start` stack: the owner turns 2FA on
 * through the Security screen (the code computed from the key it shows), creates an API token with step-up (shown once,
 * it works) and revokes it, sets the webhook (a blocked URL shows the API's message), invites members (a viewer at
 * once; an operator as a pending change, cancelled), tightens and loosens the withdrawal policy (the loosening shown as
 * pending), and reads the audit log with the acting member, client address and user agent. A viewer has no Developers
 * screen (not in the navigation; the address and the API refuse) and is offered no change on Security.
 */
if (!chromiumFound) process.stdout.write(`\nSKIPPED: console browser suite (developers-security): no chromium at ${process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'} (apt-get install -y chromium)\n\n`);

describe.skipIf(!chromiumFound)('console developers and security in chromium', () => {
  let browser: Browser;
  let w: World;
  let owner: Merchant;
  let ownerEmail: string;
  let code: CodeSource;
  let tab: ConsoleTab;
  beforeAll(async () => {
    [browser, w] = await Promise.all([launchChromium(), startTeamWorld()]);
    owner = await newMerchant(w);
    ownerEmail = await emailOf(w, owner);
    tab = await openConsole(browser, w, { path: '#/security' });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await w?.dev.stop();
  });

  /** Answers the step-up dialog with a fresh code. */
  const stepUp = async (page: Page): Promise<void> => {
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Authentication code').fill(code());
    await dialog.getByRole('button', { name: 'Confirm' }).click();
  };

  it('the owner turns two-factor authentication on through the Security screen', { timeout: 30_000 }, async () => {
    const { page } = tab;
    await signIn(page, ownerEmail);
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Security']);
    await page.getByText(`Two-factor authentication is off for ${ownerEmail}.`).waitFor();
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    const key = await page.locator('code.secret').innerText();
    code = codesOf(w, key);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Authentication code', { exact: true }).fill(code());
    await page.getByRole('button', { name: 'Turn on', exact: true }).click();
    await page.getByText('Recovery codes', { exact: false }).waitFor();
    expect(await page.locator('ul.codes li').count()).toBe(10);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText(`Two-factor authentication is on for ${ownerEmail}.`).waitFor();
    expect((await ok(w, 'GET', '/auth/console/session', 200, { token: owner.session })).two_factor_enabled).toBe(true);
  });

  it('Developers: a token created with step-up is shown once and works until revoked with step-up; a blocked webhook URL shows the API\'s message', { timeout: 60_000 }, async () => {
    const { page } = tab;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Developers' }).click();
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Developers']);
    await page.getByLabel('Name', { exact: true }).fill('ci-token');
    await page.getByRole('button', { name: 'Create token' }).click();
    await stepUp(page);
    const token = await page.getByTestId('new-token').innerText();
    expect(token).toMatch(/^dk_/);
    expect((await request(w, 'GET', '/wallets', { token })).status).toBe(200);
    const tokens = page.getByRole('region', { name: 'API tokens' });
    await tokens.getByRole('row').filter({ hasText: 'ci-token' }).waitFor();

    // A webhook URL the API refuses: its own message.
    await page.getByLabel('Webhook URL', { exact: true }).fill('https://127.0.0.1/hooks');
    await page.getByLabel('New webhook secret', { exact: true }).fill('a-long-webhook-secret-for-tests');
    await page.getByRole('checkbox', { name: 'deposit.confirmed' }).check();
    await page.getByRole('button', { name: 'Save webhook settings' }).click();
    await stepUp(page);
    const refused = await request(w, 'PUT', '/subscriptions/config', {
      token: owner.session, code: code(), body: { service_code: 'developer', config: { webhook_url: 'https://127.0.0.1/hooks' } },
    });
    expect(refused.status).toBe(422);
    await page.getByRole('alert').filter({ hasText: refused.message }).waitFor();
    expect(await page.getByRole('region', { name: 'Deliveries' }).count()).toBeGreaterThan(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'developers');

    await page.getByRole('button', { name: 'Revoke: ci-token' }).click();
    await stepUp(page);
    await page.getByText('Token ci-token revoked.').waitFor();
    expect((await request(w, 'GET', '/wallets', { token })).status).toBe(401);
    expect(tab.errors).toEqual([]);
  });

  it('Security: invitations (a viewer at once, an operator pending and cancelled), the policy tightened then loosened (pending), the audit log with actor, address and agent', { timeout: 60_000 }, async () => {
    const { page } = tab;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click();
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Security']);
    const invite = async (email: string, role: string): Promise<void> => {
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Role', { exact: true }).selectOption(role);
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
    };
    await invite('viewer@team.example', 'viewer');
    await page.getByText('Invitation sent to viewer@team.example.').waitFor();
    await invite('ops@team.example', 'operator');
    await page.getByRole('region', { name: 'Members and roles' }).getByText('This change waits', { exact: false }).waitFor();
    const changes = page.getByRole('region', { name: 'Pending changes' });
    await changes.getByRole('row').filter({ hasText: 'members.' }).waitFor({ timeout: 20_000 }).catch(async (e: unknown) => {
      throw new Error(`${await page.locator('main').innerText()}\n${tab.failures.join('\n')}`, { cause: e });
    });
    const changeId = (await changes.getByRole('row').filter({ hasText: 'members.' }).getByRole('cell').first().innerText()).trim();
    await page.getByRole('button', { name: `Cancel change ${changeId}` }).click();
    await page.getByText(`Change ${changeId} cancelled.`).waitFor();

    // A threshold is a tightening (at once); removing it loosens (pending).
    await page.getByLabel('Approval above (TRX)', { exact: true }).fill('5');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await stepUp(page);
    await page.getByText('Policy saved.').waitFor();
    expect((await ok(w, 'GET', '/policies/withdrawal', 200, { token: owner.session })).limits.TRX.approval_threshold).toBe('5000000');
    await page.getByLabel('Approval above (TRX)', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await stepUp(page);
    await page.getByRole('region', { name: 'Withdrawal policy' }).getByText('This change waits', { exact: false }).waitFor();
    await changes.getByRole('row').filter({ hasText: 'limits.TRX' }).waitFor({ timeout: 20_000 });

    const audit = page.getByRole('region', { name: 'Audit log' });
    const invited = audit.getByRole('row').filter({ hasText: 'member.invited' }).first();
    await invited.waitFor({ timeout: 20_000 });
    const cells = await invited.getByRole('cell').allInnerTexts();
    expect(cells[3]).toBe(`${ownerEmail} (owner)`);
    expect(cells[4]).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    expect(cells[5]).toContain('HeadlessChrome');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'security');
    expect(tab.errors).toEqual([]);
  });

  it('the owner of a team turns 2FA off with the password and a code: a loosening, shown as pending', { timeout: 30_000 }, async () => {
    const { page } = tab;
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD, { timeout: 5_000 }).catch(async (e: unknown) => {
      throw new Error(`${(await page.locator('body').innerText()).slice(0, 1500)}\n${tab.failures.join('\n')}`, { cause: e });
    });
    await page.getByLabel('Authentication code', { exact: true }).fill(code(), { timeout: 5_000 });
    await page.getByRole('button', { name: 'Turn off two-factor authentication' }).click({ timeout: 5_000 });
    await page.getByRole('region', { name: 'Two-factor authentication' }).getByText('This change waits', { exact: false }).waitFor({ timeout: 10_000 }).catch(async (e: unknown) => {
      throw new Error(`${(await page.locator('main').innerText()).slice(0, 1500)}\n${tab.failures.join('\n')}`, { cause: e });
    });
    expect(await page.getByRole('region', { name: 'Two-factor authentication' }).getByText(/users\.\d+\.two_factor/).count()).toBe(1);
    expect((await ok(w, 'GET', '/policies/changes', 200, { token: owner.session })).items.map((c: { loosens: string[] }) => c.loosens).flat())
      .toEqual(expect.arrayContaining([expect.stringMatching(/^users\.\d+\.two_factor$/)]));
  });

  it('a viewer has no Developers screen (nav, address and API refuse) and is offered no change on Security', { timeout: 60_000 }, async () => {
    const viewer = await joinAs(w, 'viewer@team.example');
    const t = await openConsole(browser, w, { path: '#/security' });
    try {
      const { page } = t;
      await signIn(page, viewer.email, PASSWORD);
      const nav = page.getByRole('navigation', { name: 'Main' });
      expect(await nav.getByRole('link').allInnerTexts()).toEqual(NAV.filter((n) => n !== 'Developers'));
      await page.getByRole('region', { name: 'Audit log' }).getByRole('row').nth(1).waitFor();
      expect(await page.getByRole('button', { name: 'Invite', exact: true }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Save policy' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Add address' }).count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await page.goto(`${consoleOrigin(w)}/console#/developers`);
      await page.getByRole('alert').filter({ hasText: 'Your role may not use this screen.' }).waitFor();
      expect(await withCookie(w, await consoleCookie(t.context), 'POST', '/api-tokens', { name: 'x' })).toEqual({ status: 403, code: 'TEAM-ROLE-FORBIDDEN' });
    } finally {
      await t.close();
    }
  });
});
