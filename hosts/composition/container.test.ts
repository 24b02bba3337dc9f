import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ManualClock, MemoryAddressLock, MemoryRateLimiter, RecordingMailer } from '../../adapters/memory/index.js';
import { HttpWebhookTransport } from '../../adapters/http/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { RentalMarketEnergyProvider, SelfDelegationEnergyProvider, TronWebChainGateway } from '../../adapters/tron/index.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { PgAccountRepository } from '../../adapters/postgres/pg-account-repository.js';
import { PgIdempotencyStore } from '../../adapters/postgres/pg-idempotency-store.js';
import { PgScanCursorStore } from '../../adapters/postgres/pg-scan-cursor-store.js';
import { PgWalletRepository } from '../../adapters/postgres/pg-wallet-repository.js';
import { startApiServer } from '../api/api-server.js';
import { startApi } from '../api/start-api.js';
import { startWorkerProcess } from '../worker/start-worker.js';
import { ConfigError, loadConfig } from './config.js';
import { composeContainer, openComposition, type Composition } from './container.js';
import { TOKENS } from './tokens.js';

const ADMIN = 'admin-token-0123456789abcdef0123456789';
const KEK = randomBytes(32).toString('base64');
const silent = pino({ level: 'silent' });

let devnet: Devnet;
beforeAll(async () => { devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'composition-tests' }); });
afterAll(async () => { await devnet.close(); });

function compose(env: Record<string, string>): Composition {
  const config = loadConfig({ TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress, ADMIN_TOKEN: ADMIN, ...env }, { mode: 'dev' });
  return composeContainer(config, {
    clock: new ManualClock(), mailer: new RecordingMailer(), logger: silent, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
  });
}

describe('memory composition', () => {
  it('resolves every token, each to one shared instance', () => {
    const { container } = compose({});
    for (const [name, token] of Object.entries(TOKENS)) {
      const first = container.get(token as symbol);
      expect(first, name).toBeDefined();
      expect(container.get(token as symbol), name).toBe(first);
    }
  });

  it('wires the adapters the configuration selects', () => {
    const { container } = compose({ CHAIN: 'tronweb' });
    expect(container.get(TOKENS.AddressLock)).toBeInstanceOf(MemoryAddressLock);
    expect(container.get(TOKENS.RateLimiter)).toBeInstanceOf(MemoryRateLimiter);
    expect(container.get(TOKENS.Chain)).toBeInstanceOf(TronWebChainGateway);
    expect(container.get(TOKENS.Transport)).toBeInstanceOf(HttpWebhookTransport);
    const energy = container.get(TOKENS.EnergyProviders);
    expect(energy.self).toBeInstanceOf(SelfDelegationEnergyProvider);
    expect(energy.rental).toBeNull();
    // The use cases and the worker see the same store instances.
    const stores = container.get(TOKENS.Stores);
    expect(container.get(TOKENS.CoreDeps).wallets).toBe(stores.wallets);
    expect(container.get(TOKENS.Outbox)).toBe(stores.outbox);
    // Metered (idempotency outcomes are counted), still the store's own adapter.
    expect(container.get(TOKENS.Idempotency)).toBeInstanceOf(stores.idempotency.constructor as new () => unknown);
  });

  it("the workflows' gateway fails over to TRON_FULL_HOSTS entries other than TRON_FULL_HOST, on the composition's clock", async () => {
    const two = await startDevnet({ port: 0, blockMs: 0, seed: 'composition-failover', extraNodes: 1 });
    try {
      const clock = new ManualClock();
      const config = loadConfig({
        // The first entry is TRON_FULL_HOST spelled another way: it must not become its own fallback.
        TRON_FULL_HOST: two.url, TRON_FULL_HOSTS: `${two.url}/,${two.nodes[1]!.url}`, USDT_CONTRACT: two.usdtAddress, ADMIN_TOKEN: ADMIN,
        // Every read asks a node here (no per-block reads): the failover is what is counted.
        CHAIN_BLOCK_MS: '0',
      }, { mode: 'dev' });
      const { container } = composeContainer(config, { clock, mailer: new RecordingMailer(), logger: silent });
      const chain = container.get(TOKENS.Chain);
      const { address } = await chain.createAccount();
      two.fund(address, 3_000_000);
      two.mine(1);
      two.nodes[0]!.setFaults({ node_down: true });
      expect(await chain.getTrxBalance(address)).toBe(3_000_000n);
      // Operators see which node failed (its origin only), once per request: the node was not retried as a fallback.
      expect(await container.get(TOKENS.Metrics).metrics()).toContain(`custody_chain_node_failures_total{node="${new URL(two.url).origin}",service="custody-api"} 1`);
      // The first node is back, but paused on the composition's clock until a second has passed there.
      two.nodes[0]!.setFaults({ node_down: false });
      const served = two.nodes[0]!.calls;
      await chain.getTrxBalance(address);
      expect(two.nodes[0]!.calls).toBe(served);
      clock.advance(1_000);
      await chain.getTrxBalance(address);
      expect(two.nodes[0]!.calls).toBe(served + 1);
    } finally {
      await two.close();
    }
  });

  it('an unset ADMIN_TOKEN in dev mode is generated; an unset KEY_ENCRYPTION_KEY makes an ephemeral key', () => {
    const config = loadConfig({ TRON_FULL_HOST: devnet.url }, { mode: 'dev' });
    const a = composeContainer(config, { logger: silent });
    const b = composeContainer(config, { logger: silent });
    expect(a.adminToken).toMatch(/^adm_[A-Za-z0-9_-]{43}$/);
    expect(a.adminToken).not.toBe(b.adminToken);
    expect(a.ephemeralKey).toBe(true);
    const withKey = composeContainer(loadConfig({ KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') }, { mode: 'dev' }), { logger: silent });
    expect(withKey.ephemeralKey).toBe(false);
  });

  it('the composed API answers over HTTP, with the admin token it reports', async () => {
    const composition = compose({});
    const server = await startApiServer(composition.container.get(TOKENS.ApiHost).h3, { port: 0 });
    try {
      const ready = await fetch(`${server.url}/api/readyz`);
      const body = await ready.json() as { data: unknown };
      expect(ready.status).toBe(200);
      expect(JSON.stringify(body.data)).toContain('chain');
      const register = await fetch(`${server.url}/api/auth/register`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'c@example.com', password: 'correct horse battery' }),
      });
      expect(register.status).toBe(201);
    } finally {
      await server.close();
      await composition.close();
    }
  });
});

describe('chain composition against the in-process devnet', () => {
  it('CHAIN=tronweb reaches the node through tronweb and reports it ready', async () => {
    devnet.mine(3);
    const { container } = compose({ CHAIN: 'tronweb' });
    const head = await container.get(TOKENS.Chain).head();
    expect(head.number).toBe(devnet.info().head_number);
    const checks = await container.get(TOKENS.Readiness)();
    expect(checks).toContainEqual({ name: 'chain', ok: true });
  });

  it('readiness says the chain is down when the node does not answer', async () => {
    const { container } = compose({ CHAIN: 'tronweb', TRON_FULL_HOST: 'http://127.0.0.1:1' });
    expect(await container.get(TOKENS.Readiness)()).toContainEqual({ name: 'chain', ok: false });
  });

  it('openComposition with CHAIN=devnet and no USDT_CONTRACT takes the devnet\'s own contract; a given one is kept', async () => {
    const discovered = await openComposition(loadConfig({ TRON_FULL_HOST: devnet.url }, { mode: 'dev' }), { logger: silent });
    expect(discovered.container.get(TOKENS.Assets).find('TRON', 'USDT')?.contractAddress).toBe(devnet.usdtAddress);
    const given = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';
    const kept = await openComposition(loadConfig({ TRON_FULL_HOST: devnet.url, USDT_CONTRACT: given }, { mode: 'dev' }), { logger: silent });
    expect(kept.container.get(TOKENS.Config).usdtContract).toBe(given);
    const unreachable = await openComposition(loadConfig({ TRON_FULL_HOST: 'http://127.0.0.1:1' }, { mode: 'dev' }), { logger: silent });
    expect(unreachable.container.get(TOKENS.Config).usdtContract).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
  });

  it('ENERGY_PROVIDER=rental on the devnet rents from its simulated TronSave and itrx, the cheaper first, within the cap', async () => {
    const { container } = compose({ ENERGY_PROVIDER: 'rental' });
    const { rental } = container.get(TOKENS.EnergyProviders);
    expect(rental).toBeInstanceOf(RentalMarketEnergyProvider);
    const receiver = devnet.info().witnesses[0]!;
    const main = { address: receiver, privateKey: () => Promise.reject(new Error('a rental never signs')) };
    const request = { receiver, energy: 65_000, reference: 'q-1' };
    expect(await rental!.canProvide(request, main)).toBe(true);
    expect(await rental!.quote!(request, main)).toMatchObject({ provider: 'tronsave', priceSun: 2_600_000n });
    const capped = compose({ ENERGY_PROVIDER: 'itrx', ENERGY_RENTAL_MAX_PRICE_SUN: '2000000' }).container.get(TOKENS.EnergyProviders).rental;
    expect(await capped!.canProvide(request, main)).toBe(false);
    expect(compose({}).container.get(TOKENS.EnergyProviders).rental).toBeNull();
  });
});

describe('STORE=mongodb', () => {
  it('composeContainer without an open connection is a ConfigError naming STORE', () => {
    const config = loadConfig({ STORE: 'mongodb', MONGODB_URL: 'mongodb://127.0.0.1:1/x', KEY_ENCRYPTION_KEY: KEK }, { mode: 'dev' });
    expect(() => composeContainer(config)).toThrow(ConfigError);
    expect(() => composeContainer(config)).toThrow(/STORE/);
  });

  it('openComposition fails fast on an unreachable server, naming MONGODB_URL without the password', async () => {
    const config = loadConfig({ STORE: 'mongodb', MONGODB_URL: 'mongodb://app:s3cr3t-pw@127.0.0.1:1/x', KEY_ENCRYPTION_KEY: KEK }, { mode: 'dev' });
    const error = await openComposition(config).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('MONGODB_URL');
    expect((error as Error).message).not.toContain('s3cr3t-pw');
  }, 15_000);
});

describe('STORE=postgres', () => {
  const env = { STORE: 'postgres', DATABASE_URL: 'postgres://app:s3cr3t-pg-pw@127.0.0.1:1/custody', KEY_ENCRYPTION_KEY: KEK };

  /** A pool that answers (or refuses) every query, recording the SQL: what composition asks of the pool, no server needed. */
  function fakePool(answers: boolean): { pool: pg.Pool; queries: string[] } {
    const queries: string[] = [];
    const query = async (sql: string): Promise<{ rows: unknown[] }> => {
      queries.push(sql);
      if (!answers) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      return { rows: [] };
    };
    // end: the token listener wraps it to close its LISTEN session with the pool (adapters/postgres/pg-token-listener.ts).
    return { pool: { query, options: {}, end: async () => undefined } as unknown as pg.Pool, queries };
  }

  it('composeContainer without an open pool is a ConfigError naming STORE, pointing at DATABASE_URL', () => {
    const config = loadConfig(env, { mode: 'dev' });
    expect(() => composeContainer(config)).toThrow(ConfigError);
    expect(() => composeContainer(config)).toThrow('configuration: STORE is postgres but no connection was opened (compose with openComposition, which connects to DATABASE_URL)');
  });

  it('binds the PostgreSQL adapters (scan cursors included) on the given pool, and readiness runs SELECT 1 on it', async () => {
    const config = loadConfig({ ...env, TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress }, { mode: 'dev' });
    const up = fakePool(true);
    const { container } = composeContainer(config, { postgres: { pool: up.pool }, logger: silent });
    const stores = container.get(TOKENS.Stores);
    expect(stores.accounts).toBeInstanceOf(PgAccountRepository);
    expect(stores.wallets).toBeInstanceOf(PgWalletRepository);
    expect(stores.idempotency).toBeInstanceOf(PgIdempotencyStore);
    expect(container.get(TOKENS.ScanCursors)).toBeInstanceOf(PgScanCursorStore);
    expect(up.queries).toEqual([]);
    expect(await container.get(TOKENS.Readiness)()).toContainEqual({ name: 'store', ok: true });
    // SELECT 1, and the genesis ids the scan cursors stored (none here: the node is not asked).
    expect(up.queries).toEqual(['SELECT 1', expect.stringContaining("checkpoint->>'genesis'")]);
    const down = fakePool(false);
    const refused = composeContainer(config, { postgres: { pool: down.pool }, logger: silent });
    expect(await refused.container.get(TOKENS.Readiness)()).toContainEqual({ name: 'store', ok: false });
  });

  it('openComposition fails fast on an unreachable server, naming DATABASE_URL without the password', async () => {
    const config = loadConfig(env, { mode: 'dev' });
    const error = await openComposition(config).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('DATABASE_URL');
    expect((error as Error).message).toMatch(/^configuration: DATABASE_URL cannot be used: PostgreSQL at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/custody is unreachable/);
    expect((error as Error).message).not.toContain('s3cr3t-pg-pw');
  }, 15_000);
});

describe('npm run api / npm run worker on the memory store in production', () => {
  /** A port nothing listens on now. */
  const freePort = (): Promise<number> => new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

  it('are refused at start, naming STORE, before anything listens (ALLOW_EPHEMERAL=true lets them run)', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const env = {
      NODE_ENV: 'production', STORE: 'memory', CHAIN: 'devnet', TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress,
      KEY_ENCRYPTION_KEY: KEK, ADMIN_TOKEN: ADMIN, SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'no-reply@custody.test',
      PORT: String(port), API_HOST: '127.0.0.1', METRICS_PORT: String(metricsPort), METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'silent',
    };
    for (const start of [() => startApi(env), () => startWorkerProcess(env)]) {
      const error = await start().then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe('STORE');
      expect((error as Error).message).toMatch(/STORE is memory in a separate (api|worker) process: the API and the worker would share nothing \(set STORE=postgres \(or mongodb\)/);
    }
    // Nothing was left listening: neither the API's port nor the metrics port answers.
    for (const p of [port, metricsPort]) await expect(fetch(`http://127.0.0.1:${p}/`)).rejects.toThrow();
    const api = await startApi({ ...env, ALLOW_EPHEMERAL: 'true' });
    try {
      expect((await fetch(`${api.url}/api/readyz`)).status).toBe(200);
    } finally {
      await api.stop();
    }
  }, 30_000);
});
