/**
 * Test support of the console's browser suite (issue #38; never imported by production code): the `npm start` stack on
 * a manual clock (hosts/dev, as the payer page's suite starts it), merchants and members made over HTTP, Debian's
 * chromium through playwright-core, sign-in through the form, axe-core (WCAG 2.1 AA tags) and screenshots to
 * test-artifacts/console-<screen>.png. One browser per file; a test reuses one page where it can.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import axe from 'axe-core';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { pino } from 'pino';
import { ManualClock } from '../../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../../adapters/node/index.js';
import { startDev } from '../../dev/start-dev.js';
import { call, newMerchant, type Merchant, type World } from '../cashier-page/payer-page.browser-fixture.js';

export { CHROMIUM, chromiumFound, call, newMerchant, type Merchant, type World } from '../cashier-page/payer-page.browser-fixture.js';

/**
 * The `npm start` stack with every clock manual (as the payer page's suite starts it), plus `env`. Policy changes take
 * effect at once (POLICY_CHANGE_DELAY_H=0, as in development), so invited members join without waiting.
 */
export async function startWorld(env: Record<string, string> = {}): Promise<World> {
  const output: string[] = [];
  const clock = new ManualClock(Date.now());
  const dev = await startDev({
    env: { PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '0', POLICY_CHANGE_DELAY_H: '0', ...env }, writeLine: (line) => output.push(line),
    manualWorker: true, clock, logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
  });
  return { dev, clock, output, base: `http://${CONSOLE_HOST}:${new URL(dev.url).port}` };
}

export { CONSOLE_HOST, launchChromium } from '../shared-chromium.js';
import { CONSOLE_HOST } from '../shared-chromium.js';
export const PASSWORD = 'correct horse battery staple';

/** Screenshots land here, as console-<screen>.png (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

/** The console's origin as the browser reaches it. */
export function consoleOrigin(w: World): string {
  return `http://${CONSOLE_HOST}:${new URL(w.dev.url).port}`;
}

/** The e-mail of a merchant made by newMerchant (merchantN@example.com), read back from the session. */
export async function emailOf(w: World, m: Merchant): Promise<string> {
  return (await call(w, 'GET', '/api/auth/console/session', { token: m.session })).email as string;
}

/** The last code of `kind` mailed to `email` in the dev mailbox output (verification or invitation). */
export function mailedCode(w: World, email: string, pattern: (email: string) => RegExp): string {
  const codes = w.output.map((line) => pattern(email).exec(line)?.[1]).filter((c): c is string => c !== undefined);
  if (codes.length === 0) throw new Error(`no code mailed to ${email}:\n${w.output.slice(-20).join('\n')}`);
  return codes.at(-1)!;
}

/** An open console tab: its context (for cookies), the page, and what the page logged as errors (CSP refusals too). */
export interface ConsoleTab {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly errors: string[];
  /** Every script URL the page loaded, in order (for the first-load size). */
  readonly scripts: string[];
  /** Answers of 400 and above, as "status path", except the 401 of the signed-out page's session probe. */
  readonly failures: string[];
  close(): Promise<void>;
}

export async function openConsole(
  browser: Browser, w: World, options: { width?: number; locale?: string; path?: string; timezoneId?: string } = {},
): Promise<ConsoleTab> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: 900 }, locale: options.locale ?? 'en-US',
    ...(options.timezoneId === undefined ? {} : { timezoneId: options.timezoneId }),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  const scripts: string[] = [];
  const failures: string[] = [];
  // Chrome logs every non-2xx fetch as a console error: those are judged by `failures` instead.
  page.on('console', (message) => { if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text()); });
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (response.status() >= 400 && !(response.status() === 401 && path === '/api/auth/console/session')) failures.push(`${response.status()} ${path}`);
  });
  page.on('pageerror', (error) => { errors.push(error.message); });
  page.on('request', (request) => { if (request.resourceType() === 'script') scripts.push(request.url()); });
  await page.goto(`${consoleOrigin(w)}/console${options.path ?? ''}`);
  return { context, page, errors, scripts, failures, close: () => context.close() };
}

/** Signs in through the form (the fixed names of issue #38) and waits for the navigation. */
export async function signIn(page: Page, email: string, password = PASSWORD, code?: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  if (code !== undefined) await page.getByLabel('Authentication code', { exact: true }).fill(code);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 10_000 });
}

/** Waits for a locator; on a timeout the error tells what the page's main region showed instead. */
export async function shows(page: Page, locator: Locator, timeout = 10_000): Promise<void> {
  try {
    await locator.first().waitFor({ timeout });
  } catch (error) {
    const shown = await page.locator('body').innerText().catch(() => '(no page)');
    throw new Error(`${String(locator)} never showed; the page shows:\n${shown}`, { cause: error });
  }
}

export type Violation = { id: string; impact: string; targets: string[] };

/** axe-core with the WCAG 2.0/2.1 A and AA rules, injected through the devtools protocol (the page's CSP stays on). */
export async function axeViolations(page: Page): Promise<Violation[]> {
  // Injected once per document (half a megabyte of script to send and compile): an open page keeps it for its next scan.
  if (await page.evaluate('typeof axe === "undefined"')) await page.evaluate(axe.source);
  return page.evaluate<Violation[]>(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) })))`);
}

export async function screenshot(page: Page, screen: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `console-${screen}.png`), fullPage: true });
}

/** The gzip size in bytes of each distinct script URL (fetched again from the server, as the browser got them). */
export async function gzipSizes(urls: readonly string[], w: World): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const url of new Set(urls)) {
    const local = `${w.dev.url}${new URL(url).pathname}`;
    const body = Buffer.from(await (await fetch(local)).arrayBuffer());
    sizes.set(new URL(url).pathname, gzipSync(body, { level: 9 }).length);
  }
  return sizes;
}
