import { createHash } from 'node:crypto';
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

describe('payer page over HTTP', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => { await h.close(); });

  it('answers in the Accept-Language language with the same hash-pinned script and style; the QR code needs the token', async () => {
    const en = await h.call('GET', '/cashier', { headers: { 'accept-language': 'en-GB' } });
    const zh = await h.call('GET', '/cashier', { headers: { 'accept-language': 'zh-CN,zh;q=0.9' } });
    expect(en.text).toContain('<html lang="en">');
    expect(zh.text).toContain('<html lang="zh-CN">');
    expect(zh.text).toContain('使用 USDT 或 TRX 付款');
    expect([en.headers.get('content-language'), zh.headers.get('content-language')]).toEqual(['en', 'zh-CN']);
    expect(zh.headers.get('vary')).toContain('Accept-Language');
    expect(zh.headers.get('content-security-policy')).toBe(en.headers.get('content-security-policy'));
    const csp = zh.headers.get('content-security-policy') ?? '';
    for (const [, tag, content] of zh.text.matchAll(/<(script|style)>([\s\S]*?)<\/\1>/g)) {
      expect(csp).toContain(`${tag}-src 'sha256-${createHash('sha256').update(content!).digest('base64')}'`);
    }
    expect(csp).toContain('img-src blob:');
    expect(csp).not.toContain('unsafe');

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
});
