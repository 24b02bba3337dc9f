/**
 * Issue #34, "Sweeps that work on `serve`, or say why before anything is made": `serve` on PostgreSQL and the devnet
 * with the default energy source (ENERGY_PROVIDER=self, no rental, ENERGY_BURN off) and an unstaked main address.
 * A manual sweep is refused before any task (422 BIZ-ENERGY-UNAVAILABLE in the envelope, naming the fix and no rental),
 * at POST /collections and at POST /cashier/collect; a paid payment request's forward waits, shown pending on the
 * merchant's token and in /metrics; the owner stakes TRX for energy on the main address (POST /wallets/{main}/stake)
 * and the forward starts by itself and reaches DONE. Real time on a fast devnet (a block every 300 ms).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Writable } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { startDevnet } from '../../adapters/tron-devnet/index.js';
import { createTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { startServe } from './start-serve.js';

const TRX = 1_000_000n;

/** Polls `check` every `everyMs` until it gives a value, at most `ms` (the API's read limit is 60 a minute). */
async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>, everyMs = 1_000): Promise<T> {
  for (const deadline = Date.now() + ms; ;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

describeWithPostgres('serve with ENERGY_PROVIDER=self and an unstaked main address (issue #34)', (serverUrl) => {
  it('refuses a manual sweep before any task (422, the fix named), keeps a paid request\'s forward pending, and forwards by itself once the main address is staked', async () => {
    const database = await createTestDatabase(serverUrl, 'serve_energy');
    const devnet = await startDevnet({ port: 0, blockMs: 300, seed: 'serve-energy', genesisTime: Math.floor(Date.now() / 3_000) * 3_000 });
    const mailer = new RecordingMailer();
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write(chunk, _e, done) { lines.push(String(chunk)); done(); } }));
    const serve = await startServe({
      NODE_ENV: 'production', STORE: 'postgres', DATABASE_URL: database.url, DATABASE_POOL_SIZE: '4', LOCKS: 'memory', CHAIN: 'devnet',
      TRON_FULL_HOST: devnet.url, USDT_CONTRACT: devnet.usdtAddress, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ADMIN_TOKEN: `adm_${randomBytes(24).toString('hex')}`, SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'no-reply@custody.test',
      PORT: '0', API_HOST: '127.0.0.1', METRICS_PORT: '0', METRICS_HOST: '127.0.0.1', BALANCE_SCAN_START: 'head',
      ENERGY_PROVIDER: 'self', CHAIN_CONFIRMATIONS: '1', CHAIN_BLOCK_MS: '300', FORWARD_RETRY_S: '1',
    }, { mailer, logger, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) });
    const api = async (method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; code: string; message: string; data: any }> => {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': randomBytes(16).toString('hex') };
      if (token !== null) headers['authorization'] = `Bearer ${token}`;
      const res = await fetch(`${serve.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const envelope = (await res.json()) as { code: string; message: string; data: any };
      return { status: res.status, ...envelope };
    };
    const ok = async (method: string, path: string, token: string | null, body?: unknown): Promise<any> => {
      const answer = await api(method, path, token, body);
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.code} ${answer.message}`);
      return answer.data;
    };
    try {
      // serve says at start what each energy source can do.
      const energyLine = await until('the energy sources line', 10_000, async () => lines.find((l) => l.includes('energy sources:')), 100);
      expect(energyLine).toMatch(/self-delegation: each user's main address delegates from its own energy stake: about \d+ TRX staked for energy/);
      expect(energyLine).toContain('rental: none configured');
      expect(energyLine).toContain('burning TRX: off (ENERGY_BURN=false)');

      // A merchant, its main address (funded, not staked) and a sub-address.
      const email = 'energy@example.com';
      const password = 'correct horse battery staple';
      await ok('POST', '/api/auth/register', null, { email, password });
      await ok('POST', '/api/auth/verify', null, { email, code: mailer.lastCodeFor(email) });
      const session = (await ok('POST', '/api/auth/login', null, { email, password })).session_token as string;
      await ok('POST', '/api/subscriptions/activate', session, { service_code: 'developer' });
      await ok('POST', '/api/subscriptions/activate', session, { service_code: 'sub_address' });
      const token = (await ok('POST', '/api/api-tokens', session, { name: 'energy' })).token as string;
      const main = (await ok('POST', '/api/wallets', token, { network_code: 'TRON', address_type: 1 })).address as string;
      const sub = (await ok('POST', '/api/wallets', token, { network_code: 'TRON', address_type: 2 })).address as string;
      await serve.faucet!.send(main, 'TRX', 20_000n * TRX);

      // A payment request of 25 USDT, paid in full; the scanner credits it.
      const request = await ok('POST', '/api/cashier/tokens', token, { address: sub, amount: '25000000', asset_symbol: 'USDT', pay_within_minutes: 60 });
      await serve.faucet!.send(sub, 'USDT', 25_000_000n);
      const tokenView = async (): Promise<any> => (await ok('GET', '/api/cashier/tokens', token)).data.find((t: any) => t.token_no === request.token_no);

      // Paid: the forward cannot have its energy, so it waits, shown pending with why and when.
      const pending = await until('the forward pending', 60_000, async () => {
        const view = await tokenView();
        return view.payment.forward === undefined ? undefined : view.payment;
      });
      expect(pending).toMatchObject({ status: 'paid', forward: { status: 'pending', error_code: 'BIZ-ENERGY-UNAVAILABLE' } });
      expect(pending.forward.reason).toContain(`stake about`);
      expect(pending.forward.reason).toContain(`on the main address ${main}`);
      expect(pending.forward.reason).not.toMatch(/rental:|rental quote|price cap/);
      expect(Date.parse(pending.forward.next_attempt_at)).toBeGreaterThan(Date.parse(pending.forward.since));
      const metrics = await (await fetch(`${serve.metricsUrl!}/metrics`)).text();
      expect(metrics).toMatch(/custody_forwards_pending\{[^}]*kind="payment"[^}]*\} 1/);

      // The manual sweep and the payer's collect are refused before any task, in the envelope, naming the fix.
      // The worker's own retry of the waiting forward holds the address's lock while it checks the energy: a sweep
      // asked at that moment is told a collection is in progress (409), which is true, and is asked again.
      const refused = await until('the sweep answered past the forward\'s check', 30_000, async () => {
        const answer = await api('POST', '/api/collections', token, { address: sub, asset_symbol: 'USDT' });
        return answer.status === 409 && answer.code === 'BIZ-COMMAND-LOCKED' ? undefined : answer;
      });
      expect({ status: refused.status, code: refused.code, data: refused.data }).toEqual({ status: 422, code: 'BIZ-ENERGY-UNAVAILABLE', data: {} });
      expect(refused.message).toMatch(/^no energy source for \d+ energy: self: the main address cannot delegate enough energy; burn: burning TRX for energy is disabled \(ENERGY_BURN\)\. To sweep, stake about \d+ TRX for energy on the main address/);
      expect(refused.message).toContain(`(POST /wallets/${main}/stake with resource ENERGY)`);
      expect(refused.message).toContain('or configure an energy rental provider');
      expect(refused.message).toContain('or set ENERGY_BURN=true');
      expect(refused.message).not.toMatch(/rental:|rental quote|price cap/);
      // The same for a payer who collects at that moment: told a collection is in progress (409), and tries again.
      const payer = await until('the payer\'s collect answered past the forward\'s check', 30_000, async () => {
        const answer = await api('POST', '/api/cashier/collect', request.token, { asset_symbol: 'USDT' });
        return answer.status === 409 && answer.code === 'BIZ-COMMAND-LOCKED' ? undefined : answer;
      });
      expect({ status: payer.status, code: payer.code }).toEqual({ status: 422, code: 'BIZ-ENERGY-UNAVAILABLE' });
      const collections = async (): Promise<any[]> => (await ok('GET', '/api/commands?per_page=100', token)).items.filter((c: any) => c.type === 3);
      expect(await collections()).toEqual([]);

      // The fix: the owner stakes TRX for energy on the main address. The forward then starts by itself and is DONE.
      const stakeTrx = Number(/stake about (\d+) TRX/.exec(refused.message)![1]) + 100;
      const stake = await ok('POST', `/api/wallets/${main}/stake`, session, { resource: 'ENERGY', amount: String(BigInt(stakeTrx) * TRX) });
      await until('the stake', 60_000, async () => ((await ok('GET', `/api/commands/${stake.command_no}`, token)).status === 3 ? true : undefined));
      const task = await until('the forward to start', 60_000, async () => (await ok('GET', '/api/cashier/task', request.token)) ?? undefined);
      const done = await until('the forward to end', 90_000, async () => {
        const now = await ok('GET', `/api/collections/${task.task_no}`, token);
        return now.finished_at === null ? undefined : now;
      });
      expect(done).toMatchObject({ status: 11, error_code: null });
      expect((await tokenView()).payment).not.toHaveProperty('forward');
      expect(await collections()).toHaveLength(1);
      expect(await (await fetch(`${serve.metricsUrl!}/metrics`)).text()).toMatch(/custody_forwards_pending\{[^}]*kind="payment"[^}]*\} 0/);
    } finally {
      await serve.stop(5_000);
      await devnet.close();
      await database.drop();
    }
  }, 240_000);
});
