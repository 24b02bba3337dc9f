import { createHash } from 'node:crypto';
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from '../test-harness.js';
import { fails, ok, userWithWallets } from '../api-test-fixtures.js';
import { PAGE_LANGUAGES, pickLanguage } from './messages.js';

describe('payer page languages', () => {
  it('picks the language from Accept-Language by weight; any Chinese gets Simplified Chinese; English otherwise', () => {
    expect(pickLanguage(null)).toBe('en');
    expect(pickLanguage('')).toBe('en');
    expect(pickLanguage('zh-CN,zh;q=0.9,en;q=0.8')).toBe('zh-CN');
    expect(pickLanguage('en-US,en;q=0.9,zh-CN;q=0.8')).toBe('en');
    expect(pickLanguage('fr-FR, zh-TW;q=0.5, en;q=0.4')).toBe('zh-CN');
    expect(pickLanguage('en;q=0.2, zh-Hans;q=0.7')).toBe('zh-CN');
    expect(pickLanguage('zh;q=0, en')).toBe('en');
    expect(pickLanguage('de, fr')).toBe('en');
    expect(pickLanguage('ZH-cn')).toBe('zh-CN');
    expect(pickLanguage('*')).toBe('en');
  });

  it('every language has every message, with the same {placeholders}', () => {
    const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
    const [english, ...others] = PAGE_LANGUAGES;
    for (const language of others) {
      expect(Object.keys(language.messages).sort()).toEqual(Object.keys(english.messages).sort());
      for (const [key, text] of Object.entries(english.messages)) {
        expect(placeholders(language.messages[key as keyof typeof english.messages]), `${language.tag} ${key}`).toEqual(placeholders(text));
      }
    }
  });
});

/** The CSP's directives by name, each with its sources as written. */
const cspDirectives = (csp: string): Record<string, string> =>
  Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name!, sources.join(' ')]));

/** Every `<script>` element of a page: its attributes and its text. */
const scriptElements = (html: string): { attrs: string; text: string }[] =>
  [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)].map((m) => ({ attrs: m[1]!, text: m[2]! }));

const scriptSources = (html: string): string[] =>
  scriptElements(html).flatMap((e) => [...e.attrs.matchAll(/\ssrc="([^"]*)"/g)].map((m) => m[1]!));

describe('payer page over HTTP', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => { await h.close(); });

  it('answers in the Accept-Language language with the same script file and hash-pinned style; the QR code needs the token', async () => {
    const en = await h.call('GET', '/cashier', { headers: { 'accept-language': 'en-GB' } });
    const zh = await h.call('GET', '/cashier', { headers: { 'accept-language': 'zh-CN,zh;q=0.9' } });
    expect(en.text).toContain('<html lang="en">');
    expect(zh.text).toContain('<html lang="zh-CN">');
    expect(zh.text).toContain('使用 USDT 或 TRX 付款');
    expect([en.headers.get('content-language'), zh.headers.get('content-language')]).toEqual(['en', 'zh-CN']);
    expect(zh.headers.get('vary')).toContain('Accept-Language');
    expect(zh.headers.get('content-security-policy')).toBe(en.headers.get('content-security-policy'));
    expect(scriptSources(zh.text)).toEqual(scriptSources(en.text));
    const csp = zh.headers.get('content-security-policy') ?? '';
    const styles = [...zh.text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
    expect(styles).toHaveLength(1);
    expect(cspDirectives(csp)).toEqual({
      'default-src': "'none'", 'script-src': "'self'", 'style-src': styles[0], 'img-src': 'blob:', 'connect-src': "'self'",
      'base-uri': "'none'", 'form-action': "'none'", 'frame-ancestors': "'none'",
    });
    expect(cspDirectives(csp)['script-src']).not.toMatch(/unsafe-inline|sha256-/);
    expect(csp).not.toContain('unsafe');
    expect(zh.headers.get('x-frame-options')).toBe('DENY');

    const user = await userWithWallets(h);
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: user.sub } }), 201).token;
    const qr = await h.call('GET', '/api/cashier/qr', { token: ct });
    expect(qr.status).toBe(200);
    expect(qr.headers.get('content-type')).toBe('image/svg+xml');
    expect(qr.text).toMatch(/^<svg[^>]*viewBox="0 0 \d+ \d+"/);
    expect(qr.text).not.toMatch(/<script|on\w+=/i);
    fails(await h.call('GET', '/api/cashier/qr'), 401, 'CASHIER-TOKEN-MISSING');
    fails(await h.call('GET', '/api/cashier/qr', { token: 'ct_nope' }), 401, 'CASHIER-TOKEN-INVALID');
  });

  it('runs no inline code: one same-origin script file beside the page, settings and messages in a JSON block that never runs', async () => {
    const page = await h.call('GET', '/cashier');
    const scripts = scriptElements(page.text);
    // A browser runs a <script> only with no type or a JavaScript one; application/json is a data block (no CSP check).
    const runs = scripts.filter((e) => !/\stype="application\/json"/.test(e.attrs));
    expect(runs.map((e) => [/\ssrc="[^"]+"/.test(e.attrs), e.text])).toEqual([[true, '']]);
    const data = scripts.filter((e) => !runs.includes(e));
    expect(data.map((e) => e.attrs)).toEqual([' type="application/json" id="page-config"']);
    const config = JSON.parse(data[0]!.text) as { lang: string; messages: Record<string, Record<string, string>> };
    expect(config.lang).toBe('en');
    expect(Object.keys(config.messages).sort()).toEqual(PAGE_LANGUAGES.map((l) => l.tag).sort());
    // Nor does it run code another way: no event-handler attribute, no javascript: URL.
    expect(page.text).not.toMatch(/\son[a-z]+\s*=|javascript:/i);

    // The script is linked as the page is served: by an absolute path under the page's own, so whatever routes
    // /cashier to this host routes its script too.
    const [src] = scriptSources(page.text);
    const url = new URL(src!, 'http://payer.test/cashier');
    expect(url.origin).toBe('http://payer.test');
    expect(url.pathname).toBe('/cashier/payer-page.js');
    const file = await h.call('GET', `${url.pathname}${url.search}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // A classic script (no module syntax left), which reads its settings from the JSON block.
    expect(() => new Script(file.text)).not.toThrow();
    expect(file.text).toContain("document.getElementById('page-config')");
    expect(file.text).toContain('function paymentRequestView(');

    // The long cache holds only for the version this release links: any other URL of the file is revalidated.
    for (const other of [url.pathname, `${url.pathname}?v=old`]) {
      const answer = await h.call('GET', other);
      expect([answer.status, answer.headers.get('cache-control'), answer.text === file.text]).toEqual([200, 'no-cache', true]);
    }
    const openapi = JSON.parse((await h.call('GET', '/api/openapi.json')).text) as { paths: Record<string, { get?: { operationId?: string } }> };
    expect(openapi.paths['/cashier/payer-page.js']?.get?.operationId).toBe('getPayerPageScript');
  });
});
