import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalReceiver, type LocalWebhookReceiver } from '../../../adapters/http/index.js';
import { ManualClock } from '../../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../../adapters/node/index.js';
import { aDelivery, anEvent } from '../../../contracts-tests/support/fixtures.js';
import { DELIVERY_STATUS } from '../../../core/domain/model/webhook.js';
import { startDev } from '../../dev/start-dev.js';
import { TOKENS } from '../../composition/tokens.js';
import {
  axeViolations, chromiumFound, CONSOLE_HOST, consoleOrigin, openConsole, PASSWORD, launchChromium, shows, signIn, type ConsoleTab, type World,
} from './console.browser-fixture.js';
import {
  consoleCookie, enrol, joinAs, ok, request, teamOf, withCookie, type CodeSource, type Member, type Team,
} from './console-team.browser-fixture.js';

const TRX = 1_000_000n;
const NAV = ['Dashboard', 'Payments', 'Deposits', 'Addresses', 'Collections', 'Withdrawals', 'Books', 'Developers', 'Security'];

/** The `npm start` stack on manual clocks; loosenings wait 1 h; local webhook URLs allowed (the receiver is on 127.0.0.1). */
async function startGapWorld(): Promise<World> {
  const output: string[] = [];
  const clock = new ManualClock(Date.now());
  const dev = await startDev({
    env: { PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '0', POLICY_CHANGE_DELAY_H: '1', WEBHOOK_ALLOW_LOCAL: 'true' }, writeLine: (line) => output.push(line),
    manualWorker: true, clock, logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
  });
  return { dev, clock, output, base: `http://${CONSOLE_HOST}:${new URL(dev.url).port}` };
}

/**
 * Gaps of issue #38's browser suite, closed in one world: a team (owner, admin, approver, operator, viewer) with a
 * withdrawal awaiting approval, a pending loosening of the policy and a DEAD webhook delivery. The Dashboard lists all
 * three as work that needs attention; the owner redelivers the DEAD delivery through Developers (received, SUCCEEDED);
 * the owner's own change cannot be approved by the owner (the API's message shows) and a second admin approves it
 * through Security with step-up; and every role that may not use a screen or an action is refused it three ways: not
 * offered in the page, refused at its address, refused by the API with the console's own cookie.
 */
if (!chromiumFound) process.stdout.write(`\nSKIPPED: console browser suite (gaps): no chromium at ${process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'} (apt-get install -y chromium)\n\n`);

describe.skipIf(!chromiumFound)('console gaps of issue #38 in chromium', () => {
  let browser: Browser;
  let w: World;
  let team: Team;
  let ownerId: number;
  let admin: Member;
  let adminCode: CodeSource;
  let viewer: Member;
  let main: string;
  let commandNo: string;
  let changeId: string;
  let deadId: string;
  let receiver: LocalWebhookReceiver;
  let tab: ConsoleTab;
  const to = (): string => w.dev.devnet.info().witnesses[2]!;

  beforeAll(async () => {
    receiver = await startLocalReceiver(() => ({ status: 200, body: 'thanks' }));
    [browser, w] = await Promise.all([launchChromium(), startGapWorld()]);
    team = await teamOf(w, async (owner) => {
      await ok(w, 'PUT', '/policies/withdrawal', 200, { token: owner.session, body: { limits: { TRX: { approval_threshold: String(TRX) } } } });
    });
    ownerId = (await ok(w, 'GET', '/auth/console/session', 200, { token: team.owner.session })).user_id as number;
    // A second admin (a loosening: it waits 1 h) and a viewer.
    for (const [email, role] of [['admin@gaps.example', 'admin'], ['viewer@gaps.example', 'viewer']] as const) {
      const answer = await request(w, 'POST', '/members', { token: team.owner.session, body: { email, role }, code: team.ownerCode() });
      if (answer.status !== 201 && answer.status !== 202) throw new Error(`invite ${role}: ${answer.status} ${answer.message}`);
    }
    w.clock.advance(2 * 3_600_000);
    admin = await joinAs(w, 'admin@gaps.example');
    adminCode = await enrol(w, admin.session);
    viewer = await joinAs(w, 'viewer@gaps.example');
    // Turning 2FA on holds new destinations for a day (issue #35): past it; the idle sessions are renewed.
    w.clock.advance(25 * 3_600_000);
    const owner = await ok(w, 'POST', '/auth/login', 200, { body: { email: team.ownerEmail, password: PASSWORD, totp_code: team.ownerCode() } });
    const operator = await ok(w, 'POST', '/auth/login', 200, { body: { email: team.operator.email, password: PASSWORD } });
    team = { ...team, owner: { ...team.owner, session: owner.session_token as string }, operator: { ...team.operator, session: operator.session_token as string } };

    // A withdrawal above the threshold, awaiting approval.
    main = (await ok(w, 'GET', '/wallets?type=1', 200, { token: team.owner.apiToken })).items[0].address as string;
    await w.dev.faucet.send(main, 'TRX', String(100n * TRX));
    w.dev.devnet.mine(1);
    commandNo = (await ok(w, 'POST', '/transfers', 201, {
      token: team.operator.session, key: randomUUID(), body: { from_address: main, to_address: to(), asset_symbol: 'TRX', amount: String(2n * TRX) },
    })).command_no as string;
    // A loosening of the policy: pending.
    changeId = String((await ok(w, 'PUT', '/policies/withdrawal', 202, {
      token: team.owner.session, code: team.ownerCode(), body: { limits: { TRX: { approval_threshold: String(50n * TRX) } } },
    })).change_id);
    // The webhook URL approved by the platform; a DEAD delivery of an event, as the worker leaves it.
    const url = `${receiver.origin}/hooks/${ownerId}`;
    await ok(w, 'PUT', '/subscriptions/config', 200, {
      token: team.owner.session, code: team.ownerCode(), body: { service_code: 'developer', config: { webhook_url: url, webhook_secret: `whsec-${randomUUID()}` } },
    });
    await ok(w, 'POST', `/admin/webhooks/${ownerId}/approve`, 200, { token: w.dev.adminToken, body: { url } });
    const stores = w.dev.composition.container.get(TOKENS.Stores);
    const eventId = randomUUID();
    await stores.uow.commit({ events: [anEvent({ eventId, userId: ownerId, payload: { event_id: eventId, event_type: 'collection.completed', occurred_at: '2026-01-01T00:00:00+00:00', status: 11 } })] });
    deadId = randomUUID();
    await stores.deliveries.insert(aDelivery({
      deliveryId: deadId, eventId, userId: ownerId, status: DELIVERY_STATUS.DEAD, nextAttemptAt: null, url, createdAt: w.clock.now(),
      attempts: [1, 2, 3].map((k) => ({ at: w.clock.now() - k, httpStatus: 500, error: 'HTTP 500', durationMs: 4, response: 'busy', redelivery: false, url: null })),
    }));
    tab = await openConsole(browser, w, { path: '#/dashboard' });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await w?.dev.stop();
    await receiver?.close();
  });

  const stepUp = async (page: Page, code: string): Promise<void> => {
    await page.getByRole('dialog').getByLabel('Authentication code').fill(code);
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
  };

  it('Dashboard: a withdrawal awaiting approval, a pending policy change and a DEAD delivery need attention, each linking to its screen', { timeout: 60_000 }, async () => {
    const { page } = tab;
    await signIn(page, team.ownerEmail, PASSWORD, team.ownerCode());
    const attention = page.getByRole('region', { name: 'Needs attention' });
    await shows(page, attention.getByRole('link', { name: 'Withdrawals awaiting approval: 1' }));
    expect(await attention.getByRole('link', { name: 'Pending policy changes: 1' }).getAttribute('href')).toBe('#/security');
    expect(await attention.getByRole('link', { name: 'Webhook deliveries DEAD: 1' }).getAttribute('href')).toBe('#/developers');
    expect(await page.getByText('Nothing needs attention.').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('Developers: the DEAD delivery is redelivered through the screen, received by the approved URL, and then SUCCEEDED', { timeout: 60_000 }, async () => {
    const { page } = tab;
    await page.getByRole('region', { name: 'Needs attention' }).getByRole('link', { name: 'Webhook deliveries DEAD: 1' }).click();
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Developers']);
    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    await deliveries.getByLabel('Delivery status', { exact: true }).selectOption('5');
    const row = deliveries.getByRole('row').filter({ hasText: 'collection.completed' });
    await shows(page, row.getByText('DEAD', { exact: true }));
    const before = receiver.received.length;
    await row.getByRole('button', { name: `Redeliver collection.completed ${deadId}` }).click();
    await shows(page, deliveries.getByText('Sent again: delivered.'));
    // The row has left the list filtered on DEAD; the result stays shown.
    await shows(page, deliveries.getByText('Nothing here yet.'));
    expect(await deliveries.getByText('Sent again: delivered.').count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    expect(receiver.received.length).toBe(before + 1);
    expect(receiver.received.at(-1)!.path).toBe(`/hooks/${ownerId}`);
    const after = (await ok(w, 'GET', '/webhooks/deliveries', 200, { token: team.owner.session })).items.find((d: { delivery_id: string }) => d.delivery_id === deadId);
    expect(after.status).toBe(DELIVERY_STATUS.SUCCEEDED);
    expect(after.attempts.at(-1)).toMatchObject({ http_status: 200, redelivery: true });
    expect(tab.errors).toEqual([]);
  });

  it('Security: the owner may not approve their own change (the API\'s message shows); a second admin approves it with step-up', { timeout: 60_000 }, async () => {
    const { page } = tab;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click();
    const changes = page.getByRole('region', { name: 'Pending changes' });
    await shows(page, changes.getByRole('row').filter({ hasText: 'limits.TRX' }));
    await changes.getByRole('button', { name: `Approve ${changeId}` }).click();
    await stepUp(page, team.ownerCode());
    const own = await request(w, 'POST', `/policies/changes/${changeId}/approve`, { token: team.owner.session, code: team.ownerCode() });
    expect(own).toMatchObject({ status: 403, code: 'POLICY-CHANGE-OWN-REQUEST' });
    await shows(page, changes.getByRole('alert').filter({ hasText: own.message }));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.goto(`${consoleOrigin(w)}/console#/security`);
    await signIn(page, admin.email, PASSWORD, adminCode());
    await shows(page, changes.getByRole('row').filter({ hasText: 'limits.TRX' }));
    await changes.getByRole('button', { name: `Approve ${changeId}` }).click();
    await stepUp(page, adminCode());
    await shows(page, changes.getByText(`Change ${changeId} approved.`));
    await shows(page, changes.getByText('No change is pending.'));
    expect((await ok(w, 'GET', '/policies/withdrawal', 200, { token: team.owner.session })).limits.TRX.approval_threshold).toBe(String(50n * TRX));
    expect(await axeViolations(page)).toEqual([]);
    expect(tab.errors).toEqual([]);
  });

  it('Books (spot-check of item 6): a CSV download the API refuses shows the API\'s message; the chain check shows its progress while it runs', { timeout: 60_000 }, async () => {
    const { page } = tab; // signed in as the admin
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Books' }).click();
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Books']);
    const day = (d: Date): string => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    const today = new Date();
    const later = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 2);
    await page.getByLabel('From', { exact: true }).fill(day(later));
    await page.getByLabel('To', { exact: true }).fill(day(today));
    await page.getByRole('button', { name: 'Download statement CSV' }).click();
    const iso = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const end = new Date(today.getFullYear(), today.getMonth(), today.getDate(), 23, 59, 59);
    const refused = await request(w, 'GET', `/ledger/statement?from=${iso(later)}&to=${iso(end)}&format=csv`, { token: team.owner.apiToken });
    expect(refused.status, refused.message).toBe(422);
    await shows(page, page.getByRole('region', { name: 'Statement' }).getByRole('alert').filter({ hasText: refused.message }));

    // The reconciliation reads the chain: held here until the page has shown that it is working.
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    await page.route('**/api/ledger/reconciliation**', async (route) => { await held; await route.continue(); });
    const reco = page.getByRole('region', { name: 'Reconciliation' });
    await reco.getByRole('button', { name: 'Check the books against the chain' }).click();
    await shows(page, reco.getByRole('status').filter({ hasText: 'Reading the chain…' }));
    expect(await reco.getByRole('button', { name: 'Check the books against the chain' }).isDisabled()).toBe(true);
    release();
    await shows(page, reco.getByText('Checked at', { exact: false }));
    expect(await reco.getByRole('status').filter({ hasText: 'Reading the chain…' }).count()).toBe(0);
    await page.unroute('**/api/ledger/reconciliation**');
    expect(tab.errors).toEqual([]);
  });

  it('as the second admin: an allow-list address added and removed through Security (a bad one shows the API\'s message); a new webhook URL with an event type saved through Developers waits for review', { timeout: 60_000 }, async () => {
    const { page } = tab; // signed in as the admin
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click();
    const allow = page.getByRole('region', { name: 'Allow-list' });
    await shows(page, allow.getByRole('button', { name: 'Add address' }));
    await allow.getByLabel('Address', { exact: true }).fill('Tnot-an-address');
    await allow.getByRole('button', { name: 'Add address' }).click();
    await stepUp(page, adminCode());
    const bad = await request(w, 'POST', '/policies/allow-list', { token: team.owner.session, code: team.ownerCode(), body: { address: 'Tnot-an-address', label: null } });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    await shows(page, allow.getByRole('alert').filter({ hasText: bad.message }));
    const address = to();
    await allow.getByLabel('Address', { exact: true }).fill(address);
    await allow.getByLabel('Label', { exact: true }).fill('cold wallet');
    await allow.getByRole('button', { name: 'Add address' }).click();
    await stepUp(page, adminCode());
    await shows(page, allow.getByText(`${address} added; it may be paid from`, { exact: false }));
    await shows(page, allow.getByRole('row').filter({ hasText: address }).filter({ hasText: 'cold wallet' }));
    expect((await ok(w, 'GET', '/policies/allow-list', 200, { token: team.owner.session })).items.map((e: { address: string }) => e.address)).toEqual([address]);
    await allow.getByRole('button', { name: `Remove ${address}` }).click();
    await stepUp(page, adminCode());
    await shows(page, allow.getByText(`${address} removed.`));
    expect((await ok(w, 'GET', '/policies/allow-list', 200, { token: team.owner.session })).items).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Developers' }).click();
    await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Developers']);
    const url = `${receiver.origin}/hooks/new`;
    await page.getByLabel('Webhook URL', { exact: true }).fill(url);
    await page.getByRole('checkbox', { name: 'deposit.confirmed' }).check();
    await page.getByRole('button', { name: 'Save webhook settings' }).click();
    await stepUp(page, adminCode());
    await shows(page, page.getByText('Webhook settings saved.'));
    await shows(page, page.getByTestId('webhook-review').filter({ hasText: 'waiting for the platform\'s review' }));
    const config = await ok(w, 'GET', '/subscriptions/config/developer', 200, { token: team.owner.session });
    expect(config.config.event_types).toContain('deposit.confirmed');
    expect(config.webhook.pending_url).toBe(url);
    await shows(page, page.getByRole('region', { name: 'Webhook' }).getByText(url, { exact: true }));
    expect(tab.errors).toEqual([]);
  });

  it('each role that may not use a screen or an action: not offered, refused at its address, refused by the API with the console\'s cookie', { timeout: 120_000 }, async () => {
    const FORBIDDEN = { status: 403, code: 'TEAM-ROLE-FORBIDDEN' };
    const cases = [
      { role: 'admin', email: admin.email, code: adminCode },
      { role: 'approver', email: team.approver.email, code: team.approverCode },
      { role: 'operator', email: team.operator.email, code: undefined },
      { role: 'viewer', email: viewer.email, code: undefined },
    ];
    for (const c of cases) {
      const t = await openConsole(browser, w, { path: '#/developers' });
      try {
        const { page } = t;
        await signIn(page, c.email, PASSWORD, c.code?.());
        const cookie = await consoleCookie(t.context);
        const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
        const adminRole = c.role === 'admin';
        // Developers: owner and admins only.
        expect(nav, c.role).toEqual(adminRole ? NAV : NAV.filter((n) => n !== 'Developers'));
        if (!adminRole) {
          await shows(page, page.getByRole('alert').filter({ hasText: 'Your role may not use this screen.' }));
          expect(await page.getByRole('button', { name: 'Create token' }).count()).toBe(0);
          expect(await withCookie(w, cookie, 'POST', '/api-tokens', { name: 'x' }), `${c.role} POST /api-tokens`).toEqual(FORBIDDEN);
          expect(await withCookie(w, cookie, 'POST', `/webhooks/deliveries/${deadId}/redeliver`), `${c.role} redeliver`).toEqual(FORBIDDEN);
        }
        // Payments and Addresses: creating is for the roles the API lets write a developer route through the console
        // (owner, admins, operators: hosts/api/pipeline.ts); approvers and viewers are refused at the form's address.
        const creator = c.role === 'admin' || c.role === 'operator';
        await page.goto(`${consoleOrigin(w)}/console#/payments/new`);
        if (creator) await shows(page, page.getByRole('button', { name: 'Create payment request' }));
        else await shows(page, page.getByRole('alert').filter({ hasText: 'Your role may not use this screen.' }));
        const payment = await withCookie(w, cookie, 'POST', '/cashier/tokens', { address: main, amount: 'x', asset_symbol: 'TRX' });
        if (creator) expect(payment.code, `${c.role} POST /cashier/tokens`).toBe('BIZ-ADDRESS-TYPE-NOT-SUB'); // past the role gate
        else expect(payment, `${c.role} POST /cashier/tokens`).toEqual(FORBIDDEN);
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Addresses' }).click();
        await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Addresses']);
        await shows(page, page.getByRole('table').first());
        expect(await page.getByRole('button', { name: 'Create address' }).count(), `${c.role} create address`).toBe(creator ? 1 : 0);
        if (!creator) expect(await withCookie(w, cookie, 'POST', '/wallets', { network_code: 'TRON', address_type: 2 }), `${c.role} POST /wallets`).toEqual(FORBIDDEN);
        // Withdrawals: requesting is the owner's and operators'; deciding the owner's, admins' and approvers'.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Withdrawals' }).click();
        await shows(page, page.getByRole('region', { name: 'Awaiting approval' }).getByRole('row').filter({ hasText: commandNo }));
        const requester = c.role === 'operator';
        const decider = c.role === 'admin' || c.role === 'approver';
        expect(await page.getByRole('button', { name: 'Request withdrawal' }).count(), `${c.role} request form`).toBe(requester ? 1 : 0);
        expect(await page.getByRole('button', { name: /^Approve/ }).count(), `${c.role} approve`).toBe(decider ? 1 : 0);
        if (!requester) {
          expect(await withCookie(w, cookie, 'POST', '/transfers', { from_address: main, to_address: to(), asset_symbol: 'TRX', amount: '1' }), `${c.role} POST /transfers`).toEqual(FORBIDDEN);
        }
        if (!decider) {
          expect(await withCookie(w, cookie, 'POST', `/commands/${commandNo}/approve`), `${c.role} approve`).toEqual(FORBIDDEN);
          expect(await withCookie(w, cookie, 'POST', `/commands/${commandNo}/deny`), `${c.role} deny`).toEqual(FORBIDDEN);
        }
        // Security: members, policy and pending changes are the owner's and admins'.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click();
        await shows(page, page.getByRole('region', { name: 'Audit log' }).getByRole('row').nth(1));
        expect(await page.getByRole('button', { name: 'Invite', exact: true }).count(), `${c.role} invite`).toBe(adminRole ? 1 : 0);
        expect(await page.getByRole('button', { name: 'Save policy' }).count(), `${c.role} save policy`).toBe(adminRole ? 1 : 0);
        if (!adminRole) {
          expect(await withCookie(w, cookie, 'POST', '/members', { email: 'x@gaps.example', role: 'viewer' }), `${c.role} POST /members`).toEqual(FORBIDDEN);
          expect(await withCookie(w, cookie, 'PUT', '/policies/withdrawal', { limits: {} }), `${c.role} PUT /policies/withdrawal`).toEqual(FORBIDDEN);
          expect(await withCookie(w, cookie, 'POST', '/policies/changes/1/cancel'), `${c.role} cancel change`).toEqual(FORBIDDEN);
        }
        expect(t.errors, c.role).toEqual([]);
      } finally {
        await t.close();
      }
    }
  });
});
