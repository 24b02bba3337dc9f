import { runs } from '../../contracts-tests/support/depth.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAINNET_USDT_CONTRACT } from '../../core/domain/model/asset.js';
import { DEVNET_ITRX_API_KEY, DEVNET_ITRX_API_SECRET, DEVNET_TRONSAVE_API_KEY } from '../../adapters/tron-devnet/index.js';
import {
  ConfigError, DEFAULT_CHAIN_CONFIRMATIONS, DEFAULT_DEVNET_URL, loadConfig, loadDatabaseConfig, withoutDatabasePassword, type HostConfig,
} from './config.js';

const KEK = randomBytes(32).toString('base64');
const KEK_OLD = randomBytes(32).toString('base64');
const ADMIN = 'admin-token-0123456789abcdef0123456789';
/**
 * The least a production process needs to parse every variable on its own: the memory store with a real chain is
 * refused without ALLOW_EPHEMERAL (tested apart in 'loadConfig: unsafe combinations').
 */
const MAIL = { SMTP_URL: 'smtp://mailer:pw@mail.internal:587', MAIL_FROM: 'Custody Hub <no-reply@custody.test>' };
const PROD_BASE = { KEY_ENCRYPTION_KEY: KEK, ADMIN_TOKEN: ADMIN, ALLOW_EPHEMERAL: 'true', ...MAIL };

type Env = Record<string, string>;

/** The configured rental providers' kinds, in fallback order. */
const kinds = (c: HostConfig): string[] => c.rentalProviders.map((p) => p.kind);

/** The ConfigError `load` throws, or fails the test when it returns. */
function configErrorOf(env: Env, mode: HostConfig['mode'] = 'production'): ConfigError {
  try {
    loadConfig(env, { mode });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

/**
 * Per variable: values that must be accepted (with what the config then holds) and values that must be refused
 * with a ConfigError naming that variable. `with` adds the other variables the case needs.
 */
interface VariableCase {
  readonly variable: string;
  readonly with?: Env;
  readonly good: readonly (readonly [string, (c: HostConfig) => unknown, unknown])[];
  readonly bad: readonly string[];
}

const CASES: readonly VariableCase[] = [
  { variable: 'STORE', with: { MONGODB_URL: 'mongodb://db:27017/x', DATABASE_URL: 'postgres://db:5432/custody' },
    good: [['memory', (c) => c.store, 'memory'], ['mongodb', (c) => c.store, 'mongodb'], ['postgres', (c) => c.store, 'postgres']],
    bad: ['postgresql', 'pg', 'MEMORY', 'redis'] },
  { variable: 'DATABASE_URL', with: { STORE: 'postgres' },
    good: [['postgres://custody:pw@db:5432/custody', (c) => c.databaseUrl, 'postgres://custody:pw@db:5432/custody'],
      ['postgresql://db.internal/custody?sslmode=verify-full', (c) => c.databaseUrl, 'postgresql://db.internal/custody?sslmode=verify-full'],
      ['postgres://db/custody?sslmode=disable', (c) => [c.store, c.databaseUrl], ['postgres', 'postgres://db/custody?sslmode=disable']]],
    bad: ['', 'mysql://db/custody', 'mongodb://db:27017/x', 'db:5432/custody', 'postgres://db/custody?sslmode=requir', 'postgres://db/x?sslmode=allow'] },
  { variable: 'DATABASE_POOL_SIZE', good: [['1', (c) => c.databasePoolSize, 1], ['25', (c) => c.databasePoolSize, 25], ['200', (c) => c.databasePoolSize, 200]],
    bad: ['0', '201', '-1', '2.5', 'ten', '1e2'] },
  { variable: 'MONGODB_URL', with: { STORE: 'mongodb' },
    good: [['mongodb://u:p@h:27017/db?replicaSet=rs0', (c) => c.mongodbUrl, 'mongodb://u:p@h:27017/db?replicaSet=rs0'],
      ['mongodb+srv://cluster.example.net', (c) => c.mongodbUrl, 'mongodb+srv://cluster.example.net']],
    bad: ['', 'http://h:27017', 'not a url'] },
  { variable: 'MONGODB_DB', good: [['custody', (c) => c.mongodbDb, 'custody'], ['a-b_c1', (c) => c.mongodbDb, 'a-b_c1']],
    bad: ['a.b', 'a/b', 'a b', 'x$', 'x'.repeat(64)] },
  { variable: 'LOCKS', with: { REDIS_URL: 'redis://127.0.0.1:6379' },
    good: [['memory', (c) => c.locks, 'memory'], ['redis', (c) => c.locks, 'redis']], bad: ['mongodb', 'etcd'] },
  { variable: 'REDIS_URL', with: { LOCKS: 'redis' },
    good: [['redis://127.0.0.1:6379/2', (c) => c.redisUrl, 'redis://127.0.0.1:6379/2'], ['rediss://h:6380', (c) => c.redisUrl, 'rediss://h:6380']],
    bad: ['', 'http://h:6379', '127.0.0.1:6379x'] },
  { variable: 'CHAIN', with: { TRON_FULL_HOST: 'https://api.trongrid.io' },
    good: [['devnet', (c) => c.chain, 'devnet'], ['tronweb', (c) => c.chain, 'tronweb']], bad: ['mainnet', 'ethereum'] },
  { variable: 'TRON_FULL_HOST', with: { CHAIN: 'tronweb' },
    good: [['https://api.trongrid.io', (c) => c.tronFullHost, 'https://api.trongrid.io'], ['http://10.0.0.5:8090', (c) => c.tronFullHost, 'http://10.0.0.5:8090']],
    bad: ['', 'ftp://node', 'api.trongrid.io'] },
  { variable: 'TRON_SOLIDITY_HOST', with: { CHAIN: 'tronweb', TRON_FULL_HOST: 'http://10.0.0.5:8090' },
    good: [['http://10.0.0.5:8091', (c) => c.tronSolidityHost, 'http://10.0.0.5:8091'], ['https://api.trongrid.io', (c) => c.tronSolidityHost, 'https://api.trongrid.io']],
    bad: ['10.0.0.5:8091', 'ftp://node', 'not a url'] },
  { variable: 'TRON_FULL_HOSTS', with: { CHAIN: 'tronweb', TRON_FULL_HOST: 'http://10.0.0.5:8090' },
    good: [['http://10.0.0.5:8090|http://10.0.0.5:8091, https://api.trongrid.io', (c) => c.scanNodes,
      [{ fullHost: 'http://10.0.0.5:8090', solidityHost: 'http://10.0.0.5:8091' }, { fullHost: 'https://api.trongrid.io', solidityHost: null }]]],
    bad: ['10.0.0.5:8090', 'http://a,,http://b', 'http://a|http://b|http://c', 'ftp://node'] },
  { variable: 'TRON_NODE_DAILY_CALLS', good: [['100000', (c) => c.scanNodeDailyCalls, 100_000]], bad: ['0', '-1', '1e5', 'many'] },
  { variable: 'TRON_API_KEY', good: [['0a1b-2c3d', (c) => c.tronApiKey, '0a1b-2c3d']], bad: ['two words', 'tab\there', 'é'] },
  { variable: 'TRON_PRO_TIER_KEY', good: [['pro-0a1b', (c) => c.tronProTierKey, 'pro-0a1b']], bad: ['two words', 'é'] },
  { variable: 'TRON_PRO_TIER_HOST', with: { TRON_PRO_TIER_KEY: 'pro-0a1b' },
    good: [['https://data.example.net', (c) => c.tronProTierHost, 'https://data.example.net']], bad: ['data.example.net', 'ws://x'] },
  { variable: 'USDT_CONTRACT', good: [['TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', (c) => c.usdtContract, 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf']],
    bad: ['0xdAC17F958D2ee523a2206206994597C13D831ec7', 'T0000000000000000000000000000000000', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6'] },
  { variable: 'ENERGY_PROVIDER', with: { TRONSAVE_API_KEY: 'ts-key', ITRX_API_KEY: 'itrx-key', ITRX_API_SECRET: 'itrx-secret' },
    good: [['self', (c) => [c.energyProvider, c.rentalProviders], ['self', []]], ['rental', (c) => kinds(c), ['tronsave', 'itrx']],
      ['itrx,tronsave', (c) => kinds(c), ['itrx', 'tronsave']], ['tronsave', (c) => [c.energyProvider, kinds(c)], ['rental', ['tronsave']]]],
    bad: ['burn', 'Self', 'none', 'tronsave,tronsave', 'itrx,other', 'tronsave;itrx'] },
  { variable: 'TRONSAVE_API_KEY', with: { ENERGY_PROVIDER: 'tronsave' },
    good: [['ts-0a1b', (c) => c.rentalProviders[0], { kind: 'tronsave', url: 'http://127.0.0.1:8090', apiKey: 'ts-0a1b' }]], bad: ['two words', 'é'] },
  { variable: 'TRONSAVE_URL', with: { ENERGY_PROVIDER: 'tronsave' },
    good: [['https://api-dev.tronsave.io', (c) => c.rentalProviders[0]?.url, 'https://api-dev.tronsave.io']], bad: ['api.tronsave.io', 'ftp://x'] },
  { variable: 'ITRX_API_KEY', with: { ENERGY_PROVIDER: 'itrx', ITRX_API_SECRET: 'itrx-secret' },
    good: [['B433BFF1CDE7450A', (c) => c.rentalProviders[0], { kind: 'itrx', url: 'http://127.0.0.1:8090', apiKey: 'B433BFF1CDE7450A', apiSecret: 'itrx-secret' }]],
    bad: ['two words', '', 'é'] },
  { variable: 'ITRX_API_SECRET', with: { ENERGY_PROVIDER: 'itrx', ITRX_API_KEY: 'itrx-key' },
    good: [['0285A2741D0E76E2', (c) => c.rentalProviders[0] && 'apiSecret' in c.rentalProviders[0] ? c.rentalProviders[0].apiSecret : null, '0285A2741D0E76E2']],
    bad: ['two words', ''] },
  { variable: 'ITRX_URL', with: { ENERGY_PROVIDER: 'itrx' },
    good: [['https://itrx.io', (c) => c.rentalProviders[0]?.url, 'https://itrx.io']], bad: ['itrx.io', 'ws://itrx.io'] },
  { variable: 'ENERGY_RENTAL_MAX_PRICE_SUN', good: [['3000000', (c) => c.energyRentalMaxPriceSun, 3_000_000n], ['1', (c) => c.energyRentalMaxPriceSun, 1n]],
    bad: ['0', '-1', '2.5', '3 TRX', '1'.repeat(20)] },
  { variable: 'CHAIN_CONFIRMATIONS', good: [['0', (c) => c.chainConfirmations, 0], ['1', (c) => c.chainConfirmations, 1], ['19', (c) => c.chainConfirmations, 19]],
    bad: ['-1', '1.5', 'many', '1001', '0x10'] },
  { variable: 'KEY_ENCRYPTION_KEY', good: [[KEK, (c) => c.keyEncryptionKey, KEK], [`k2:${KEK},k1:${KEK_OLD}`, (c) => c.keyEncryptionKey !== null, true]],
    bad: ['', 'short', randomBytes(16).toString('base64'), `${KEK},${KEK}`, `a:${KEK},a:${KEK}`] },
  { variable: 'ADMIN_TOKEN', good: [[ADMIN, (c) => c.adminToken, ADMIN]],
    bad: ['', 'too-short', `st_${'x'.repeat(40)}`, `dk_${'x'.repeat(40)}`, `ct_${'x'.repeat(40)}`, `has space ${'x'.repeat(30)}`] },
  { variable: 'PORT', good: [['0', (c) => c.port, 0], ['8080', (c) => c.port, 8080], ['65535', (c) => c.port, 65_535]],
    bad: ['65536', '-1', 'http', '80.5', '1e3'] },
  { variable: 'TRUSTED_PROXY_HOPS', good: [['0', (c) => c.trustedProxyHops, 0], ['1', (c) => c.trustedProxyHops, 1], ['10', (c) => c.trustedProxyHops, 10]],
    bad: ['-1', '11', '1.5', 'one', '0x1', '1e1', 'true'] },
  { variable: 'WEBHOOK_ALLOW_LOCAL', good: [['true', (c) => c.webhookAllowLocal, true], ['0', (c) => c.webhookAllowLocal, false], ['YES', (c) => c.webhookAllowLocal, true]],
    bad: ['maybe', '2', 'on!'] },
  { variable: 'ENERGY_BURN', good: [['true', (c) => c.energyBurn, true], ['no', (c) => c.energyBurn, false], ['1', (c) => c.energyBurn, true]],
    bad: ['burn', '2', 'off!'] },
  { variable: 'ENERGY_BURN_MAX_SUN', good: [['7000000', (c) => c.energyBurnMaxSun, 7_000_000n]], bad: ['0', '-5', '6.5', 'seven'] },
  { variable: 'WITHDRAWAL_CONFIRMATIONS', good: [['0', (c) => c.withdrawalConfirmations, 0], ['19', (c) => c.withdrawalConfirmations, 19]],
    bad: ['-1', 'solid', '1001'] },
  { variable: 'SMTP_URL', good: [['smtps://u:p@mail.internal:465', (c) => c.mail.kind === 'smtp' && c.mail.url, 'smtps://u:p@mail.internal:465']],
    bad: ['http://mail.internal', 'mail.internal:25'] },
  { variable: 'MAIL_FROM', good: [['ops@custody.test', (c) => c.mail.kind === 'smtp' && c.mail.from, 'ops@custody.test']], bad: ['nobody', 'a b@c d'] },
  { variable: 'WORKFLOW_STUCK_AFTER_S', good: [['60', (c) => c.workflowStuckAfterMs, 60_000], ['0', (c) => c.workflowStuckAfterMs, 0]],
    bad: ['-1', '1.5', '15m', '604801'] },
  { variable: 'WORKFLOW_LEASE_S', good: [['5', (c) => c.workflowLeaseMs, 5_000], ['3600', (c) => c.workflowLeaseMs, 3_600_000]],
    bad: ['4', '0', '3601', '1.5', '1m'] },
  { variable: 'WORKFLOW_CONCURRENCY', good: [['1', (c) => c.workflowConcurrency, 1], ['64', (c) => c.workflowConcurrency, 64]],
    bad: ['0', '65', '-2', '2.5', 'many'] },
];

describe('loadConfig: defaults', () => {
  it('dev mode needs nothing: memory store and locks, the local devnet, port 3000, generated secrets', () => {
    const c = loadConfig({}, { mode: 'dev' });
    expect(c).toMatchObject({
      mode: 'dev', store: 'memory', locks: 'memory', chain: 'devnet', tronFullHost: DEFAULT_DEVNET_URL, tronSolidityHost: null,
      tronProTierKey: null, tronProTierHost: null, usdtContract: MAINNET_USDT_CONTRACT,
      energyProvider: 'self', rentalProviders: [], energyRentalMaxPriceSun: null, chainConfirmations: DEFAULT_CHAIN_CONFIRMATIONS, port: 3000,
      keyEncryptionKey: null, adminToken: null, webhookAllowLocal: false, energyBurn: false, mongodbUrl: null, redisUrl: null, mongodbDb: null,
      workflowStuckAfterMs: 900_000, workflowConcurrency: 4, withdrawalConfirmations: 0, trustedProxyHops: 0,
      databaseUrl: null, databasePoolSize: 10,
    });
  });

  it('production mode requires KEY_ENCRYPTION_KEY and ADMIN_TOKEN, naming each', () => {
    expect(configErrorOf({ ADMIN_TOKEN: ADMIN, ...MAIL }).variable).toBe('KEY_ENCRYPTION_KEY');
    expect(configErrorOf({ KEY_ENCRYPTION_KEY: KEK, ...MAIL }).variable).toBe('ADMIN_TOKEN');
    expect(loadConfig(PROD_BASE, { mode: 'production' }).adminToken).toBe(ADMIN);
  });

  it('ENERGY_PROVIDER=rental on the devnet rents from both of its simulations with their development keys', () => {
    const c = loadConfig({ ENERGY_PROVIDER: 'rental', TRON_FULL_HOST: 'http://127.0.0.1:9999' }, { mode: 'dev' });
    expect(c.rentalProviders).toEqual([
      { kind: 'tronsave', url: 'http://127.0.0.1:9999', apiKey: DEVNET_TRONSAVE_API_KEY },
      { kind: 'itrx', url: 'http://127.0.0.1:9999', apiKey: DEVNET_ITRX_API_KEY, apiSecret: DEVNET_ITRX_API_SECRET },
    ]);
    expect(loadConfig({ ENERGY_PROVIDER: 'itrx', ITRX_URL: 'https://r.example' }, { mode: 'dev' }).rentalProviders[0]?.url).toBe('https://r.example');
  });

  it('on a real chain a named provider needs its credentials; rental takes those configured, at their documented roots', () => {
    const tron = { ...PROD_BASE, CHAIN: 'tronweb', TRON_FULL_HOST: 'https://api.trongrid.io' };
    expect(configErrorOf({ ...tron, ENERGY_PROVIDER: 'tronsave' }).variable).toBe('TRONSAVE_API_KEY');
    expect(configErrorOf({ ...tron, ENERGY_PROVIDER: 'itrx,tronsave', TRONSAVE_API_KEY: 'k' }).variable).toBe('ITRX_API_KEY');
    expect(configErrorOf({ ...tron, ENERGY_PROVIDER: 'rental' }).variable).toBe('ENERGY_PROVIDER');
    expect(configErrorOf({ ...tron, ITRX_API_KEY: 'k' }).variable).toBe('ITRX_API_SECRET');
    expect(loadConfig({ ...tron, ENERGY_PROVIDER: 'rental', TRONSAVE_API_KEY: 'k' }, { mode: 'production' }).rentalProviders)
      .toEqual([{ kind: 'tronsave', url: 'https://api.tronsave.io', apiKey: 'k' }]);
    expect(loadConfig({ ...tron, ENERGY_PROVIDER: 'itrx', ITRX_API_KEY: 'k', ITRX_API_SECRET: 's' }, { mode: 'production' }).rentalProviders)
      .toEqual([{ kind: 'itrx', url: 'https://itrx.io', apiKey: 'k', apiSecret: 's' }]);
  });

  it('the retired ENERGY_RENTAL_URL and ENERGY_RENTAL_API_KEY are refused, naming each, rather than silently ignored', () => {
    expect(configErrorOf({ ...PROD_BASE, ENERGY_RENTAL_URL: 'https://rent.example.com' }).variable).toBe('ENERGY_RENTAL_URL');
    const error = configErrorOf({ ...PROD_BASE, ENERGY_RENTAL_API_KEY: 'secret-rental-key' });
    expect(error.variable).toBe('ENERGY_RENTAL_API_KEY');
    expect(error.message).not.toContain('secret-rental-key');
  });

  it('TRON_PRO_TIER_HOST without TRON_PRO_TIER_KEY is refused, naming the key', () => {
    expect(configErrorOf({ ...PROD_BASE, TRON_PRO_TIER_HOST: 'https://data.example.net' }).variable).toBe('TRON_PRO_TIER_KEY');
  });

  it('a durable store (postgres, mongodb) needs KEY_ENCRYPTION_KEY even in dev mode (stored keys must survive a restart)', () => {
    const durable: Env[] = [{ STORE: 'mongodb', MONGODB_URL: 'mongodb://db:27017/x' }, { STORE: 'postgres', DATABASE_URL: 'postgres://db/custody' }];
    for (const env of durable) {
      const error = configErrorOf(env, 'dev');
      expect(error.variable).toBe('KEY_ENCRYPTION_KEY');
      expect(error.message).toContain(`STORE=${env.STORE}`);
      expect(loadConfig({ ...env, KEY_ENCRYPTION_KEY: KEK }, { mode: 'dev' }).store).toBe(env.STORE);
    }
    expect(loadConfig({}, { mode: 'dev' }).keyEncryptionKey).toBeNull();
  });

  it('STORE=postgres needs DATABASE_URL; DATABASE_POOL_SIZE defaults to 10', () => {
    expect(configErrorOf({ ...PROD_BASE, STORE: 'postgres' }).message).toBe(
      'configuration: DATABASE_URL is required when STORE=postgres (postgres://user:password@host:5432/database, sslmode=verify-full for TLS)');
    expect(loadConfig({ ...PROD_BASE, STORE: 'postgres', DATABASE_URL: 'postgres://db/custody' }, { mode: 'production' }))
      .toMatchObject({ store: 'postgres', databaseUrl: 'postgres://db/custody', databasePoolSize: 10 });
  });

  it('blank values count as unset', () => {
    expect(loadConfig({ ...PROD_BASE, PORT: '  ', STORE: '' }, { mode: 'production' })).toMatchObject({ port: 3000, store: 'memory' });
  });
});

describe('loadConfig: unsafe combinations and every problem at once', () => {
  it('WITHDRAWAL_ALLOWLIST_DELAY_H=0 (no cooling-off) is refused outside development, for every role (issue #35 item 9)', () => {
    for (const role of ['api', 'worker', 'all'] as const) {
      const error = (() => { try { loadConfig({ ...PROD_BASE, WITHDRAWAL_ALLOWLIST_DELAY_H: '0' }, { mode: 'production', role }); } catch (e) { return e as ConfigError; } return null; })();
      expect(error?.problems.map((p) => p.variable), role).toContain('WITHDRAWAL_ALLOWLIST_DELAY_H');
      expect(loadConfig({ ...PROD_BASE, WITHDRAWAL_ALLOWLIST_DELAY_H: '1' }, { mode: 'production', role }).allowListDelayMs).toBe(3_600_000);
    }
    expect(loadConfig({ WITHDRAWAL_ALLOWLIST_DELAY_H: '0' }, { mode: 'dev' }).allowListDelayMs).toBe(0);
  });

  it('POLICY_CHANGE_DELAY_H: 24 h unless set; 0 (a loosening at once) refused outside development, allowed with npm start (issue #35 item 3)', () => {
    expect(loadConfig(PROD_BASE, { mode: 'production' }).policyChangeDelayMs).toBe(24 * 3_600_000);
    for (const role of ['api', 'worker', 'all'] as const) {
      const error = (() => { try { loadConfig({ ...PROD_BASE, POLICY_CHANGE_DELAY_H: '0' }, { mode: 'production', role }); } catch (e) { return e as ConfigError; } return null; })();
      expect(error?.problems.map((p) => p.variable), role).toContain('POLICY_CHANGE_DELAY_H');
      expect(loadConfig({ ...PROD_BASE, POLICY_CHANGE_DELAY_H: '1' }, { mode: 'production', role }).policyChangeDelayMs).toBe(3_600_000);
    }
    expect(loadConfig({ POLICY_CHANGE_DELAY_H: '0' }, { mode: 'dev' }).policyChangeDelayMs).toBe(0);
    const bad = (() => { try { loadConfig({ POLICY_CHANGE_DELAY_H: '1.5' }, { mode: 'dev' }); } catch (e) { return e as ConfigError; } return null; })();
    expect(bad?.problems.map((p) => p.variable)).toEqual(['POLICY_CHANGE_DELAY_H']);
  });

  const tron = { CHAIN: 'tronweb', TRON_FULL_HOST: 'https://api.trongrid.io', KEY_ENCRYPTION_KEY: KEK, ADMIN_TOKEN: ADMIN, ...MAIL };
  const mongo = { STORE: 'mongodb', MONGODB_URL: 'mongodb://db:27017/x?replicaSet=rs0' };
  const postgres = { STORE: 'postgres', DATABASE_URL: 'postgres://custody:pw@db:5432/custody' };

  it('production refuses the memory store with a real chain (keys lost at restart) unless ALLOW_EPHEMERAL=true', () => {
    for (const role of ['all', 'api', 'worker'] as const) {
      const error = (() => { try { loadConfig(tron, { mode: 'production', role }); } catch (e) { return e as ConfigError; } return null; })();
      expect(error?.variable).toBe('STORE');
      expect(error?.message).toMatch(/CHAIN=tronweb.*lost.*set STORE=postgres \(or mongodb\).*ALLOW_EPHEMERAL/);
      expect(loadConfig({ ...tron, ALLOW_EPHEMERAL: 'true' }, { mode: 'production', role }).store).toBe('memory');
      expect(loadConfig({ ...tron, ...mongo }, { mode: 'production', role }).store).toBe('mongodb');
      expect(loadConfig({ ...tron, ...postgres }, { mode: 'production', role }).store).toBe('postgres');
    }
    // npm start (dev mode) keeps its memory store.
    expect(loadConfig({ CHAIN: 'tronweb', TRON_FULL_HOST: 'https://api.trongrid.io' }, { mode: 'dev' }).store).toBe('memory');
  });

  it('production refuses an api or worker process on the memory store (the two would share nothing) unless ALLOW_EPHEMERAL=true', () => {
    const devnet = { KEY_ENCRYPTION_KEY: KEK, ADMIN_TOKEN: ADMIN, ...MAIL };
    for (const role of ['api', 'worker'] as const) {
      expect(() => loadConfig(devnet, { mode: 'production', role }))
        .toThrow(new RegExp(`STORE is memory in a separate ${role} process.*set STORE=postgres \\(or mongodb\\)`));
      expect(loadConfig({ ...devnet, ALLOW_EPHEMERAL: '1' }, { mode: 'production', role }).allowEphemeral).toBe(true);
      expect(loadConfig({ ...devnet, ...mongo }, { mode: 'production', role }).store).toBe('mongodb');
      expect(loadConfig({ ...devnet, ...postgres }, { mode: 'production', role }).store).toBe('postgres');
      expect(() => loadConfig({ ...devnet, ALLOW_EPHEMERAL: 'perhaps' }, { mode: 'production', role })).toThrow(/ALLOW_EPHEMERAL/);
    }
    // One process running both halves on the devnet shares its memory with itself.
    expect(loadConfig(devnet, { mode: 'production', role: 'all' }).store).toBe('memory');
  });

  it('a process that keeps its state (npm run serve) refuses the memory store in production unless ALLOW_EPHEMERAL=true', () => {
    const devnet = { KEY_ENCRYPTION_KEY: KEK, ADMIN_TOKEN: ADMIN, ...MAIL };
    const durable = { mode: 'production', role: 'all', durable: true } as const;
    expect(() => loadConfig(devnet, durable)).toThrow('configuration: STORE is memory in a production process that keeps its state (npm run serve): '
      + 'every account, key and task would be lost at the next restart (set STORE=postgres (or mongodb), or ALLOW_EPHEMERAL=true for a throwaway process)');
    expect(loadConfig({ ...devnet, ALLOW_EPHEMERAL: 'true' }, durable).store).toBe('memory');
    expect(loadConfig({ ...devnet, ...postgres }, durable).store).toBe('postgres');
    expect(loadConfig({ ...devnet, ...mongo }, durable).store).toBe('mongodb');
    // Reported with the other problems, not after them; memory locks are fine in one process.
    const error = configErrorOf({ ...devnet, LOCKS: 'memory', DATABASE_POOL_SIZE: '0' }, 'production');
    expect(error.problems.map((p) => p.variable)).toEqual(['DATABASE_POOL_SIZE']);
    expect(() => loadConfig({ ...devnet, DATABASE_POOL_SIZE: '0' }, durable)).toThrow(/2 problems\n.*STORE is memory[^\n]*\n.*DATABASE_POOL_SIZE/s);
    expect(loadConfig({}, { mode: 'dev', role: 'all', durable: true }).store).toBe('memory');
  });

  it('reports every bad variable in one error, each line naming its variable, no secret echoed', () => {
    const error = configErrorOf({
      STORE: 'mysql', PORT: '99999', LOCKS: 'redis', ADMIN_TOKEN: 'short-secret-x', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://u:db-secret-pw@db/x',
      DATABASE_POOL_SIZE: '500',
    });
    expect(error.problems.map((e) => e.variable).sort()).toEqual([
      'ADMIN_TOKEN', 'DATABASE_POOL_SIZE', 'DATABASE_URL', 'KEY_ENCRYPTION_KEY', 'LOG_LEVEL', 'PORT', 'REDIS_URL', 'SMTP_URL', 'STORE',
    ]);
    expect(error.variable.split(', ').sort()).toEqual(error.problems.map((e) => e.variable).sort());
    expect(error.message.split('\n')).toHaveLength(10);
    expect(error.message).toMatch(/^configuration: 9 problems\n/);
    expect(error.message).toContain('  DATABASE_POOL_SIZE must be a number of connections (1-200)');
    expect(error.message).toContain('  DATABASE_URL must use postgres: or postgresql:');
    expect(error.message).not.toContain('short-secret-x');
    expect(error.message).not.toContain('db-secret-pw');
  });

  it('each process asks only for what it uses: the worker needs no ADMIN_TOKEN (and ignores one) nor PORT', () => {
    const worker = loadConfig({ ...mongo, KEY_ENCRYPTION_KEY: KEK, PORT: 'not-a-port', ADMIN_TOKEN: 'x' }, { mode: 'production', role: 'worker' });
    expect(worker).toMatchObject({ adminToken: null, role: 'worker' });
    expect(configErrorOf({ ...mongo, ...MAIL, KEY_ENCRYPTION_KEY: KEK }).variable).toBe('ADMIN_TOKEN');
    expect(() => loadConfig({ ...mongo, ADMIN_TOKEN: ADMIN }, { mode: 'production', role: 'worker' })).toThrow(/KEY_ENCRYPTION_KEY/);
  });

  it('TRUSTED_PROXY_HOPS: a bad value stops the API with a message naming it and the range; the worker serves no API and ignores it', () => {
    const base = { ...mongo, ...MAIL, KEY_ENCRYPTION_KEY: KEK, ADMIN_TOKEN: ADMIN };
    expect(loadConfig({ ...base, TRUSTED_PROXY_HOPS: '2' }, { mode: 'production', role: 'api' }).trustedProxyHops).toBe(2);
    for (const role of ['api', 'all'] as const) {
      expect(() => loadConfig({ ...base, TRUSTED_PROXY_HOPS: '11' }, { mode: 'production', role }))
        .toThrow('configuration: TRUSTED_PROXY_HOPS must be a number of proxies (0-10)');
    }
    expect(loadConfig({ ...base, TRUSTED_PROXY_HOPS: 'all of them' }, { mode: 'production', role: 'worker' }).trustedProxyHops).toBe(0);
  });

  it('DEFAULT_SUB_ADDRESS_PLAN: starter unless set; starter, pro or unlimited; anything else names the variable', () => {
    const base = { ...mongo, ...MAIL, KEY_ENCRYPTION_KEY: KEK, ADMIN_TOKEN: ADMIN };
    expect(loadConfig(base, { mode: 'production' }).defaultSubAddressPlan).toBe('starter');
    for (const plan of ['starter', 'pro', 'unlimited'] as const) {
      expect(loadConfig({ ...base, DEFAULT_SUB_ADDRESS_PLAN: plan }, { mode: 'production' }).defaultSubAddressPlan).toBe(plan);
    }
    expect(() => loadConfig({ ...base, DEFAULT_SUB_ADDRESS_PLAN: 'gold' }, { mode: 'production' }))
      .toThrow('configuration: DEFAULT_SUB_ADDRESS_PLAN must be one of starter, pro, unlimited (got "gold")');
  });

  it('LOG_LEVEL and METRICS_PORT: info by default; metrics on 9464 for api and worker, off in one process unless set', () => {
    const base = { ...mongo, ...MAIL, KEY_ENCRYPTION_KEY: KEK, ADMIN_TOKEN: ADMIN };
    // /metrics stays on loopback unless METRICS_HOST opens it (a container sets 0.0.0.0 for its scraper).
    expect(loadConfig(base, { mode: 'production', role: 'api' })).toMatchObject({ logLevel: 'info', metricsPort: 9464, metricsHost: '127.0.0.1' });
    expect(loadConfig({ ...base, METRICS_HOST: '0.0.0.0' }, { mode: 'production', role: 'worker' }).metricsHost).toBe('0.0.0.0');
    expect(loadConfig(base, { mode: 'production', role: 'worker' }).metricsPort).toBe(9464);
    expect(loadConfig(base, { mode: 'production' }).metricsPort).toBeNull();
    expect(loadConfig({ ...base, METRICS_PORT: '0', LOG_LEVEL: 'warn' }, { mode: 'production' })).toMatchObject({ metricsPort: 0, logLevel: 'warn' });
    expect(configErrorOf({ ...base, METRICS_PORT: '70000' }).variable).toBe('METRICS_PORT');
  });
});

describe('loadConfig: KEY_ENCRYPTION_KEY_FILE', () => {
  it('reads the KEK from a file (a Docker or Kubernetes secret), trimmed; unreadable, empty or doubled is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kek-'));
    const file = join(dir, 'kek');
    writeFileSync(file, `k2:${KEK},k1:${KEK_OLD}\n`);
    const base = { ADMIN_TOKEN: ADMIN, ALLOW_EPHEMERAL: 'true', ...MAIL };
    expect(loadConfig({ ...base, KEY_ENCRYPTION_KEY_FILE: file }, { mode: 'production' }).keyEncryptionKey).toBe(`k2:${KEK},k1:${KEK_OLD}`);
    expect(configErrorOf({ ...base, KEY_ENCRYPTION_KEY_FILE: join(dir, 'missing') }).message).toMatch(/KEY_ENCRYPTION_KEY_FILE cannot be read \(ENOENT\)/);
    expect(configErrorOf({ ...base, KEY_ENCRYPTION_KEY_FILE: file, KEY_ENCRYPTION_KEY: KEK }).variable).toBe('KEY_ENCRYPTION_KEY_FILE');
    writeFileSync(file, '  \n');
    expect(configErrorOf({ ...base, KEY_ENCRYPTION_KEY_FILE: file }).variable).toBe('KEY_ENCRYPTION_KEY_FILE');
    writeFileSync(file, 'not-a-key');
    const bad = configErrorOf({ ...base, KEY_ENCRYPTION_KEY_FILE: file });
    expect(bad.variable).toBe('KEY_ENCRYPTION_KEY');
    expect(bad.message).not.toContain('not-a-key');
    rmSync(dir, { recursive: true });
  });
});

describe('loadConfig: mail', () => {
  it('a production API needs SMTP_URL and MAIL_FROM (the console mailer prints codes: development only); the worker sends no mail', () => {
    const base = { KEY_ENCRYPTION_KEY: KEK, ADMIN_TOKEN: ADMIN, ALLOW_EPHEMERAL: 'true' };
    expect(configErrorOf(base).variable).toBe('SMTP_URL');
    expect(configErrorOf({ ...base, SMTP_URL: MAIL.SMTP_URL }).variable).toBe('MAIL_FROM');
    expect(configErrorOf({ ...base, SMTP_URL: 'http://mail.internal' }).variable).toBe('SMTP_URL');
    expect(configErrorOf({ ...base, ...MAIL, MAIL_FROM: 'not an address' }).variable).toBe('MAIL_FROM');
    expect(configErrorOf({ ...base, SMTP_URL: 'smtp://u:hunter2-secret@mail.internal' }).message).not.toContain('hunter2-secret');
    expect(loadConfig({ ...base, ...MAIL }, { mode: 'production', role: 'api' }).mail)
      .toEqual({ kind: 'smtp', url: MAIL.SMTP_URL, from: MAIL.MAIL_FROM });
    expect(loadConfig(base, { mode: 'production', role: 'worker' }).mail).toEqual({ kind: 'console' });
    expect(loadConfig({}, { mode: 'dev' }).mail).toEqual({ kind: 'console' });
  });
});

describe.each(CASES)('loadConfig: $variable', (c) => {
  it.each(c.good.map(([value, read, expected]) => ({ value, read, expected })))('accepts $value', ({ value, read, expected }) => {
    const config = loadConfig({ ...PROD_BASE, ...c.with, [c.variable]: value }, { mode: 'production' });
    expect(read(config)).toEqual(expected);
  });

  it.each(c.bad.map((value) => ({ value })))('refuses $value with a ConfigError naming the variable', ({ value }) => {
    const error = configErrorOf({ ...PROD_BASE, ...c.with, [c.variable]: value });
    expect(error.variable).toBe(c.variable);
    expect(error.message).toContain(c.variable);
    // Secrets are never echoed back in the message.
    if (/KEY|TOKEN/.test(c.variable) && value.trim().length > 3) expect(error.message).not.toContain(value.trim());
  });
});

describe('loadConfig: random environments', () => {
  const variables = CASES.map((c) => c.variable);
  const valueFor = (variable: string): fc.Arbitrary<string> => {
    const c = CASES.find((x) => x.variable === variable)!;
    return fc.oneof(fc.constantFrom(...c.good.map(([v]) => v)), fc.constantFrom(...c.bad), fc.string({ maxLength: 12 }));
  };
  const envArb = fc.dictionary(fc.constantFrom(...variables), fc.constant(''), { maxKeys: variables.length })
    .chain((keys) => fc.record(Object.fromEntries(Object.keys(keys).map((k) => [k, valueFor(k)]))) as fc.Arbitrary<Env>);

  it('either yields a config or a ConfigError naming a known variable, without echoing a secret', () => {
    fc.assert(fc.property(envArb, fc.constantFrom<HostConfig['mode']>('dev', 'production'), (env, mode) => {
      let config: HostConfig;
      try {
        config = loadConfig(env, { mode });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        const { problems, message } = error as ConfigError;
        for (const { variable } of problems) {
          expect(variables).toContain(variable);
          expect(message).toContain(variable);
        }
        for (const secret of ['KEY_ENCRYPTION_KEY', 'ADMIN_TOKEN', 'DATABASE_URL', 'TRON_API_KEY', 'TRON_PRO_TIER_KEY', 'TRONSAVE_API_KEY', 'ITRX_API_KEY', 'ITRX_API_SECRET']) {
          const value = env[secret]?.trim() ?? '';
          if (value.length > 3) expect(message).not.toContain(value);
        }
        return;
      }
      // Accepted: every selector is one of its values and the requirements between variables hold.
      expect(['memory', 'mongodb', 'postgres']).toContain(config.store);
      if (config.store === 'mongodb') expect(config.mongodbUrl).not.toBeNull();
      if (config.store === 'postgres') expect(config.databaseUrl).not.toBeNull();
      expect(Number.isInteger(config.databasePoolSize) && config.databasePoolSize >= 1 && config.databasePoolSize <= 200).toBe(true);
      if (config.locks === 'redis') expect(config.redisUrl).not.toBeNull();
      expect(config.energyProvider === 'rental').toBe(config.rentalProviders.length > 0);
      if (mode === 'production') expect(config.adminToken !== null && config.keyEncryptionKey !== null).toBe(true);
      expect(Number.isInteger(config.port) && config.port >= 0 && config.port <= 65_535).toBe(true);
    }), { numRuns: runs(300) });
  });

  it('an environment of valid values only is always accepted and read back as given', () => {
    const validEnv = fc.record({
      STORE: fc.constant('memory'), LOCKS: fc.constantFrom('memory', 'redis'), REDIS_URL: fc.constant('redis://127.0.0.1:6379'),
      PORT: fc.integer({ min: 0, max: 65_535 }).map(String), CHAIN_CONFIRMATIONS: fc.integer({ min: 0, max: 1_000 }).map(String),
      ENERGY_PROVIDER: fc.constantFrom('self', 'rental'), WEBHOOK_ALLOW_LOCAL: fc.constantFrom('true', 'false', '1', '0'),
    });
    fc.assert(fc.property(validEnv, (env) => {
      const c = loadConfig({ ...PROD_BASE, ...env }, { mode: 'production' });
      expect(c.port).toBe(Number(env.PORT));
      expect(c.chainConfirmations).toBe(Number(env.CHAIN_CONFIRMATIONS));
      expect(c.locks).toBe(env.LOCKS);
      expect(c.energyProvider).toBe(env.ENERGY_PROVIDER);
      expect(c.webhookAllowLocal).toBe(['true', '1'].includes(env.WEBHOOK_ALLOW_LOCAL));
    }), { numRuns: runs(100) });
  });
});

describe('loadDatabaseConfig (npm run db:migrate)', () => {
  it('reads DATABASE_URL and DATABASE_POOL_SIZE alone, by the rules of loadConfig', () => {
    expect(loadDatabaseConfig({ DATABASE_URL: 'postgresql://db/custody?sslmode=verify-full' }))
      .toEqual({ databaseUrl: 'postgresql://db/custody?sslmode=verify-full', databasePoolSize: 10 });
    expect(loadDatabaseConfig({ DATABASE_URL: 'postgres://db/custody', DATABASE_POOL_SIZE: '3' }).databasePoolSize).toBe(3);
  });

  it('refuses a missing or bad DATABASE_URL and a bad pool size, all at once, without echoing the password', () => {
    const of = (env: Env): ConfigError => {
      try {
        loadDatabaseConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return error as ConfigError;
      }
      throw new Error('expected a ConfigError');
    };
    expect(of({}).message).toBe('configuration: DATABASE_URL is required (postgres://user:password@host:5432/database)');
    const both = of({ DATABASE_URL: 'mysql://app:pw-do-not-echo@db/x', DATABASE_POOL_SIZE: '0' });
    expect(both.problems.map((p) => p.variable)).toEqual(['DATABASE_URL', 'DATABASE_POOL_SIZE']);
    expect(both.message).not.toContain('pw-do-not-echo');
  });
});

describe('withoutDatabasePassword', () => {
  const url = 'postgres://app:s3cr%40t-pw@db.internal:5432/custody';
  it('takes the password out wherever the URL or its user:password@ part is quoted, and leaves other text alone', () => {
    const redacted = withoutDatabasePassword(`could not parse ${url}; app:s3cr%40t-pw@db.internal; app:s3cr@t-pw@db.internal; postgres is down`, url);
    expect(redacted).toBe('could not parse postgres://app:***@db.internal:5432/custody; app:***@db.internal; app:***@db.internal; postgres is down');
    expect(withoutDatabasePassword('connect ECONNREFUSED 127.0.0.1:5432', url)).toBe('connect ECONNREFUSED 127.0.0.1:5432');
    expect(withoutDatabasePassword('x postgres://db/custody y', 'postgres://db/custody')).toBe('x postgres://db/custody y');
  });
});
