import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  axeViolations, call, chromiumFound, CHROMIUM, consoleOrigin, emailOf, gzipSizes, launchChromium, mailedCode, newMerchant, openConsole,
  PASSWORD, screenshot, signIn, startWorld, type ConsoleTab, type Merchant, type World,
} from './console.browser-fixture.js';

if (!chromiumFound) process.stdout.write(`\nSKIPPED: console browser suite: no chromium at ${CHROMIUM} (apt-get install -y chromium)\n\n`);

const NAV = ['Dashboard', 'Payments', 'Deposits', 'Addresses', 'Collections', 'Withdrawals', 'Books', 'Developers', 'Security'];
/** The issue's budget for the compressed script of a screen's first load. */
const FIRST_LOAD_BUDGET = 150 * 1024;

/**
 * The console's shell (issue #38) in Debian's chromium against the `npm start` stack: sign-in through the form, the
 * navigation and one h1 per screen, axe (WCAG 2.1 AA) and a screenshot of each screen, the cookie session's browser
 * security, idle expiry on the server's clock, a viewer's narrower console, and the keyboard.
 */
describe.skipIf(!chromiumFound)('console shell in chromium', () => {
  let browser: Browser;
  let w: World;
  let owner: Merchant;
  let ownerEmail: string;
  let tab: ConsoleTab;
  beforeAll(async () => {
    [browser, w] = await Promise.all([launchChromium(), startWorld()]);
    owner = await newMerchant(w);
    ownerEmail = await emailOf(w, owner);
    tab = await openConsole(browser, w);
  });
  afterAll(async () => {
    await browser?.close();
    await w?.dev.stop();
  });
  // Each test starts a fresh minute of the API's GET limit (60 a minute per account): the tabs before it polled.
  beforeEach(() => { w.clock.advance(61_000); });

  const cookieOf = async (t: ConsoleTab): Promise<string> => {
    const cookie = (await t.context.cookies()).find((c) => c.name === 'ch_console');
    if (cookie === undefined) throw new Error('no console cookie');
    return cookie.value;
  };
  /** A request with the console's cookie from outside the browser, with the headers given. */
  const withCookie = (value: string, path: string, headers: Record<string, string>, init: RequestInit = {}): Promise<Response> =>
    fetch(`${w.dev.url}${path}`, { ...init, headers: { cookie: `ch_console=${value}`, ...headers } });
  const sameOrigin = { 'x-console': '1', 'sec-fetch-site': 'same-origin' };

  it('signs in through the form; every screen has its nav link, one h1, no axe violation and a screenshot; no console error', async () => {
    const { page } = tab;
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in');
    await signIn(page, ownerEmail);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(NAV);
    for (const name of NAV) {
      await nav.getByRole('link', { name, exact: true }).click();
      await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual([name]);
      expect(await axeViolations(page), name).toEqual([]);
      await screenshot(page, name.toLowerCase());
    }
    expect(tab.errors).toEqual([]);
    expect(tab.failures).toEqual([]);
  });

  it('the first load of each screen (a fresh tab opened at its address) stays under 150 KB of gzip script', async () => {
    const state = await tab.context.storageState();
    const sizes = new Map<string, number>();
    const gzipOf = async (urls: readonly string[]): Promise<number> => {
      const missing = [...new Set(urls)].filter((u) => !sizes.has(new URL(u).pathname));
      for (const [path, size] of await gzipSizes(missing, w)) sizes.set(path, size);
      return [...new Set(urls.map((u) => new URL(u).pathname))].reduce((sum, path) => sum + sizes.get(path)!, 0);
    };
    // Every screen at once, each in a fresh context (an empty cache): what its first visit loads.
    const report = await Promise.all(['sign-in', ...NAV].map(async (name) => {
      const context = await browser.newContext(name === 'sign-in' ? {} : { storageState: state });
      try {
        const page = await context.newPage();
        const scripts: string[] = [];
        page.on('request', (request) => { if (request.resourceType() === 'script') scripts.push(request.url()); });
        await page.goto(`${consoleOrigin(w)}/console${name === 'sign-in' ? '' : `#/${name.toLowerCase()}`}`);
        await page.getByRole('heading', { level: 1, name: name === 'sign-in' ? 'Sign in' : name }).waitFor();
        return { name, scripts };
      } finally {
        await context.close();
      }
    }));
    const lines: string[] = [];
    for (const { name, scripts } of report) {
      const total = await gzipOf(scripts);
      lines.push(`${name}: ${new Set(scripts).size} modules, ${total} B gzip`);
      expect(total, name).toBeLessThan(FIRST_LOAD_BUDGET);
    }
    process.stdout.write(`console first load per screen:\n  ${lines.join('\n  ')}\n`);
  });

  it('at 360 px wide every screen fits the width (no sideways scroll), and stays clean under axe', async () => {
    const narrow = await openConsole(browser, w, { width: 360 });
    try {
      const { page } = narrow;
      await signIn(page, ownerEmail);
      for (const name of NAV) {
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
        await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual([name]);
        expect(await page.evaluate<number>('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(360);
      }
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard', exact: true }).click();
      await page.getByRole('heading', { level: 2, name: 'Needs attention' }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'dashboard-360');
    } finally {
      await narrow.close();
    }
  });

  it('speaks Simplified Chinese: by navigator.language, or by the switch, remembered across a reload', async () => {
    const zh = await openConsole(browser, w, { locale: 'zh-CN' });
    try {
      await zh.page.getByRole('heading', { level: 1, name: '登录' }).waitFor();
      expect(await zh.page.evaluate<string>('document.documentElement.lang')).toBe('zh-CN');
      expect(await axeViolations(zh.page)).toEqual([]);
    } finally {
      await zh.close();
    }
    const en = await openConsole(browser, w);
    try {
      const { page } = en;
      await signIn(page, ownerEmail);
      await page.getByRole('button', { name: '简体中文' }).click();
      const nav = page.getByRole('navigation', { name: '主导航' });
      await expect.poll(() => nav.getByRole('link').allInnerTexts()).toEqual(['概览', '收款', '充值', '地址', '归集', '提现', '账簿', '开发者', '安全']);
      await page.reload();
      await nav.getByRole('link', { name: '安全' }).click();
      await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['安全']);
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'English' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
    } finally {
      await en.close();
    }
  });

  it('the session cookie is HttpOnly and SameSite=Strict; page scripts cannot read it', async () => {
    const cookie = (await tab.context.cookies()).find((c) => c.name === 'ch_console');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie!.value).toMatch(/^st_/);
    expect(await tab.page.evaluate<string>('document.cookie')).not.toContain('st_');
  });

  it('refuses cross-site use of the cookie with 403 in the envelope: no X-Console, a foreign Origin, Sec-Fetch-Site cross-site', async () => {
    const value = await cookieOf(tab);
    const post = { method: 'POST', body: JSON.stringify({ address: owner.sub }) };
    const json = { 'content-type': 'application/json' };
    expect((await withCookie(value, '/api/ledger/balances', sameOrigin)).status).toBe(200);
    for (const headers of [
      { ...json, 'sec-fetch-site': 'same-origin' },
      { ...json, 'x-console': '1', origin: 'http://evil.example' },
      { ...json, 'x-console': '1', 'sec-fetch-site': 'cross-site', origin: consoleOrigin(w) },
      { ...json, 'x-console': '1', 'sec-fetch-site': 'same-site' },
      { ...json, 'x-console': '1', referer: 'http://evil.example/page' },
      { ...json, 'x-console': '1' },
    ]) {
      const res = await withCookie(value, '/api/cashier/tokens', headers, post);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('cross-site') });
    }
    // A form post from another site cannot even sign in (login CSRF).
    const login = await fetch(`${w.dev.url}/api/auth/console/session`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://evil.example' }, body: JSON.stringify({ email: ownerEmail, password: PASSWORD }),
    });
    expect(login.status).toBe(403);
  });

  it('serves every console answer with a CSP that allows no inline script, frame-ancestors none, nosniff and no referrer', async () => {
    for (const path of ['/console', '/console/app/main.js', '/console/anything']) {
      const res = await fetch(`${w.dev.url}${path}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      const scriptSrc = csp.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src')) ?? '';
      expect(scriptSrc).toMatch(/^script-src 'self'/);
      expect(scriptSrc).not.toContain('unsafe-inline');
      expect(scriptSrc).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('keyboard: Tab from the top reaches the language switch and the sign-in fields; Enter signs in; Tab then reaches the navigation', async () => {
    const kb = await openConsole(browser, w);
    try {
      const { page } = kb;
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      // The focused element's label (a field) or text (a link, a button).
      const focused = (): Promise<string> => page.evaluate<string>(`(() => {
        const el = document.activeElement;
        return el === null ? '' : ((el.labels && el.labels[0] ? el.labels[0].textContent : el.textContent) || '').trim();
      })()`);
      const tabTo = async (name: string): Promise<void> => {
        for (let i = 0; i < 15; i++) {
          await page.keyboard.press('Tab');
          if ((await focused()) === name) return;
        }
        throw new Error(`Tab never reached ${name}`);
      };
      await tabTo('Email');
      await page.keyboard.type(ownerEmail);
      await tabTo('Password');
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      await tabTo('Payments');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('h1').allInnerTexts()).toEqual(['Payments']);
      // The shell moves the focus to the new heading in an effect after the render: asked until it has.
      await expect.poll(() => page.evaluate<string>('document.activeElement.tagName')).toBe('H1');
    } finally {
      await kb.close();
    }
  });

  it('sign-out ends the session on the server: the old cookie value is refused afterwards', async () => {
    // A merchant of its own: the login limits per e-mail are the API's, and the other tests sign the owner in.
    const own = await newMerchant(w);
    const t = await openConsole(browser, w);
    try {
      await signIn(t.page, await emailOf(w, own));
      const value = await cookieOf(t);
      expect((await withCookie(value, '/api/auth/console/session', sameOrigin)).status).toBe(200);
      await t.page.getByRole('button', { name: 'Sign out' }).click();
      await t.page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      expect((await t.context.cookies()).find((c) => c.name === 'ch_console')).toBeUndefined();
      const after = await withCookie(value, '/api/auth/console/session', sameOrigin);
      expect(after.status).toBe(401);
      // The token itself is revoked, not only the cookie cleared: as a bearer token it is refused too.
      expect((await fetch(`${w.dev.url}/api/auth/console/session`, { headers: { authorization: `Bearer ${value}` } })).status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('an idle session expires on the server clock (30 min); activity slides it, a background poll does not', async () => {
    // A merchant of its own: the login limits per e-mail are the API's, and the other tests sign the owner in.
    const own = await newMerchant(w);
    const t = await openConsole(browser, w);
    try {
      await signIn(t.page, await emailOf(w, own));
      const value = await cookieOf(t);
      const minute = 60_000;
      w.clock.advance(25 * minute);
      expect((await withCookie(value, '/api/ledger/balances', sameOrigin)).status).toBe(200); // activity: 30 min from now
      w.clock.advance(25 * minute);
      expect((await withCookie(value, '/api/ledger/balances', { ...sameOrigin, 'x-console-poll': '1' })).status).toBe(200); // a poll
      w.clock.advance(6 * minute);
      expect((await withCookie(value, '/api/ledger/balances', { ...sameOrigin, 'x-console-poll': '1' })).status).toBe(401);
      expect((await withCookie(value, '/api/ledger/balances', sameOrigin)).status).toBe(401);
      await t.page.reload();
      await t.page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor({ timeout: 5_000 }).catch(async (e: unknown) => {
        throw new Error(`${await t.page.content()}\n${t.failures.join('\n')}\n${t.errors.join('\n')}`, { cause: e });
      });
    } finally {
      await t.close();
    }
  });

  it('a viewer sees no Developers screen, cannot open it by address, and cannot write through the API', async () => {
    const viewerEmail = 'viewer@example.com';
    await call(w, 'POST', '/api/members', { token: owner.session, body: { email: viewerEmail, role: 'viewer' }, expect: 201 });
    const t = await openConsole(browser, w);
    try {
      const { page } = t;
      // Accepting the invitation through the console's form.
      await page.getByRole('button', { name: 'Accept a team invitation' }).click();
      await page.getByLabel('Email', { exact: true }).fill(viewerEmail);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByLabel('Invitation code', { exact: true }).fill(mailedCode(w, viewerEmail, (e) => new RegExp(`invitation code for ${e}: (\\S+)`)));
      await page.getByRole('button', { name: 'Accept invitation' }).click();
      await page.getByText('You joined the team. Sign in now.').waitFor();
      await signIn(page, viewerEmail);
      const nav = page.getByRole('navigation', { name: 'Main' });
      expect(await nav.getByRole('link').allInnerTexts()).toEqual(NAV.filter((n) => n !== 'Developers'));
      expect(await page.getByText('Signed in as viewer@example.com (viewer)').count()).toBe(1);
      await page.goto(`${consoleOrigin(w)}/console#/developers`);
      await page.getByRole('alert').filter({ hasText: 'Your role may not use this screen.' }).waitFor();
      const value = await cookieOf(t);
      const write = await withCookie(value, '/api/cashier/tokens', { ...sameOrigin, 'content-type': 'application/json' }, {
        method: 'POST', body: JSON.stringify({ address: owner.sub }),
      });
      expect(write.status).toBe(403);
      expect(await write.json()).toMatchObject({ code: 'TEAM-ROLE-FORBIDDEN' });
      expect((await withCookie(value, '/api/cashier/tokens', sameOrigin)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
