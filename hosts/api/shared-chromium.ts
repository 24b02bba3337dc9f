/**
 * Test support of the browser suites (never imported by production code): one Debian chromium per test worker,
 * shared by the browser files that worker runs (issue #39 item 9). Files share workers (`isolate: false`), and each
 * launch cost about two CPU-seconds in processes of its own (GPU, network and storage services, zygotes) before a page
 * was open. A file gets a lease that looks like the browser: its contexts are its own, as a fresh browser's are (no
 * cookies, storage or cache shared), and its `close()` closes them, leaving the browser to the worker's next file.
 * Playwright ends the browser when the worker exits. A browser that has gone away is launched again.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`); CHROMIUM_PATH overrides. Never a downloaded browser. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const chromiumFound = existsSync(CHROMIUM);

/**
 * The host names the pages are opened under, each mapped to 127.0.0.1: plain-HTTP origins that are not localhost, so
 * a page runs outside a secure context, as a payer's or an operator's does behind a proxy without TLS.
 */
export const PAYER_HOST = 'payer.test';
export const CONSOLE_HOST = 'console.test';

let shared: Promise<Browser> | undefined;

function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    chromiumSandbox: false,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', `--host-resolver-rules=MAP ${PAYER_HOST} 127.0.0.1,MAP ${CONSOLE_HOST} 127.0.0.1`,
    ],
  });
}

/** A lease on the worker's chromium (launched on first use): `newContext` as the browser's, `close` ends the lease's contexts. */
export async function launchChromium(): Promise<Browser> {
  let browser = await (shared ??= launch());
  if (!browser.isConnected()) {
    shared = launch();
    browser = await shared;
  }
  const contexts = new Set<BrowserContext>();
  const leased = async (...args: Parameters<Browser['newContext']>): Promise<BrowserContext> => {
    const context = await browser.newContext(...args);
    contexts.add(context);
    context.once('close', () => contexts.delete(context));
    return context;
  };
  return new Proxy(browser, {
    get(target, property, receiver) {
      if (property === 'newContext') return leased;
      if (property === 'newPage') return async (...args: Parameters<Browser['newContext']>) => (await leased(...args)).newPage();
      if (property === 'close') {
        return async () => {
          await Promise.all([...contexts].map((context) => context.close().catch(() => undefined)));
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
