import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness, type CallOptions, type HttpResult } from './test-harness.js';
import { ok, TEST_PASSWORD, userWithWallets } from './api-test-fixtures.js';

/** Request log lines (pino JSON) of the API host. */
type LogLine = Record<string, unknown> & { msg?: string; reqId?: string; level?: number };

/** Secrets must never reach the logs; every request leaves one line carrying its request id. */
describe('request logging', () => {
  let h: ApiHarness;
  const responses: HttpResult[] = [];
  const secrets: string[] = [];

  const call = async (method: string, path: string, options: CallOptions = {}): Promise<HttpResult> => {
    const res = await h.call(method, path, options);
    responses.push(res);
    return res;
  };

  beforeAll(async () => {
    h = await startHarness();
    const u = await userWithWallets(h);
    const webhookSecret = `whsec_${randomUUID()}`;
    const ct = ok(await call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub } }), 201).token as string;
    const code = h.mailer.sent.map((m) => m.code);
    secrets.push(u.apiToken, u.session, ct, h.adminToken, webhookSecret, TEST_PASSWORD, ...code);
    // A broad mix of outcomes, each carrying a secret somewhere a careless logger would pick it up.
    await call('PUT', '/api/subscriptions/config', { token: u.session, body: { service_code: 'developer', config: { webhook_url: 'https://10.0.0.1/x', webhook_secret: webhookSecret } } });
    await call('PUT', '/api/subscriptions/config', { token: u.session, body: { service_code: 'developer', config: { webhook_url: 'https://8.8.8.8/hook', webhook_secret: webhookSecret } } });
    await call('GET', `/cashier?ct=${ct}`);
    await call('GET', `/api/cashier/session?ct=${ct}`, { token: ct });
    await call('POST', '/api/cashier/collect', { token: ct, headers: { 'idempotency-key': randomUUID() }, body: { asset_symbol: 'USDT' } });
    await call('GET', '/api/wallets', { token: `${u.apiToken}x` });
    await call('GET', '/api/admin/risk/deny', { token: h.adminToken });
    await call('GET', '/api/admin/risk/deny', { token: u.apiToken });
    await call('POST', '/api/auth/login', { body: { email: u.email, password: TEST_PASSWORD } });
    await call('POST', '/api/auth/login', { body: { email: u.email, password: `${TEST_PASSWORD}!` } });
    await call('POST', '/api/wallets', { token: u.apiToken, rawBody: `{"secret":"${webhookSecret}"`, headers: { 'content-type': 'application/json' } });
    await call('GET', '/api/nothing', { token: u.apiToken });
    await call('PATCH', '/api/wallets', { token: u.apiToken });
    await call('GET', '/api/wallets/%E0%A4%A', { token: u.apiToken });
    await call('GET', `/api/wallets/${u.sub}`, { token: u.apiToken, headers: { 'x-request-id': 'client-req-1' } });
    await call('GET', `/api/wallets/${u.sub}`, { token: u.apiToken, headers: { 'x-request-id': 'bad id with spaces' } });
    await call('POST', `/api/wallets/${u.main}/balances/refresh`, { token: u.apiToken, body: { force: true } });
  });
  afterAll(async () => h.close());

  const lines = (): LogLine[] => h.logLines.map((l) => JSON.parse(l) as LogLine);

  it('no token, password, code, secret or private key appears in any log line', () => {
    const text = h.logLines.join('\n');
    expect(h.logLines.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(text.includes(secret), `secret ${secret.slice(0, 4)}… logged`).toBe(false);
    // Private keys are 32-byte hex; no log line carries anything of that shape.
    expect(text).not.toMatch(/\b[0-9a-fA-F]{64}\b/);
    expect(text).not.toMatch(/ct=|authorization|bearer/i);
  });

  it('every request leaves exactly one request line with a request id, the one sent back in X-Request-Id', () => {
    const requestLines = lines().filter((l) => l.msg === 'request');
    for (const res of responses) {
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[A-Za-z0-9._:-]{1,64}$/);
      const matching = requestLines.filter((l) => l.reqId === id);
      expect(matching.map((l) => l['status'])).toEqual([res.status]);
    }
    for (const line of requestLines) {
      expect(line.reqId).toMatch(/^[A-Za-z0-9._:-]{1,64}$/);
      expect(line).toHaveProperty('method');
      expect(line).toHaveProperty('path');
      expect(line).toHaveProperty('status');
    }
    const ids = requestLines.map((l) => l.reqId);
    expect(ids).toContain('client-req-1');
    // A client id that is unsafe to log is replaced by a fresh one.
    expect(ids.some((id) => String(id).includes('bad id'))).toBe(false);
  });

  it('every line written while serving a request names that request', () => {
    for (const line of lines()) expect(line.reqId, JSON.stringify(line)).toMatch(/^[A-Za-z0-9._:-]{1,64}$/);
  });
});
