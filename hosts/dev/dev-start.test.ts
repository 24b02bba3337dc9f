import { createServer } from 'node:net';
import { pino } from 'pino';
import { getTasks } from 'node-cron';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { ConfigError } from '../composition/config.js';
import { TOKENS } from '../composition/tokens.js';
import { renderQuickstart } from './quickstart.js';
import { quickstartBlock } from './quickstart.fixture.js';
import { startDev, type DevProcess } from './start-dev.js';

const quiet = { logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) };
const EPHEMERAL = { PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '0' };

describe('npm start (startDev)', () => {
  const output: string[] = [];
  const clock = new ManualClock(Date.now());
  let dev: DevProcess;
  beforeAll(async () => { dev = await startDev({ env: EPHEMERAL, writeLine: (l) => output.push(l), manualWorker: true, clock, ...quiet }); });
  afterAll(async () => { await dev.stop(); });

  it('prints the base URL, the devnet, the generated admin token and the quickstart as one block ending in a blank line', () => {
    const text = output.join('\n');
    expect(text).toContain(`listening on ${dev.url}`);
    expect(text).toContain(`TRON devnet: ${dev.devnet.url}`);
    expect(text).toContain(`admin token (generated; set ADMIN_TOKEN to keep one): ${dev.adminToken}`);
    const block = quickstartBlock(output);
    expect(block.split('\n')[0]).toBe(`BASE=${dev.url}; API=$BASE/api; DEVNET=${dev.devnet.url}`);
    expect(renderQuickstart(dev.url, dev.devnet.url, 0).endsWith(`\n${block}\n`)).toBe(true);
    expect(output.at(-1)).toBe('');
    // One subshell: a failure ends the block, not the user's terminal; the code comes from the server, not the user.
    expect(block.split('\n')[1]).toBe('( set -euo pipefail');
    expect(block.split('\n').at(-1)).toBe(')');
    expect(block).toContain('$BASE/dev/verification-code?email=$EMAIL');
    expect(block).not.toMatch(/CODE=\d|repeat until/);
    // Interactive bash expands `!` (history) inside a pasted block, even in double quotes.
    expect(block).not.toContain('!');
  });
});

describe('npm start: the faucet (POST /dev/faucet)', () => {
  const clock = new ManualClock(Date.now());
  let dev: DevProcess;
  beforeAll(async () => { dev = await startDev({ env: EPHEMERAL, writeLine: () => undefined, manualWorker: true, clock, ...quiet }); });
  afterAll(async () => { await dev.stop(); });
  const pay = async (body: unknown): Promise<{ status: number; json: any; headers: Headers }> => {
    const response = await fetch(`${dev.url}/dev/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, json: await response.json(), headers: response.headers };
  };

  it('pays TRX with a transfer from its own account, in the next block, answered in the envelope; the API is still answered behind it', async () => {
    const to = (await dev.composition.container.get(TOKENS.CoreDeps).chain.createAccount()).address;
    const paid = await pay({ address: to, asset_symbol: 'TRX', amount: '10500000' });
    expect(paid.status).toBe(200);
    expect(paid.json).toMatchObject({ code: 'OK', message: 'success', data: { from: dev.faucet.address, to, asset_symbol: 'TRX', amount: '10500000' } });
    expect(paid.headers.get('x-request-id')).toBeTruthy();
    dev.devnet.mine(1);
    const block = dev.devnet.chain.head;
    expect(block.txIds).toContain(paid.json.data.txid);
    const account = await fetch(`${dev.devnet.url}/wallet/getaccount`, { method: 'POST', body: JSON.stringify({ address: to, visible: true }) });
    expect(((await account.json()) as { balance?: number }).balance).toBe(10_500_000);
    expect((await fetch(`${dev.url}/api/healthz`)).status).toBe(200);
    expect((await fetch(`${dev.url}/api/nothing`)).status).toBe(404);
  });

  it('refuses a bad address, asset, amount or body with 422 VALIDATION-ERROR in the envelope and sends nothing', async () => {
    const to = (await dev.composition.container.get(TOKENS.CoreDeps).chain.createAccount()).address;
    for (const [body, field] of [
      [{ address: 'nope', asset_symbol: 'TRX', amount: '1' }, 'address'], [{ address: to, asset_symbol: 'DOGE', amount: '1' }, 'asset_symbol'],
      [{ address: to, asset_symbol: 'USDT', amount: '0' }, 'amount'], [{ address: to, asset_symbol: 'USDT', amount: '1.5' }, 'amount'],
      [{ address: to, asset_symbol: 'USDT', amount: '1000000000001' }, 'amount'], [[], 'body'],
    ] as const) {
      const refused = await pay(body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.json).toEqual({ code: 'VALIDATION-ERROR', message: expect.stringMatching(new RegExp(`^${field}: `)), data: {} });
    }
    expect(dev.devnet.info().pending_transactions).toBe(0);
  });

  it('a payment the devnet refuses is 502 CHAIN-BROADCAST-FAILED in the envelope', async () => {
    const to = (await dev.composition.container.get(TOKENS.CoreDeps).chain.createAccount()).address;
    dev.devnet.setFaults({ node_down: true });
    try {
      const refused = await pay({ address: to, asset_symbol: 'TRX', amount: '1' });
      expect(refused.status).toBe(502);
      expect(refused.json).toEqual({ code: 'CHAIN-BROADCAST-FAILED', message: expect.stringContaining('the devnet refused the payment'), data: {} });
    } finally {
      dev.devnet.setFaults({ node_down: false });
    }
  });

  it('a malformed percent-encoding is 422 VALIDATION-ERROR in the envelope, as npm run api answers it', async () => {
    const api = await dev.composition.container.get(TOKENS.ApiHost).h3.fetch(new Request('http://127.0.0.1/api/wallets/%zz'));
    for (const path of ['/api/wallets/%zz', '/dev/%zz']) {
      const response = await fetch(`${dev.url}${path}`);
      expect(response.status, path).toBe(api.status);
      expect(await response.json(), path).toEqual({ code: 'VALIDATION-ERROR', message: 'path: malformed percent-encoding', data: {} });
      expect(response.headers.get('x-request-id')).toBeTruthy();
    }
    expect(api.status).toBe(422);
  });
});

describe('npm start: the verification code route (GET /dev/verification-code)', () => {
  let dev: DevProcess;
  beforeAll(async () => { dev = await startDev({ env: EPHEMERAL, writeLine: () => undefined, manualWorker: true, ...quiet }); });
  afterAll(async () => { await dev.stop(); });
  const code = async (query: string): Promise<{ status: number; json: any }> => {
    const response = await fetch(`${dev.url}/dev/verification-code${query}`);
    return { status: response.status, json: await response.json() };
  };
  const register = (email: string): Promise<Response> => fetch(`${dev.url}/api/auth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse battery staple' }),
  });

  it('answers the latest code mailed to the address, which verifies it; 404 before any, 422 without an email', async () => {
    expect(await code('?email=nobody@example.com')).toMatchObject({ status: 404, json: { code: 'NOT-FOUND', data: {} } });
    expect(await code('')).toMatchObject({ status: 422, json: { code: 'VALIDATION-ERROR', message: expect.stringContaining('email'), data: {} } });
    expect((await register('Quick@Example.com')).status).toBe(201);
    const found = await code('?email=quick%40example.com');
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({ code: 'OK', message: 'success', data: { code: expect.stringMatching(/^\d{6}$/) } });
    const verified = await fetch(`${dev.url}/api/auth/verify`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'quick@example.com', code: found.json.data.code }),
    });
    expect(verified.status).toBe(200);
  });

  it('is served by the npm start front only: the API app that npm run api and npm run serve listen with has no such route', async () => {
    const api = dev.composition.container.get(TOKENS.ApiHost);
    for (const path of ['/dev/verification-code?email=quick@example.com', '/dev/faucet']) {
      const response = await api.h3.fetch(new Request(`http://127.0.0.1${path}`, path === '/dev/faucet' ? { method: 'POST', body: '{}' } : {}));
      expect(response.status, path).toBe(404);
    }
    expect(JSON.stringify(api.openapi)).not.toContain('/dev/');
  });
});

describe('npm start: configuration and shutdown', () => {
  it('a bad variable fails before anything listens, naming it', async () => {
    for (const [variable, value] of [['DEVNET_BLOCK_MS', 'soon'], ['CHAIN', 'tronweb'], ['PORT', '70000'], ['ADMIN_TOKEN', 'short']] as const) {
      const error = await startDev({ env: { ...EPHEMERAL, [variable]: value }, writeLine: () => undefined, ...quiet }).then(() => null, (e: unknown) => e);
      expect(error, variable).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe(variable);
    }
  });

  it('a busy PORT is a ConfigError naming PORT, and the devnet started before it is closed again', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const busy = String((blocker.address() as { port: number }).port);
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const devnetPort = (free.address() as { port: number }).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    try {
      const error = await startDev({ env: { ...EPHEMERAL, PORT: busy, DEVNET_PORT: String(devnetPort) }, writeLine: () => undefined, ...quiet })
        .then(() => null, (e: unknown) => e);
      expect((error as ConfigError).variable).toBe('PORT');
      // The devnet's port is free again: nothing was left running.
      const again = createServer();
      await new Promise<void>((resolve, reject) => { again.once('error', reject); again.listen(devnetPort, '127.0.0.1', resolve); });
      await new Promise<void>((resolve) => again.close(() => resolve()));
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('stop closes the API and the devnet, and may be called twice; ADMIN_TOKEN from the environment is used, not printed', async () => {
    const output: string[] = [];
    const admin = 'admin-token-from-env-0123456789abcdef';
    const dev = await startDev({ env: { ...EPHEMERAL, ADMIN_TOKEN: admin, WEBHOOK_ALLOW_LOCAL: 'true' }, writeLine: (l) => output.push(l), ...quiet });
    expect(dev.adminToken).toBe(admin);
    expect(output.join('\n')).not.toContain(admin);
    expect(output.join('\n')).toContain('WARNING: WEBHOOK_ALLOW_LOCAL is on');
    expect((await fetch(`${dev.url}/api/healthz`)).status).toBe(200);
    // The worker's maintenance jobs run beside it, as in `npm run worker`, and end with it.
    const jobs = () => [...getTasks().values()].map((t) => t.name).filter((n) => n === 'daily-summary' || n === 'stuck-check' || n === 'expire-unverified-accounts');
    expect(jobs().sort()).toEqual(['daily-summary', 'expire-unverified-accounts', 'stuck-check']);
    await dev.stop();
    expect(jobs()).toEqual([]);
    await dev.stop();
    await expect(fetch(`${dev.url}/api/healthz`)).rejects.toThrow();
    await expect(fetch(`${dev.devnet.url}/sim/info`)).rejects.toThrow();
  });
});
