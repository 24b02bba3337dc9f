import { describe, expect, it } from 'vitest';
import { requestOrigin } from './public-origin.js';

const origin = (headers: Record<string, string>) => requestOrigin(new Headers(headers));

describe('requestOrigin (the payer URL\'s origin)', () => {
  it('is http and Host, or what a TLS-terminating proxy forwarded', () => {
    expect(origin({ host: '127.0.0.1:3000' })).toBe('http://127.0.0.1:3000');
    expect(origin({ host: '10.0.0.5:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'pay.example.com' })).toBe('https://pay.example.com');
    expect(origin({ host: 'api.example.com', 'x-forwarded-proto': 'HTTPS, http' })).toBe('https://api.example.com');
    expect(origin({ host: '[::1]:3000' })).toBe('http://[::1]:3000');
  });

  it('gives no origin for headers that could not form one', () => {
    expect(origin({})).toBeUndefined();
    expect(origin({ host: 'evil.example.com/path?' })).toBeUndefined();
    expect(origin({ host: 'a.example.com', 'x-forwarded-proto': 'javascript' })).toBeUndefined();
    expect(origin({ host: 'user@a.example.com' })).toBeUndefined();
  });
});
