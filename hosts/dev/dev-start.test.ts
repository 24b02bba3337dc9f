import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { pino } from 'pino';
import { getTasks } from 'node-cron';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { ConfigError } from '../composition/config.js';
import { TOKENS } from '../composition/tokens.js';
import { quickstartSteps, renderStep, type HttpStep } from './quickstart.js';
import { startDev, type DevProcess } from './start-dev.js';

const quiet = { logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) };
const EPHEMERAL = { PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '0' };

/** Replaces `$NAME` by the variable's value (unknown names are a test bug, so they throw). */
function expand(text: string, vars: Record<string, string>): string {
  return text.replace(/\$([A-Z]+)/g, (_m, name: string) => {
    const value = vars[name];
    if (value === undefined) throw new Error(`quickstart uses $${name} before setting it`);
    return value;
  });
}

function pick(json: unknown, path: string): unknown {
  return path.split('.').filter((p) => p !== '').reduce<unknown>((v, key) => (v as Record<string, unknown> | null)?.[key], json);
}

async function run(step: HttpStep, vars: Record<string, string>): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {};
  if (step.bearer !== undefined) headers['authorization'] = `Bearer ${expand(`$${step.bearer}`, vars)}`;
  if (step.idempotent === true) headers['idempotency-key'] = randomUUID();
  if (step.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(expand(step.url, vars), {
    method: step.method, headers, ...(step.body === undefined ? {} : { body: expand(step.body, vars) }),
  });
  return { status: response.status, json: await response.json() };
}

describe('npm start (startDev)', () => {
  const output: string[] = [];
  const clock = new ManualClock(Date.now());
  let dev: DevProcess;
  beforeAll(async () => { dev = await startDev({ env: EPHEMERAL, writeLine: (l) => output.push(l), manualWorker: true, clock, ...quiet }); });
  afterAll(async () => { await dev.stop(); });

  it('prints the base URL, the devnet, the generated admin token and the quickstart', () => {
    const text = output.join('\n');
    expect(text).toContain(`listening on ${dev.url}`);
    expect(text).toContain(`TRON devnet: ${dev.devnet.url}`);
    expect(text).toContain(`admin token (generated; set ADMIN_TOKEN to keep one): ${dev.adminToken}`);
    expect(text).toContain(`BASE=${dev.url}; API=$BASE/api; DEVNET=${dev.devnet.url}`);
    quickstartSteps().forEach((step, i) => expect(text).toContain(renderStep(step, i)));
  });

  it('the printed quickstart works over HTTP, from register to a collection', async () => {
    const vars: Record<string, string> = { BASE: dev.url, API: `${dev.url}/api`, DEVNET: dev.devnet.url };
    const answers: Record<string, any> = {};
    for (const step of quickstartSteps()) {
      if (step.kind === 'input') {
        const match = output.map((line) => step.fromOutput.exec(line)).find((m) => m !== null);
        expect(match, step.title).toBeDefined();
        vars[step.variable] = match![1]!;
        continue;
      }
      if (step.kind === 'show') {
        const page = await fetch(expand(step.text, vars));
        expect(page.status, step.title).toBe(200);
        expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        continue;
      }
      const { status, json } = await run(step, vars);
      expect(status, `${step.title}: ${JSON.stringify(json)}`).toBeLessThan(300);
      if (step.url.startsWith('$API')) expect(json.code, step.title).toBe('OK');
      if (step.url.startsWith('$BASE/dev/faucet')) {
        // The payment is a real transaction: the next block holds it and the worker's scanner (a pass per tick) sees it.
        expect(json.txid).toMatch(/^[0-9a-f]{64}$/);
        dev.devnet.mine(1);
        clock.advance(3_000);
        await dev.worker.tick();
        const tx = await fetch(`${dev.devnet.url}/wallet/gettransactionbyid`, { method: 'POST', body: JSON.stringify({ value: json.txid }) });
        expect(((await tx.json()) as { txID?: string }).txID).toBe(json.txid);
      }
      answers[step.title] = json;
      if (step.capture !== undefined) {
        const value = pick(json, step.capture.path);
        expect(typeof value, `${step.title} → ${step.capture.variable}`).toBe('string');
        vars[step.capture.variable] = value as string;
      }
    }
    expect(vars['ST']).toMatch(/^st_/);
    expect(vars['DK']).toMatch(/^dk_/);
    expect(vars['CT']).toMatch(/^ct_/);
    expect(vars['SUB']).not.toBe(vars['MAIN']);
    const cached = answers['the cached balance'].data;
    expect(cached.items.find((i: { symbol: string }) => i.symbol === 'USDT').balance_available).toBe('25000000');
    expect(cached.refresh_source).toBe(1);
    expect(answers['follow the collection'].data.task_no).toBe(vars['TASK']);
    // The faucet funded the new main address so the sweep's FUNDING_TRX step can pay.
    const account = await fetch(`${dev.devnet.url}/wallet/getaccount`, { method: 'POST', body: JSON.stringify({ address: vars['MAIN'], visible: true }) });
    expect(((await account.json()) as { balance?: number }).balance).toBe(1_000_000_000);

    // Out of the box the sweep reaches DONE: the worker runs a pass, the devnet mines a block, and so on.
    let finished: number | undefined;
    for (let round = 0; round < 60 && finished === undefined; round++) {
      const report = await dev.worker.tick();
      finished = report.collections.find((o) => o.taskNo === vars['TASK'] && o.outcome === 'finished')?.status;
      dev.devnet.mine(1);
      clock.advance(3_000);
    }
    expect(finished).toBe(COLLECTION_STATUS.DONE);
    const final = await run(quickstartSteps().at(-1) as HttpStep, vars);
    expect(final.json.data).toMatchObject({ task_no: vars['TASK'], status: COLLECTION_STATUS.DONE, error_code: null });
    expect(final.json.data.finished_at).not.toBeNull();
    const main = await run({ kind: 'http', title: 'main balance', method: 'POST', url: '$API/wallets/$MAIN/balances/refresh', bearer: 'DK', body: '{"force":true}' }, vars);
    expect(main.json.data.items.find((i: { symbol: string }) => i.symbol === 'USDT').balance_available).toBe('25000000');
  });
});

describe('npm start: the faucet (POST /dev/faucet)', () => {
  const clock = new ManualClock(Date.now());
  let dev: DevProcess;
  beforeAll(async () => { dev = await startDev({ env: EPHEMERAL, writeLine: () => undefined, manualWorker: true, clock, ...quiet }); });
  afterAll(async () => { await dev.stop(); });
  const pay = async (body: unknown): Promise<{ status: number; json: any }> => {
    const response = await fetch(`${dev.url}/dev/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, json: await response.json() };
  };

  it('pays TRX with a transfer from its own account, in the next block; the API is still answered behind it', async () => {
    const to = (await dev.composition.container.get(TOKENS.CoreDeps).chain.createAccount()).address;
    const paid = await pay({ address: to, asset_symbol: 'TRX', amount: '10500000' });
    expect(paid.status).toBe(200);
    expect(paid.json).toMatchObject({ from: dev.faucet.address, to, asset_symbol: 'TRX', amount: '10500000' });
    dev.devnet.mine(1);
    const block = dev.devnet.chain.head;
    expect(block.txIds).toContain(paid.json.txid);
    const account = await fetch(`${dev.devnet.url}/wallet/getaccount`, { method: 'POST', body: JSON.stringify({ address: to, visible: true }) });
    expect(((await account.json()) as { balance?: number }).balance).toBe(10_500_000);
    expect((await fetch(`${dev.url}/api/healthz`)).status).toBe(200);
    expect((await fetch(`${dev.url}/api/nothing`)).status).toBe(404);
  });

  it('refuses a bad address, asset, amount or body with 422 and sends nothing', async () => {
    const to = (await dev.composition.container.get(TOKENS.CoreDeps).chain.createAccount()).address;
    for (const body of [
      { address: 'nope', asset_symbol: 'TRX', amount: '1' }, { address: to, asset_symbol: 'DOGE', amount: '1' },
      { address: to, asset_symbol: 'USDT', amount: '0' }, { address: to, asset_symbol: 'USDT', amount: '1.5' },
      { address: to, asset_symbol: 'USDT', amount: '1000000000001' }, [],
    ]) {
      const refused = await pay(body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(typeof refused.json.error).toBe('string');
    }
    expect(dev.devnet.info().pending_transactions).toBe(0);
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
