import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { sampleCheckpoint } from '../../contracts-tests/scan-cursor-store.contract.js';
import { TOKENS } from '../composition/tokens.js';
import { startApi } from './start-api.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'start-api-tests' }); });
afterAll(async () => { await devnet.close(); });

/** A production API process on the memory store (ALLOW_EPHEMERAL) and the given chain; no USDT_CONTRACT. */
const env = (chain: 'devnet' | 'tronweb'): Record<string, string> => ({
  NODE_ENV: 'production', STORE: 'memory', ALLOW_EPHEMERAL: 'true', CHAIN: chain, TRON_FULL_HOST: devnet.url,
  ...(chain === 'tronweb' ? { USDT_CONTRACT: devnet.usdtAddress } : {}),
  KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ADMIN_TOKEN: `adm_${randomBytes(24).toString('hex')}`,
  SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'no-reply@custody.test', PORT: '0', API_HOST: '127.0.0.1', METRICS_PORT: '0', LOG_LEVEL: 'silent',
});
const overrides = { hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), mailer: new RecordingMailer() };
const pay = (url: string, address: string): Promise<Response> => fetch(`${url}/dev/faucet`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address, asset_symbol: 'TRX', amount: '1500000' }),
});

describe('startApi (npm run api): the devnet faucet', () => {
  it('on CHAIN=devnet: the devnet\'s USDT contract and POST /dev/faucet, a transfer in the next block', async () => {
    const api = await startApi(env('devnet'), overrides);
    try {
      expect(api.composition.container.get(TOKENS.Config).usdtContract).toBe(devnet.usdtAddress);
      expect(api.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const to = (await api.composition.container.get(TOKENS.Chain).createAccount()).address;
      const paid = await pay(api.url, to);
      expect(paid.status).toBe(200);
      const { data } = (await paid.json()) as { data: { txid: string } };
      devnet.mine(1);
      expect(devnet.chain.head.txIds).toContain(data.txid);
    } finally {
      await api.stop();
    }
  }, 30_000);

  it('readiness fails (store-chain) when the store\'s scan cursors were on another chain than the node\'s', async () => {
    const api = await startApi(env('devnet'), overrides);
    try {
      const checks = async (): Promise<{ status: number; body: any }> => {
        const response = await fetch(`${api.url}/api/readyz`);
        return { status: response.status, body: await response.json() };
      };
      expect(await checks()).toMatchObject({ status: 200, body: { data: { checks: expect.arrayContaining([{ name: 'store-chain', ok: true }]) } } });
      const cursors = api.composition.container.get(TOKENS.Stores).scanCursors;
      const save = async (genesis: string): Promise<void> => {
        const claim = await cursors.claim('balance-scan:head', 'a-worker', 0, 1);
        if (!claim.held) throw new Error('cursor held');
        await cursors.save('balance-scan:head', 'a-worker', claim.version, { ...sampleCheckpoint(5), genesis }, 1);
      };
      await save('00'.repeat(32));
      expect(await checks()).toMatchObject({ status: 503, body: { code: 'SERVICE-UNAVAILABLE', message: expect.stringContaining('store-chain') } });
      const genesis = await api.composition.container.get(TOKENS.BlockSource).genesis();
      await save(genesis.hash);
      expect((await checks()).status).toBe(200);
    } finally {
      await api.stop();
    }
  }, 30_000);

  it('on CHAIN=tronweb: no faucet, POST /dev/faucet is 404 NOT-FOUND', async () => {
    const api = await startApi(env('tronweb'), overrides);
    try {
      const refused = await pay(api.url, devnet.info().witnesses[0]!);
      expect(refused.status).toBe(404);
      expect(await refused.json()).toMatchObject({ code: 'NOT-FOUND' });
    } finally {
      await api.stop();
    }
  }, 30_000);
});
