/**
 * docs/operations.md's recipe, "`npm run serve` on the devnet", run as written (issue #34): `npm run devnet` as a child
 * process, then `npm run serve` as another with exactly the variables the recipe's serve block exports (the test's
 * PostgreSQL database and a fresh key in place of the recipe's), plus what a test needs: free ports, loopback, and
 * the devnet's faster block interval (CHAIN_BLOCK_MS follows it). Nothing else of the runner's environment reaches it.
 * Through its API and faucet: a faucet payment credited by the scanner, a paid payment request forwarded by itself, a
 * manual sweep, a refund from the paying sub-address; then the devnet restarted under it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type PostgresTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { freePort, recipeServeVariables, startClean, startDevnetProcess, until, type Child } from './serve-devnet.fixture.js';

/** The devnet's block interval here (the recipe's devnet makes one every 3 s). */
const BLOCK_MS = 300;
const USDT = (units: number): string => String(units * 1_000_000);

describeWithPostgres('npm run serve on the devnet, by docs/operations.md\'s recipe', (serverUrl) => {
  let database: PostgresTestDatabase;
  let devnet: Child;
  let devnetPort: number;
  let serve: Child;
  let base = '';
  let metrics = '';
  /** The merchant's session token, API token, main address. */
  let session = '';
  let dk = '';
  let main = '';

  /** One call; the envelope's data, or an error naming the status, code and message. */
  async function call(method: string, path: string, token: string | null, body?: unknown): Promise<any> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const envelope = (await response.json()) as { code: string; message: string; data: unknown };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${envelope.code}: ${envelope.message}`);
    return envelope.data;
  }
  const faucet = (address: string, asset: 'TRX' | 'USDT', amount: string): Promise<any> =>
    call('POST', '/dev/faucet', null, { address, asset_symbol: asset, amount });
  const usdtOf = async (address: string): Promise<string> => {
    const balances = await call('GET', `/api/wallets/${address}/balances`, dk);
    return (balances.items as { symbol: string; balance_available: string }[]).find((i) => i.symbol === 'USDT')!.balance_available;
  };
  const collectionEnd = (taskNo: string): Promise<any> => until(`collection ${taskNo} to end`, 120_000, async () => {
    const task = await call('GET', `/api/collections/${taskNo}`, dk);
    return task.status === 11 || task.status === 12 ? task : undefined;
  });

  beforeAll(async () => {
    const recipe = recipeServeVariables();
    // The recipe's variables, and only these: a new one must be added to the docs, not to this test.
    expect([...recipe.keys()]).toEqual(['STORE', 'DATABASE_URL', 'KEY_ENCRYPTION_KEY', 'NODE_ENV', 'ENERGY_BURN', 'CHAIN_CONFIRMATIONS']);
    database = await createTestDatabase(serverUrl, 'serve_devnet');
    devnetPort = await freePort();
    devnet = await startDevnetProcess(devnetPort, BLOCK_MS);
    serve = startClean('serve', 'hosts/serve/main.ts', {
      ...Object.fromEntries(recipe),
      DATABASE_URL: database.url, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      // What a test needs: free ports on loopback, the devnet's URL on its port, its block interval.
      PORT: '0', API_HOST: '127.0.0.1', METRICS_PORT: '0', TRON_FULL_HOST: `http://127.0.0.1:${devnetPort}`, CHAIN_BLOCK_MS: String(BLOCK_MS),
    });
    const listening = await serve.waitFor(/serve listening (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
    base = listening[1]!;
    const line = listening.input!;
    metrics = /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(line)?.[1] ?? `no metrics URL in: ${line}`;
    // The banner names the store, the chain at its node, the devnet's USDT contract and the faucet.
    expect(line).toMatch(new RegExp(`store postgres postgres://[^ ]+; chain devnet at http://127\\.0\\.0\\.1:${devnetPort}; USDT contract T\\w{33}; faucet POST`));

    // A merchant as the recipe makes one: the code from serve's own output (NODE_ENV=development prints it).
    const email = 'recipe@example.com';
    const password = 'correct horse battery staple';
    await call('POST', '/api/auth/register', null, { email, password });
    const [, code] = await serve.waitFor(new RegExp(`verification code for ${email}: (\\d{6})`));
    await call('POST', '/api/auth/verify', null, { email, code });
    session = (await call('POST', '/api/auth/login', null, { email, password })).session_token;
    await call('POST', '/api/subscriptions/activate', session, { service_code: 'developer' });
    await call('POST', '/api/subscriptions/activate', session, { service_code: 'sub_address' });
    dk = (await call('POST', '/api/api-tokens', session, { name: 'recipe' })).token;
    main = (await call('POST', '/api/wallets', dk, { network_code: 'TRON', address_type: 1 })).address;
    await faucet(main, 'TRX', '300000000');
  }, 120_000);

  afterAll(async () => {
    await serve?.stop();
    await devnet?.stop();
    await database?.drop();
  }, 30_000);

  it('a faucet payment to a sub-address is credited by the scanner, then swept by POST /collections to DONE', async () => {
    const sub = (await call('POST', '/api/wallets', dk, { network_code: 'TRON', address_type: 2 })).address;
    const paid = await faucet(sub, 'USDT', USDT(5));
    expect(paid).toMatchObject({ to: sub, asset_symbol: 'USDT', amount: USDT(5), txid: expect.stringMatching(/^[0-9a-f]{64}$/) });
    await until('the scanner to credit 5 USDT', 60_000, async () => ((await usdtOf(sub)) === USDT(5) ? true : undefined));
    const { task_no: taskNo } = await call('POST', '/api/collections', dk, { address: sub, asset_symbol: 'USDT' });
    const task = await collectionEnd(taskNo);
    expect(task, JSON.stringify(task)).toMatchObject({ status: 11 });
    await until('the sweep to show on the sub-address', 30_000, async () => ((await usdtOf(sub)) === '0' ? true : undefined));
  }, 180_000);

  it('a payment request paid with the faucet is forwarded to the main address by itself (DONE)', async () => {
    const sub = (await call('POST', '/api/wallets', dk, { network_code: 'TRON', address_type: 2 })).address;
    const request = await call('POST', '/api/cashier/tokens', dk, {
      address: sub, amount: USDT(25), asset_symbol: 'USDT', reference: 'recipe-1', pay_within_minutes: 30,
    });
    await faucet(sub, 'USDT', USDT(25));
    const session = await until('the forward to start', 120_000, async () => {
      const s = await call('GET', '/api/cashier/session', request.token);
      return s.active_task === null ? undefined : s;
    });
    expect(session.payment.status).toBe('paid');
    const task = await collectionEnd(session.active_task.task_no);
    expect(task, JSON.stringify(task)).toMatchObject({ status: 11 });
  }, 180_000);

  it('a refund: POST /transfers from the paying sub-address back to an outside address reaches SUCCESS', async () => {
    const sub = (await call('POST', '/api/wallets', dk, { network_code: 'TRON', address_type: 2 })).address;
    const payment = await faucet(sub, 'USDT', USDT(3));
    await until('the scanner to credit 3 USDT', 60_000, async () => ((await usdtOf(sub)) === USDT(3) ? true : undefined));
    // Back to where it came from: the faucet's account, an address this service does not hold.
    const { command_no: commandNo } = await call('POST', '/api/transfers', session, {
      from_address: sub, to_address: payment.from, asset_symbol: 'USDT', amount: USDT(3),
    });
    const command = await until(`withdrawal ${commandNo} to end`, 150_000, async () => {
      const c = await call('GET', `/api/commands/${commandNo}`, dk);
      return c.status >= 3 ? c : undefined;
    });
    expect(command, JSON.stringify(command)).toMatchObject({ status: 3 });
  }, 180_000);

  it('a devnet restarted under it is another chain: the scanner stops with an error line, readiness and /healthz fail, the metric counts it', async () => {
    const ready = await fetch(`${base}/api/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { data: { checks: unknown[] } }).data.checks).toContainEqual({ name: 'scanner-chain', ok: true });
    await devnet.stop();
    devnet = await startDevnetProcess(devnetPort, BLOCK_MS);
    const { input: line } = await serve.waitFor(/the node follows another chain than the one this store was scanning/, 60_000);
    expect(JSON.parse(line!)).toMatchObject({ level: 50, reason: 'genesis' });
    const notReady = await fetch(`${base}/api/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({ code: 'SERVICE-UNAVAILABLE', message: expect.stringContaining('scanner-chain') });
    const health = await fetch(`${metrics}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, chainMismatch: 'genesis' });
    expect(await (await fetch(`${metrics}/metrics`)).text()).toMatch(/custody_scanner_chain_mismatches_total\{[^}]*reason="genesis"[^}]*\} 1/);
  }, 120_000);
});
