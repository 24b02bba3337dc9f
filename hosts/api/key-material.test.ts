import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../composition/tokens.js';
import { startHarness, type ApiHarness } from './test-harness.js';
import { createWallet, ok, userWithWallets } from './api-test-fixtures.js';

/**
 * DESIGN.md "Keys": no key material is ever logged or returned. After a session touching every wallet-facing route,
 * the real private keys (opened with the composed cipher) are searched for in every response and log line.
 */
describe('private keys never leave the service', () => {
  let h: ApiHarness;
  const addresses: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    const u = await userWithWallets(h);
    addresses.push(u.main, u.sub, await createWallet(h, u, 2, 'second'));
    h.devnet.fund(u.sub, 2_000_000);
    h.devnet.fundToken(u.sub, 3_000_000n);
    const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
    for (const address of addresses) {
      await h.call('GET', `/api/wallets/${address}`, { token: u.apiToken });
      await h.call('POST', `/api/wallets/${address}/balances/refresh`, { token: u.apiToken, body: { force: true } });
      await h.call('GET', `/api/wallets/${address}/balances`, { token: u.apiToken });
      await h.call('GET', `/api/wallets/${address}/resources`, { token: u.apiToken });
    }
    await h.call('GET', '/api/wallets?per_page=100', { token: u.apiToken });
    const ct = ok(await h.call('POST', '/api/cashier/tokens', { token: u.apiToken, body: { address: u.sub } }), 201).token;
    await h.call('GET', '/api/cashier/session', { token: ct });
    await h.call('GET', '/api/cashier/balance', { token: ct });
    await h.call('POST', '/api/cashier/collect', { token: ct, headers: key(), body: { asset_symbol: 'USDT' } });
    await h.call('GET', '/api/cashier/task', { token: ct });
    await h.call('POST', '/api/transfers', { token: u.session, headers: key(), body: { from_address: addresses[2], to_address: u.main, asset_symbol: 'TRX', amount: '1' } });
    await h.call('GET', '/api/commands?per_page=100', { token: u.apiToken });
    await h.call('GET', '/api/admin/webhooks/pending', { token: h.adminToken });
  });
  afterAll(async () => h.close());

  it('no private key (hex in either case, or base64 of its bytes) and no key ciphertext appears in any response or log line', async () => {
    const stores = h.container.get(TOKENS.Stores);
    const cipher = h.container.get(TOKENS.Cipher);
    const wallets = await stores.wallets.findManaged(addresses);
    expect(wallets).toHaveLength(addresses.length);
    const needles: string[] = [];
    for (const wallet of wallets) {
      const privateKey = new TextDecoder().decode(await cipher.decrypt(wallet.encryptedKey, wallet.address));
      expect(privateKey).toMatch(/^[0-9a-fA-F]{64}$/);
      needles.push(privateKey.toLowerCase(), privateKey.toUpperCase(), Buffer.from(privateKey, 'hex').toString('base64'), wallet.encryptedKey.ciphertext);
    }
    const haystacks = [...h.calls.map((c) => c.result.text), ...h.logLines];
    expect(h.calls.length).toBeGreaterThan(20);
    for (const needle of needles) {
      expect(haystacks.filter((text) => text.includes(needle)), 'key material found').toEqual([]);
    }
  });
});
