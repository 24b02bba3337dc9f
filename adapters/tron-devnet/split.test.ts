/**
 * Split endpoints as a self-hosted java-tron serves them: /wallet/* on the full node's port, /walletsolidity/* on
 * a second port; real tronweb configured with fullNode + solidityNode; faults shared by both servers.
 */
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { solidify, startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

const status = async (url: string, body: unknown = {}): Promise<number> =>
  (await fetch(url, { method: 'POST', body: JSON.stringify(body) })).status;

describe('split full / solidity endpoints (java-tron 8090 + 8091)', () => {
  let devnet: Devnet;
  let payer: Wallet;
  let split: TronWeb;
  beforeAll(async () => {
    devnet = await startTestDevnet({ solidityPort: 0, fullServesSolidity: false });
    payer = wallet(devnet, 'split-payer');
    devnet.fund(payer.address, trx(100));
    split = new TronWeb({ fullNode: devnet.url, solidityNode: devnet.solidityUrl, privateKey: payer.key });
  });
  afterAll(() => devnet.close());

  it('the full node answers /walletsolidity/* with 404 and the solidity node answers /wallet/* (and /sim/*) with 404', async () => {
    expect(devnet.solidityUrl).not.toBe(devnet.url);
    expect(devnet.info().solidity_url).toBe(devnet.solidityUrl);
    expect(await status(`${devnet.url}/walletsolidity/getnowblock`)).toBe(404);
    expect(await status(`${devnet.url}/wallet/getnowblock`)).toBe(200);
    expect(await status(`${devnet.solidityUrl}/walletsolidity/getnowblock`)).toBe(200);
    expect(await status(`${devnet.solidityUrl}/wallet/getnowblock`)).toBe(404);
    expect(await status(`${devnet.solidityUrl}/wallet/broadcasttransaction`)).toBe(404);
    expect(await status(`${devnet.solidityUrl}/sim/info`)).toBe(404);
    expect(await status(`${devnet.url}/sim/info`)).toBe(200);
  });

  it('tronweb with solidityNode on the solidity port sends on the full node and reads solidified data on the other', async () => {
    const to = wallet(devnet, 'split-to');
    const sent = await split.trx.sendTransaction(to.address, trx(2));
    expect(sent.result).toBe(true);
    devnet.mine(1);
    expect(await split.trx.getUnconfirmedBalance(to.address)).toBe(trx(2));
    expect(await split.trx.getBalance(to.address)).toBe(0);
    solidify(devnet);
    expect(await split.trx.getBalance(to.address)).toBe(trx(2));
    const info = await split.trx.getTransactionInfo(sent.transaction.txID);
    expect(info.id).toBe(sent.transaction.txID);
    expect((await split.trx.getConfirmedTransaction(sent.transaction.txID)).txID).toBe(sent.transaction.txID);
  });

  it('a client that points solidityNode at the full node fails its solidified reads, as against java-tron', async () => {
    const wrong = new TronWeb({ fullHost: devnet.url, privateKey: payer.key });
    await expect(wrong.trx.getBalance(payer.address)).rejects.toThrow(/404/);
    expect(await wrong.trx.getUnconfirmedBalance(payer.address)).toBeGreaterThan(0);
  });

  it('faults apply on both servers: walletsolidity/* rules hit the solidity port, the quota spans both', async () => {
    devnet.setFaults({ script: [{ path: 'walletsolidity/*', kind: 'http_503' }] });
    expect(await status(`${devnet.url}/wallet/getnowblock`)).toBe(200);
    expect(await status(`${devnet.solidityUrl}/walletsolidity/getnowblock`)).toBe(503);
    expect(await status(`${devnet.solidityUrl}/walletsolidity/getnowblock`)).toBe(200);
    devnet.setFaults({ rate_limit: { budget: 2, window_ms: 3_600_000, status: 429 } });
    expect(await status(`${devnet.url}/wallet/getnowblock`)).toBe(200);
    expect(await status(`${devnet.solidityUrl}/walletsolidity/getnowblock`)).toBe(200);
    expect(await status(`${devnet.solidityUrl}/walletsolidity/getnowblock`)).toBe(429);
    expect(await status(`${devnet.url}/wallet/getnowblock`)).toBe(429);
    devnet.setFaults({ rate_limit: null, node_down: true });
    await expect(fetch(`${devnet.solidityUrl}/walletsolidity/getnowblock`, { method: 'POST' })).rejects.toThrow();
    devnet.setFaults({ node_down: false });
  });
});

describe('split endpoint options', () => {
  it('without solidityPort one server serves both and solidityUrl is the same URL', async () => {
    const devnet = await startTestDevnet();
    try {
      expect(devnet.solidityUrl).toBe(devnet.url);
      expect(await status(`${devnet.url}/walletsolidity/getnowblock`)).toBe(200);
    } finally {
      await devnet.close();
    }
  });

  it('fullServesSolidity defaults to true with a solidity port; fullServesSolidity: false alone refuses solidity calls', async () => {
    const both = await startTestDevnet({ solidityPort: 0 });
    const fullOnly = await startTestDevnet({ fullServesSolidity: false });
    try {
      expect(await status(`${both.url}/walletsolidity/getnowblock`)).toBe(200);
      expect(await status(`${both.solidityUrl}/walletsolidity/getnowblock`)).toBe(200);
      expect(fullOnly.solidityUrl).toBe(fullOnly.url);
      expect(await status(`${fullOnly.url}/walletsolidity/getnowblock`)).toBe(404);
    } finally {
      await Promise.all([both.close(), fullOnly.close()]);
    }
  });

  it('close() closes both servers', async () => {
    const devnet = await startTestDevnet({ solidityPort: 0 });
    await devnet.close();
    await expect(fetch(`${devnet.solidityUrl}/walletsolidity/getnowblock`, { method: 'POST' })).rejects.toThrow();
    await expect(fetch(`${devnet.url}/wallet/getnowblock`, { method: 'POST' })).rejects.toThrow();
  });
});
