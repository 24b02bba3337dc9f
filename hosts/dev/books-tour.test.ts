/**
 * Issue #36 "Done means", end to end through the `npm start` stack (hosts/dev startDev: the in-process devnet, the API over
 * HTTP, the worker), on a manual clock and manual blocks so that nothing waits on wall time: a payment request for 25 USDT
 * is paid in two parts from the faucet and forwarded to the main address; a withdrawal of 5 USDT and a refund of 4 USDT
 * (`POST /transfers` with `refund_of`) follow. Then the books: the statement shows each with its fees (TRX costs), each of
 * its totals equals the sum of the entries of its account kind, its CSV (`format=csv`) parses with csv-parse into the same
 * figures, the entries' CSV into the same entries, every transaction sums to zero per asset, each cause is booked once, and
 * the reconciliation against the chain reports 0 discrepancies.
 */
import { parse } from 'csv-parse/sync';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { DEV_MAIN_ADDRESS_TRX_SUN } from './faucet-wallet-repository.js';
import { startDev, type DevProcess } from './start-dev.js';

const USDT = 1_000_000n;
const DONE_TASK = 11;
const COMMAND_SUCCEEDED = 3;

type Entry = {
  entry_id: string; transaction_id: string; occurred_at: string; kind: string; amount: string; balance_after: string;
  account: { kind: string; network_code: string; asset_symbol: string; address?: string };
  cause: { type: string; id: string; txid?: string };
  reverses?: string;
};
type StatementLine = { asset_symbol: string; opening: string; received: string; costs: string; sent: string; closing: string; refunded: string; prepaid: string };

describe('the books through npm start: a payment in two parts forwarded, a withdrawal and a refund; statement, CSV, reconciliation', () => {
  let dev: DevProcess;
  const output: string[] = [];
  const clock = new ManualClock(Date.now());
  let token: string;
  let session: string;
  let main: string;
  let sub: string;
  let tokenNo: string;
  let from: string;
  const payer = (): string => dev.devnet.info().witnesses[1]!;
  const elsewhere = (): string => dev.devnet.info().witnesses[2]!;

  /** One API call; the envelope's data, or a thrown error with the status, code and message. */
  const api = async (method: string, path: string, options: { token?: string; body?: unknown; key?: string; raw?: boolean } = {}): Promise<any> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
    if (options.key !== undefined) headers['idempotency-key'] = options.key;
    const res = await fetch(`${dev.url}/api${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
    if (options.raw === true && res.ok) return res;
    const envelope = (await res.json()) as { code: string; message: string; data: unknown };
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${envelope.code}: ${envelope.message}`);
    return envelope.data;
  };
  /** A block: the devnet mines, the worker runs a pass, 3 s go by on the server's clock; until `done` answers a value. */
  const blocksUntil = async <T>(what: string, done: () => Promise<T | undefined>, most = 60): Promise<T> => {
    for (let i = 0; i < most; i++) {
      dev.devnet.mine(1);
      await dev.worker.tick();
      clock.advance(3_000);
      const value = await done();
      if (value !== undefined) return value;
    }
    throw new Error(`${what} did not happen within ${most} blocks`);
  };
  /** Every entry since `from`, page by page. */
  const allEntries = async (query = ''): Promise<Entry[]> => {
    const entries: Entry[] = [];
    for (let page = 1; ; page++) {
      const answer = await api('GET', `/ledger/entries?from=${encodeURIComponent(from)}&page=${page}&per_page=100${query}`, { token });
      entries.push(...(answer.items as Entry[]));
      if (page >= answer.pagination.pages) return entries;
    }
  };

  beforeAll(async () => {
    dev = await startDev({
      env: { PORT: '0', DEVNET_PORT: '0', DEVNET_BLOCK_MS: '0' }, writeLine: (line) => output.push(line), manualWorker: true, clock,
      logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
    });
    from = new Date(clock.now() - 60_000).toISOString();
    // A merchant signs up as a new user does: register, the mailed code, log in, both subscriptions, an API token.
    const email = 'books-tour@example.com';
    const password = 'correct horse battery staple';
    await api('POST', '/auth/register', { body: { email, password } });
    const code = output.map((line) => /verification code for books-tour@example\.com: (\d{6})/.exec(line)?.[1]).find((c) => c !== undefined);
    await api('POST', '/auth/verify', { body: { email, code } });
    session = (await api('POST', '/auth/login', { body: { email, password } })).session_token as string;
    await api('POST', '/subscriptions/activate', { token: session, body: { service_code: 'developer' } });
    await api('POST', '/subscriptions/activate', { token: session, body: { service_code: 'sub_address', plan_code: 'starter' } });
    token = (await api('POST', '/api-tokens', { token: session, body: { name: 'books' } })).token as string;
    main = (await api('POST', '/wallets', { token, body: { network_code: 'TRON', address_type: 1 } })).address as string;
    sub = (await api('POST', '/wallets', { token, body: { network_code: 'TRON', address_type: 2 } })).address as string;
  }, 60_000);
  afterAll(() => dev?.stop(), 20_000);

  it('pays 10 + 15 USDT, forwards them, withdraws 5, refunds 4; the statement, its CSV and the entries agree; 0 discrepancies', { timeout: 120_000 }, async () => {
    const started = Date.now();
    const request = await api('POST', '/cashier/tokens', { token, body: { address: sub, amount: String(25n * USDT), asset_symbol: 'USDT', reference: 'books-tour-1' } });
    tokenNo = request.token_no as string;
    const status = async (): Promise<string> => (await api('GET', `/cashier/tokens/${tokenNo}`, { token })).payment.status as string;
    await dev.faucet.send(sub, 'USDT', String(10n * USDT));
    await blocksUntil('partially paid', async () => ((await status()) === 'partially_paid' ? true : undefined));
    await dev.faucet.send(sub, 'USDT', String(15n * USDT));
    await blocksUntil('paid', async () => ((await status()) === 'paid' ? true : undefined));
    const forward = await blocksUntil('the forward to the main address', async () => {
      const tasks = (await api('GET', `/collections?address=${sub}`, { token })).items as { status: number; task_no: string }[];
      return tasks.length === 1 && tasks[0]!.status === DONE_TASK ? tasks[0]! : undefined;
    });

    const pay = async (amount: bigint, key: string, extra: Record<string, string> = {}): Promise<string> => {
      // Withdrawals are a member's act: the session, not the API token.
      const command = await api('POST', '/transfers', {
        token: session, key, body: { from_address: main, to_address: extra['to'] ?? elsewhere(), asset_symbol: 'USDT', amount: String(amount), ...(extra['refund_of'] === undefined ? {} : { refund_of: extra['refund_of'] }) },
      });
      const commandNo = command.command_no as string;
      await blocksUntil(`withdrawal ${commandNo} paid`, async () => {
        const c = await api('GET', `/commands/${commandNo}`, { token });
        if (c.status > COMMAND_SUCCEEDED) throw new Error(`withdrawal ${commandNo} ended ${c.status}: ${JSON.stringify(c)}`);
        return c.status === COMMAND_SUCCEEDED ? true : undefined;
      });
      // Booked after the fact, from the receipts: by the worker right after it, else by its catch-up pass (every minute).
      const kind = extra['refund_of'] === undefined ? 'withdrawal' : 'refund';
      await blocksUntil(`withdrawal ${commandNo} booked`, async () => {
        const booked = (await api('GET', `/ledger/entries?kind=${kind}&per_page=100`, { token })).items as Entry[];
        return booked.some((e) => e.cause.id === commandNo) ? true : undefined;
      });
      return commandNo;
    };
    const withdrawal = await pay(5n * USDT, 'books-tour-withdrawal');
    const refund = await pay(4n * USDT, 'books-tour-refund', { to: payer(), refund_of: tokenNo });
    expect((await api('GET', `/cashier/tokens/${tokenNo}`, { token })).payment.refunds).toMatchObject([{ command_no: refund, amount: String(4n * USDT) }]);
    const moved = Date.now() - started;

    // The entries: every cause of the tour is there, booked once; every transaction sums to zero per asset.
    const entries = await allEntries();
    const byCause = new Map<string, Set<string>>();
    for (const e of entries) {
      const key = `${e.cause.type}:${e.cause.id}`;
      byCause.set(key, (byCause.get(key) ?? new Set()).add(e.transaction_id));
    }
    const deposits = (await api('GET', `/deposits?address=${sub}`, { token })).items as { txid: string }[];
    expect(deposits).toHaveLength(2);
    const depositCauses = entries.filter((e) => e.kind === 'deposit' && e.account.address === sub);
    expect(depositCauses.map((e) => e.cause.txid).sort()).toEqual(deposits.map((d) => d.txid).sort());
    expect(depositCauses.map((e) => e.amount).sort()).toEqual([String(10n * USDT), String(15n * USDT)]);
    expect(byCause.get(`collection:${forward.task_no}`)?.size).toBe(1);
    expect(byCause.get(`withdrawal:${withdrawal}`)?.size).toBe(1);
    expect(byCause.get(`refund:${refund}`)?.size).toBe(1);
    for (const [cause, transactions] of byCause) expect(transactions.size, cause).toBe(1);
    const sums = new Map<string, bigint>();
    for (const e of entries) {
      const key = `${e.transaction_id} ${e.account.asset_symbol}`;
      sums.set(key, (sums.get(key) ?? 0n) + BigInt(e.amount));
    }
    for (const [key, sum] of sums) expect(sum, key).toBe(0n);
    // Each movement with its fees: the forward, the withdrawal and the refund each paid chain fees in TRX.
    const feesOf = (type: string, id: string): bigint => entries
      .filter((e) => e.cause.type === type && e.cause.id === id && e.account.kind.startsWith('fee_'))
      .reduce((sum, e) => sum + BigInt(e.amount), 0n);
    for (const [type, id] of [['collection', forward.task_no], ['withdrawal', withdrawal], ['refund', refund]] as const) expect(feesOf(type, id), `${type} ${id}`).toBeGreaterThan(0n);
    const outOf = (type: string, id: string): string | undefined => entries.find((e) => e.cause.type === type && e.cause.id === id && e.account.kind === 'external_out')?.amount;
    expect(outOf('withdrawal', withdrawal)).toBe(String(5n * USDT));
    expect(outOf('refund', refund)).toBe(String(4n * USDT));

    // The statement: USDT in 25, out 9 of which 4 refunded; TRX costs are the fees of every movement.
    const period = `from=${encodeURIComponent(from)}`;
    const statement = (await api('GET', `/ledger/statement?${period}`, { token })) as { assets: StatementLine[] };
    const line = (asset: string): StatementLine => statement.assets.find((a) => a.asset_symbol === asset)!;
    expect(line('USDT')).toMatchObject({ opening: '0', received: String(25n * USDT), costs: '0', sent: String(9n * USDT), closing: String(16n * USDT), refunded: String(4n * USDT) });
    // npm start funds a new main address with a real faucet transfer: TRX received from outside, as the chain saw it.
    // The forward's energy was rented (npm start: ENERGY_PROVIDER=rental), paid off chain by the provider's prepaid
    // balance: counted in received as `prepaid` (and in costs), beside the faucet's TRX (issue #36).
    expect(BigInt(line('TRX').received) - BigInt(line('TRX').prepaid)).toBe(DEV_MAIN_ADDRESS_TRX_SUN);
    const fees = entries.filter((e) => e.account.kind.startsWith('fee_')).reduce((sum, e) => sum + BigInt(e.amount), 0n);
    expect(BigInt(line('TRX').costs)).toBe(fees);
    for (const a of statement.assets) {
      expect(BigInt(a.closing), a.asset_symbol).toBe(BigInt(a.opening) + BigInt(a.received) - BigInt(a.costs) - BigInt(a.sent));
      // Each total is the sum of its account kind's entries in the period.
      const sum = (kind: string) => entries.filter((e) => e.account.asset_symbol === a.asset_symbol && e.account.kind === kind).reduce((s, e) => s + BigInt(e.amount), 0n);
      // Received from outside: deposits, and a rental paid off chain by the provider's prepaid balance (`prepaid`, issue #36).
      expect(BigInt(a.received), `${a.asset_symbol} received`).toBe(-sum('external_in') - sum('provider_prepaid'));
      expect(BigInt(a.prepaid), `${a.asset_symbol} prepaid`).toBe(-sum('provider_prepaid'));
      expect(BigInt(a.sent), `${a.asset_symbol} sent`).toBe(sum('external_out'));
      expect(BigInt(a.closing), `${a.asset_symbol} closing`).toBe(sum('custodial'));
    }
    // The ledger's balances are the statement's closing.
    const balances = await api('GET', '/ledger/balances', { token });
    for (const total of balances.totals as { asset_symbol: string; balance: string }[]) expect(total.balance, total.asset_symbol).toBe(line(total.asset_symbol).closing);

    // The CSV of the statement parses into the same figures; the entries' CSV into the same entries.
    const csv = await (await api('GET', `/ledger/statement?${period}&format=csv`, { token, raw: true }) as Response).text();
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rows.map(({ from: _f, to: _t, ...figures }) => figures)).toEqual(statement.assets.map((a) => ({ ...a })));
    const entriesCsv = await (await api('GET', `/ledger/entries?${period}&format=csv`, { token, raw: true }) as Response).text();
    const entryRows = parse(entriesCsv, { columns: true }) as Record<string, string>[];
    expect(entryRows.map((r) => [r['transaction_id'], r['kind'], r['account.kind'], r['account.asset_symbol'], r['account.address'], r['amount'], r['cause.id'], r['cause.txid']]))
      .toEqual(entries.map((e) => [e.transaction_id, e.kind, e.account.kind, e.account.asset_symbol, e.account.address ?? '', e.amount, e.cause.id, e.cause.txid ?? '']));
    expect(entryRows.find((r) => r['kind'] === 'refund' && r['account.kind'] === 'external_out')).toMatchObject({ 'cause.id': refund, amount: String(4n * USDT) });

    // The books against the chain: every address matched or explained, none in discrepancy.
    const reconciliation = await api('GET', '/ledger/reconciliation', { token });
    expect(reconciliation.summary.discrepancy, JSON.stringify(reconciliation.items)).toBe(0);
    expect(reconciliation.summary.unsettled, JSON.stringify(reconciliation.items)).toBe(0);
    expect((reconciliation.items as { address: string }[]).map((i) => i.address).sort()).toEqual([main, sub].sort());
    process.stdout.write(`books tour: money moved in ${moved} ms, books checked in ${Date.now() - started - moved} ms (${entries.length} entries)\n`);
  });
});
