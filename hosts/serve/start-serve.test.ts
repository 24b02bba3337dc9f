import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { ConfigError } from '../composition/config.js';
import { TOKENS } from '../composition/tokens.js';
import { startServe } from './start-serve.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'serve-tests' }); });
afterAll(async () => { await devnet.close(); });

/** What a production single-machine process needs, on the memory store (each test says whether it may be). */
const env = (): Record<string, string> => ({
  NODE_ENV: 'production', STORE: 'memory', CHAIN: 'devnet', TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress,
  KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ADMIN_TOKEN: `adm_${randomBytes(24).toString('hex')}`,
  SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'no-reply@custody.test', PORT: '0', API_HOST: '127.0.0.1', METRICS_PORT: '0',
  METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'silent',
});

async function rejection(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('startServe (npm run serve)', () => {
  it('refuses the memory store in production without ALLOW_EPHEMERAL, naming STORE, before anything listens', async () => {
    const error = await rejection(startServe(env()));
    expect(error.variable).toBe('STORE');
    expect(error.message).toContain('STORE is memory in a production process that keeps its state (npm run serve)');
    expect(error.message).toContain('set STORE=postgres (or mongodb), or ALLOW_EPHEMERAL=true');
  });

  it('runs the API and the worker on one composition: readiness and /healthz answer; stop drains both', async () => {
    const serve = await startServe({ ...env(), ALLOW_EPHEMERAL: 'true', LOCKS: 'memory' }, {
      hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), mailer: new RecordingMailer(),
    });
    const c = serve.composition.container;
    expect(c.get(TOKENS.Config)).toMatchObject({ role: 'all', mode: 'production', store: 'memory', locks: 'memory' });
    const ready = await fetch(`${serve.url}/api/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { data: { checks: unknown[] } }).data.checks).toContainEqual({ name: 'store', ok: true });
    expect((await fetch(`${serve.metricsUrl!}/healthz`)).status).toBe(200);
    // The worker is the one of this composition: a tick runs on the same stores the API wrote to.
    const register = await fetch(`${serve.url}/api/auth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 's@example.com', password: 'correct horse battery' }),
    });
    expect(register.status).toBe(201);
    expect(await c.get(TOKENS.Stores).accounts.listPendingByEmail('s@example.com')).toHaveLength(1);
    await serve.worker.tick();
    expect(await serve.stop(5_000)).toBe(true);
    await expect(fetch(`${serve.url}/api/healthz`)).rejects.toThrow();
    await expect(fetch(`${serve.metricsUrl!}/healthz`)).rejects.toThrow();
  }, 30_000);

  it('on CHAIN=devnet: the banner names the store, chain, node and USDT contract; POST /dev/faucet pays with a real transaction', async () => {
    const serve = await startServe({ ...env(), ALLOW_EPHEMERAL: 'true', USDT_CONTRACT: '', METRICS_HOST: '' }, {
      hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), mailer: new RecordingMailer(),
    });
    try {
      expect(serve.banner).toBe(`serve listening ${serve.url} (API and worker in one process); store memory (nothing survives a restart); `
        + `chain devnet at ${devnet.url}; USDT contract ${devnet.usdtAddress}; faucet POST ${serve.url}/dev/faucet (devnet only)`);
      // METRICS_HOST unset: /metrics listens on loopback only.
      expect(serve.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const to = (await serve.composition.container.get(TOKENS.Chain).createAccount()).address;
      const paid = await fetch(`${serve.url}/dev/faucet`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: to, asset_symbol: 'TRX', amount: '2500000' }),
      });
      expect(paid.status).toBe(200);
      const { data } = (await paid.json()) as { data: { txid: string; from: string } };
      expect(data.from).toBe(serve.faucet!.address);
      devnet.mine(1);
      expect(devnet.chain.head.txIds).toContain(data.txid);
      const account = await fetch(`${devnet.url}/wallet/getaccount`, { method: 'POST', body: JSON.stringify({ address: to, visible: true }) });
      expect(((await account.json()) as { balance?: number }).balance).toBe(2_500_000);
      // npm start's mailbox is not served here: codes go by SMTP.
      expect((await fetch(`${serve.url}/dev/verification-code?email=a@b.c`)).status).toBe(404);
    } finally {
      await serve.stop(5_000);
    }
  }, 30_000);

  it('on CHAIN=tronweb there is no faucet: POST /dev/faucet is 404 NOT-FOUND', async () => {
    const serve = await startServe({ ...env(), ALLOW_EPHEMERAL: 'true', CHAIN: 'tronweb' }, {
      hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), mailer: new RecordingMailer(),
    });
    try {
      expect(serve.faucet).toBeNull();
      expect(serve.banner).toContain(`chain tronweb at ${devnet.url}; USDT contract ${devnet.usdtAddress}`);
      expect(serve.banner).not.toContain('faucet');
      const response = await fetch(`${serve.url}/dev/faucet`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: devnet.info().witnesses[0], asset_symbol: 'TRX', amount: '1' }),
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'NOT-FOUND' });
    } finally {
      await serve.stop(5_000);
    }
  }, 30_000);

  it('on CHAIN=devnet it waits for the devnet, telling each try, and takes its USDT contract (never mainnet\'s)', async () => {
    const free: Server = await new Promise((resolve) => { const s = createServer().listen(0, '127.0.0.1', () => resolve(s)); });
    const port = (free.address() as { port: number }).port;
    await new Promise((resolve) => free.close(resolve));
    const waits: { attempt: number; reason: string }[] = [];
    let late: Devnet | null = null;
    const starting = startServe({ ...env(), ALLOW_EPHEMERAL: 'true', USDT_CONTRACT: '', TRON_FULL_HOST: `http://127.0.0.1:${port}` }, {
      hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), mailer: new RecordingMailer(),
    }, { retryMs: 50, onWait: (w) => { waits.push(w); } });
    try {
      while (waits.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(waits[0]).toMatchObject({ attempt: 1, reason: 'ECONNREFUSED' });
      late = await startDevnet({ port, blockMs: 0, seed: 'serve-late-devnet' });
      const serve = await starting;
      expect(serve.composition.container.get(TOKENS.Config).usdtContract).toBe(late.usdtAddress);
      expect(serve.banner).toContain(`USDT contract ${late.usdtAddress}`);
    } finally {
      await starting.then((s) => s.stop(5_000), () => undefined);
      await late?.close();
    }
  }, 30_000);

  it('metrics default to 9464 like npm run api and npm run worker; a taken PORT is a ConfigError naming PORT', async () => {
    const taken: Server = await new Promise((resolve) => { const s = createServer().listen(0, '127.0.0.1', () => resolve(s)); });
    try {
      const port = (taken.address() as { port: number }).port;
      const error = await rejection(startServe({ ...env(), ALLOW_EPHEMERAL: 'true', PORT: String(port) }));
      expect(error.message).toBe(`configuration: PORT port ${port} cannot be used (EADDRINUSE)`);
      expect(await rejection(startServe({ ...env(), ALLOW_EPHEMERAL: 'true', PORT: '9464', METRICS_PORT: '' }))).toMatchObject({ variable: 'METRICS_PORT' });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
