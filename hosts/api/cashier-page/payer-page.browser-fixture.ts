/**
 * Test support of the payer page's browser suite (never imported by production code): the `npm start` stack on a
 * manual clock and a manual devnet, merchants made over HTTP, Debian's chromium driven by playwright-core, axe-core
 * scans and screenshots. Time moves only when a test says so, on the server (ManualClock, devnet blocks) and in the
 * page (playwright's clock) alike.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { pino } from 'pino';
import { ManualClock } from '../../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../../adapters/node/index.js';
import { startDev, type DevProcess } from '../../dev/start-dev.js';

export { CHROMIUM, chromiumFound, launchChromium, PAYER_HOST } from '../shared-chromium.js';
import { PAYER_HOST } from '../shared-chromium.js';

/** Screenshots land here (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/payer-page/', import.meta.url));

/** The npm start stack, every clock manual. */
export interface World {
  readonly dev: DevProcess;
  readonly clock: ManualClock;
  readonly output: string[];
  /** The API's origin under {@link PAYER_HOST}. */
  readonly base: string;
}

export async function startWorld(): Promise<World> {
  const output: string[] = [];
  const clock = new ManualClock(Date.now());
  const dev = await startDev({
    env: { PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '0' }, writeLine: (line) => output.push(line), manualWorker: true, clock,
    logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
  });
  return { dev, clock, output, base: `http://${PAYER_HOST}:${new URL(dev.url).port}` };
}

/** One JSON call to the API; throws unless the answer's status is `expect`. */
export async function call(w: World, method: string, path: string, options: { token?: string; body?: unknown; expect?: number } = {}): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': `t-${Math.random()}` };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  const response = await fetch(`${w.dev.url}${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  const json = (await response.json()) as { data: unknown };
  if (response.status !== (options.expect ?? (method === 'POST' ? 201 : 200)) && options.expect !== undefined) {
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  }
  return json.data;
}

/** A merchant with a main and a labelled sub-address and a cashier token for it. */
export interface Merchant {
  readonly apiToken: string;
  readonly session: string;
  readonly sub: string;
  readonly ct: string;
  readonly tokenNo: string;
}

let merchants = 0;

export async function newMerchant(w: World, options: { label?: string; minimums?: Record<string, string> } = {}): Promise<Merchant> {
  const email = `merchant${++merchants}@example.com`;
  const password = 'correct horse battery staple';
  await call(w, 'POST', '/api/auth/register', { body: { email, password }, expect: 201 });
  const code = w.output.map((line) => new RegExp(`verification code for ${email}: (\\d{6})`).exec(line)?.[1]).find((c) => c !== undefined);
  await call(w, 'POST', '/api/auth/verify', { body: { email, code }, expect: 200 });
  const session = (await call(w, 'POST', '/api/auth/login', { body: { email, password }, expect: 200 })).session_token as string;
  await call(w, 'POST', '/api/subscriptions/activate', { token: session, body: { service_code: 'developer' }, expect: 200 });
  await call(w, 'POST', '/api/subscriptions/activate', { token: session, body: { service_code: 'sub_address', plan_code: 'starter' }, expect: 200 });
  if (options.minimums !== undefined) {
    await call(w, 'PUT', '/api/subscriptions/config', { token: session, body: { service_code: 'developer', config: { min_collect_amounts: options.minimums } }, expect: 200 });
  }
  const apiToken = (await call(w, 'POST', '/api/api-tokens', { token: session, body: { name: 'browser' }, expect: 201 })).token as string;
  await call(w, 'POST', '/api/wallets', { token: apiToken, body: { network_code: 'TRON', address_type: 1 }, expect: 201 });
  const sub = (await call(w, 'POST', '/api/wallets', {
    token: apiToken, body: { network_code: 'TRON', address_type: 2, ...(options.label === undefined ? {} : { address_label: options.label }) }, expect: 201,
  })).address as string;
  const token = await call(w, 'POST', '/api/cashier/tokens', { token: apiToken, body: { address: sub }, expect: 201 });
  return { apiToken, session, sub, ct: token.token, tokenNo: token.token_no };
}

/** A viewport of the suite. */
export interface Viewport {
  readonly name: string;
  readonly options: BrowserContextOptions;
}

export const VIEWPORTS: readonly Viewport[] = [
  { name: 'mobile', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
];

/** An open payer page, its clock paused at the server's time, and what it logged. */
export interface PayerPage {
  readonly page: Page;
  /** Console errors and uncaught exceptions (CSP refusals show up here). */
  readonly errors: string[];
  /** Requests the page made to the payment API. */
  readonly apiCalls: string[];
  close(): Promise<void>;
}

export async function openPayerPage(
  browser: Browser, w: World, viewport: Viewport, query: string, options: { locale?: string } = {},
): Promise<PayerPage> {
  const context = await browser.newContext({ ...viewport.options, locale: options.locale ?? 'en-US' });
  const page = await context.newPage();
  // Installed a little earlier, then paused at the server's time: an installed clock runs until it is paused.
  await page.clock.install({ time: w.clock.now() - 5_000 });
  await page.clock.pauseAt(w.clock.now());
  const errors: string[] = [];
  const apiCalls: string[] = [];
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
  page.on('pageerror', (error) => { errors.push(error.message); });
  page.on('request', (request) => { if (request.url().includes('/api/cashier/')) apiCalls.push(new URL(request.url()).pathname); });
  await page.goto(`${w.base}/cashier${query}`);
  return { page, errors, apiCalls, close: () => context.close() };
}

/**
 * Time passes on both sides: the server's clock moves `ms` and the page's timers (refresh, countdown) run for the same
 * `ms`. The page's own requests are real: wait for what they show with a locator.
 */
export async function pass(w: World, page: Page, ms: number): Promise<void> {
  w.clock.advance(ms);
  await page.clock.runFor(ms);
}

/** One block: the devnet mines, the worker runs a pass (collection steps, then the balance scanner), 3 s go by. */
export async function block(w: World, page: Page): Promise<void> {
  w.dev.devnet.mine(1);
  await w.dev.worker.tick();
  await pass(w, page, 3_000);
}

type Violation = { id: string; impact: string; targets: string[] };

/**
 * axe-core, injected into the page (its CSP stays on: evaluation goes through the devtools protocol). axe defers work
 * with timers, which the paused page clock holds: the clock is stepped a millisecond at a time until the scan is done.
 */
export async function axeViolations(page: Page): Promise<Violation[]> {
  // Injected once per document (half a megabyte of script to send and compile): an open page keeps it for its next scan.
  if (await page.evaluate('typeof axe === "undefined"')) await page.evaluate(axe.source);
  let result: Violation[] | undefined;
  let failure: unknown;
  const scan = page.evaluate<Violation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
    id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) })))`)
    .then((violations) => { result = violations; }, (error: unknown) => { failure = error; });
  for (let step = 0; result === undefined && failure === undefined && step < 2_000; step++) await page.clock.runFor(1);
  await scan;
  if (failure !== undefined) throw failure;
  return result!;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}
