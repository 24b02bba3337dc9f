/**
 * Node-call faults over HTTP: scripted rules (each kind, `times`, order, path patterns), seeded chaos, the
 * TronGrid-style quota, and lost replies seen through real tronweb.
 */
import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { NODE_FAULT_KINDS, type NodeFaultKind } from './node-faults.js';
import { startTestDevnet, trx, wallet, type Wallet } from './test-helpers.js';

/** What a client saw: a reply, or a socket closed without one. */
type Outcome = { status: number; statusText: string; headers: Headers; text: string } | 'no reply';

async function call(base: string, path: string, body: unknown = {}): Promise<Outcome> {
  try {
    const r = await fetch(base + path, { method: 'POST', body: JSON.stringify(body) });
    return { status: r.status, statusText: r.statusText, headers: r.headers, text: await r.text() };
  } catch {
    return 'no reply';
  }
}

const label = (o: Outcome): string => (o === 'no reply' ? o : `${o.status}${o.text.includes('"Error"') ? ' Error' : ''}`);

/** `n` calls one after the other (the quota counts in arrival order). */
async function labels(base: string, n: number, path = '/wallet/getnowblock'): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(label(await call(base, path)));
  return out;
}

describe('scripted node faults (HTTP)', () => {
  let devnet: Devnet;
  let a: Wallet;
  let b: Wallet;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const signedTransfer = async (sun: number): Promise<any> => a.tw.trx.sign(await a.tw.transactionBuilder.sendTrx(b.address, sun, a.address));
  const inPool = (txid: string): boolean => devnet.chain.pendingTxs().some((t) => t.txID === txid);
  beforeAll(async () => {
    devnet = await startTestDevnet();
    a = wallet(devnet, 'fault-a');
    b = wallet(devnet, 'fault-b');
    devnet.fund(a.address, trx(1_000));
    devnet.fund(b.address, trx(1));
  });
  afterEach(() => devnet.setFaults({ script: [], chaos: null, rate_limit: null }));
  afterAll(() => devnet.close());

  const refusing = NODE_FAULT_KINDS.filter((k): k is Exclude<NodeFaultKind, 'lost_reply' | 'timeout'> => k !== 'lost_reply' && k !== 'timeout');
  it.each(refusing)('%s on wallet/broadcasttransaction fails that call only, without processing it', async (kind) => {
    const tx = await signedTransfer(1_000 + refusing.indexOf(kind));
    devnet.setFaults({ script: [{ path: 'wallet/broadcasttransaction', kind }] });
    expect(label(await call(devnet.url, '/wallet/getnowblock'))).toBe('200');
    const failed = await call(devnet.url, '/wallet/broadcasttransaction', tx);
    expect(inPool(tx.txID)).toBe(false);
    const expected: Record<typeof kind, string> = {
      reset: 'no reply', http_403: '403 Error', http_429: '429 Error', http_500: '500', http_502: '502', http_503: '503', error_body: '200 Error',
    };
    expect(label(failed)).toBe(expected[kind]);
    expect(devnet.faults().script).toEqual([]);
    const again = JSON.parse((await call(devnet.url, '/wallet/broadcasttransaction', tx) as { text: string }).text) as { result: boolean };
    expect(again.result).toBe(true);
    expect(inPool(tx.txID)).toBe(true);
  });

  it("answers TronGrid's bodies and headers", async () => {
    devnet.setFaults({
      script: [
        { path: 'wallet/getnowblock', kind: 'http_403' },
        { path: 'wallet/getnowblock', kind: 'http_429', retry_after_s: 7 },
        { path: 'wallet/getnowblock', kind: 'http_503' },
        { path: 'wallet/getnowblock', kind: 'error_body' },
      ],
    });
    const r403 = (await call(devnet.url, '/wallet/getnowblock')) as Exclude<Outcome, 'no reply'>;
    expect(r403.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(r403.text)).toEqual({ Error: 'Exceed the user daily usage (100000), the maximum query frequency is 1 time per second' });
    const r429 = (await call(devnet.url, '/wallet/getnowblock')) as Exclude<Outcome, 'no reply'>;
    expect(r429.status).toBe(429);
    expect(r429.headers.get('retry-after')).toBe('7');
    expect(JSON.parse(r429.text)).toEqual({ Error: 'The key exceeds the frequency limit(15), and the query server is suspended for 7s' });
    const r503 = (await call(devnet.url, '/wallet/getnowblock')) as Exclude<Outcome, 'no reply'>;
    expect(r503.statusText).toBe('Service Temporarily Unavailable');
    expect(r503.headers.get('content-type')).toBe('text/html');
    expect(r503.text).toContain('<center><h1>503 Service Temporarily Unavailable</h1></center>');
    const r200 = (await call(devnet.url, '/wallet/getnowblock')) as Exclude<Outcome, 'no reply'>;
    expect(r200.status).toBe(200);
    expect(JSON.parse(r200.text)).toEqual({ Error: 'request rate exceeded the allowed_rps(10), and the query server is suspended for 5 s' });
    expect(label(await call(devnet.url, '/wallet/getnowblock'))).toBe('200');
  });

  it('`times` fails that many matching calls, then the rule is gone; the first matching rule applies', async () => {
    devnet.setFaults({
      script: [
        { path: 'wallet/getaccount', kind: 'http_500', times: 1 },
        { path: '*', kind: 'http_502', times: 3 },
      ],
    });
    expect(label(await call(devnet.url, '/wallet/getnowblock'))).toBe('502');
    expect(devnet.faults().script.map((r) => r.times)).toEqual([1, 2]);
    expect(label(await call(devnet.url, '/wallet/getaccount', { address: a.hex }))).toBe('500');
    expect(label(await call(devnet.url, '/wallet/getaccount', { address: a.hex }))).toBe('502');
    expect(label(await call(devnet.url, '/walletsolidity/getnowblock'))).toBe('502');
    expect(label(await call(devnet.url, '/wallet/getnowblock'))).toBe('200');
    // Control routes are not node calls.
    devnet.setFaults({ script: [{ path: '*', kind: 'reset' }] });
    expect(label(await call(devnet.url, '/sim/info'))).toBe('200');
    expect(devnet.faults().script).toHaveLength(1);
  });

  it('path patterns: case-insensitive names, wallet/* and walletsolidity/* stay apart', async () => {
    devnet.setFaults({ script: [{ path: 'walletsolidity/*', kind: 'http_503', times: 2 }, { path: '/Wallet/GetNowBlock', kind: 'http_500' }] });
    expect(label(await call(devnet.url, '/wallet/getaccount', { address: a.hex }))).toBe('200');
    expect(label(await call(devnet.url, '/wallet/getnowblock'))).toBe('500');
    expect(label(await call(devnet.url, '/walletsolidity/getnowblock'))).toBe('503');
    expect(label(await call(devnet.url, '/walletsolidity/GetNowBlock'))).toBe('503');
    expect(label(await call(devnet.url, '/walletsolidity/getnowblock'))).toBe('200');
  });

  it('timeout holds the socket for hold_ms without processing, then destroys it', async () => {
    const tx = await signedTransfer(trx(2));
    devnet.setFaults({ script: [{ path: 'wallet/broadcasttransaction', kind: 'timeout', hold_ms: 150 }] });
    const started = performance.now();
    expect(await call(devnet.url, '/wallet/broadcasttransaction', tx)).toBe('no reply');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(inPool(tx.txID)).toBe(false);
  });

  it('timeout: a client timeout gives up first; other calls are served meanwhile', async () => {
    devnet.setFaults({ script: [{ path: 'wallet/getnowblock', kind: 'timeout', hold_ms: 60_000 }] });
    const aborted = fetch(devnet.url + '/wallet/getnowblock', { method: 'POST', signal: AbortSignal.timeout(200) });
    await expect(aborted).rejects.toThrow(/abort|timeout/i);
    expect(label(await call(devnet.url, '/wallet/getaccount', { address: a.hex }))).toBe('200');
  });

  it('lost_reply on broadcast (real tronweb): the client gets no reply, yet the transaction is pooled and mined', async () => {
    const tx = await signedTransfer(trx(3));
    devnet.setFaults({ script: [{ path: 'wallet/broadcasttransaction', kind: 'lost_reply' }] });
    await expect(a.tw.trx.sendRawTransaction(tx)).rejects.toThrow();
    expect(inPool(tx.txID)).toBe(true);
    const pending = await a.tw.trx.getUnconfirmedTransactionInfo(tx.txID).catch(() => ({}));
    expect(pending).toEqual({});
    // A client that retries the same signed transaction learns that the node already has it.
    expect((await a.tw.trx.sendRawTransaction(tx)).code).toBe('DUP_TRANSACTION_ERROR');
    devnet.mine(1);
    const info = await a.tw.trx.getUnconfirmedTransactionInfo(tx.txID);
    expect(info.id).toBe(tx.txID);
    expect(info.blockNumber).toBe(devnet.chain.head.number);
  });

  it('lost_reply on a read: the reply is lost, the call was served', async () => {
    devnet.setFaults({ script: [{ path: 'wallet/getnowblock', kind: 'lost_reply', times: 2 }] });
    expect(await call(devnet.url, '/wallet/getnowblock')).toBe('no reply');
    await expect(a.tw.trx.getCurrentBlock()).rejects.toThrow();
    expect((await a.tw.trx.getCurrentBlock()).block_header.raw_data.number).toBe(devnet.chain.head.number);
  });

  it('POST /sim/faults sets, GET returns, bad values are refused whole, [] and null clear', async () => {
    const set = await call(devnet.url, '/sim/faults', { script: [{ path: 'wallet/getaccount', kind: 'http_429', times: 2 }], slow_ms: 0 });
    expect(JSON.parse((set as { text: string }).text).script).toEqual([{ path: 'wallet/getaccount', kind: 'http_429', times: 2 }]);
    const bad = await call(devnet.url, '/sim/faults', { node_down: true, script: [{ path: 'wallet/getaccount', kind: 'http_418' }] });
    expect(label(bad)).toBe('400');
    expect(devnet.faults().node_down).toBe(false);
    for (const invalid of [{ chaos: { rate: 2, kinds: ['reset'], seed: 'x' } }, { chaos: { rate: 0.5, kinds: [], seed: 'x' } }, { rate_limit: { budget: 1, window_ms: 0, status: 429 } }, { rate_limit: { budget: 1, window_ms: 1000, status: 500 } }, { script: [{ path: 'sim/info', kind: 'reset' }] }]) {
      expect(label(await call(devnet.url, '/sim/faults', invalid))).toBe('400');
    }
    const get = (await (await fetch(devnet.url + '/sim/faults')).json()) as Record<string, unknown>;
    expect(get).toMatchObject({ script: [{ kind: 'http_429', times: 2 }], chaos: null, rate_limit: null, solidify_jitter: 0, energy_weight_drift_bps: 0 });
    await call(devnet.url, '/sim/faults', { script: [] });
    expect(devnet.faults().script).toEqual([]);
  });
});

describe('chaos (seeded random node faults)', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet();
  });
  afterAll(() => devnet.close());

  const run = (n: number, path?: string): Promise<string[]> => labels(devnet.url, n, path);
  const chaos = { rate: 0.5, kinds: ['http_500', 'http_503', 'error_body', 'reset'] as NodeFaultKind[], seed: 'chaos-1' };

  it('the same seed replays the same sequence of faults; another seed gives another', async () => {
    devnet.setFaults({ chaos });
    const first = await run(40);
    devnet.setFaults({ chaos });
    const second = await run(40);
    expect(second).toEqual(first);
    const failures = first.filter((x) => x !== '200');
    expect(failures.length).toBeGreaterThan(8);
    expect(failures.length).toBeLessThan(32);
    expect(new Set(failures)).toEqual(new Set(['500', '503', '200 Error', 'no reply']));
    devnet.setFaults({ chaos: { ...chaos, seed: 'chaos-2' } });
    expect(await run(40)).not.toEqual(first);
  });

  it('rate 0 never fails, rate 1 always fails; paths restrict it; null turns it off', async () => {
    devnet.setFaults({ chaos: { ...chaos, rate: 0 } });
    expect(new Set(await run(10))).toEqual(new Set(['200']));
    devnet.setFaults({ chaos: { ...chaos, rate: 1, kinds: ['http_502'] } });
    expect(new Set(await run(10))).toEqual(new Set(['502']));
    devnet.setFaults({ chaos: { ...chaos, rate: 1, kinds: ['http_502'], paths: ['walletsolidity/*'] } });
    expect(new Set(await run(5))).toEqual(new Set(['200']));
    expect(new Set(await run(5, '/walletsolidity/getnowblock'))).toEqual(new Set(['502']));
    devnet.setFaults({ chaos: null });
    expect(new Set(await run(5, '/walletsolidity/getnowblock'))).toEqual(new Set(['200']));
  });

  it('a scripted rule goes before chaos and does not consume a chaos draw', async () => {
    devnet.setFaults({ chaos });
    const plain = await run(12);
    devnet.setFaults({ chaos, script: [{ path: 'wallet/getnowblock', kind: 'http_429' }] });
    expect(await run(13)).toEqual(['429 Error', ...plain]);
  });
});

describe('rate_limit (TronGrid-style quota on virtual time)', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet();
  });
  afterEach(() => devnet.setFaults({ script: [], rate_limit: null }));
  afterAll(() => devnet.close());

  /** Mines until the head sits at the start of a window, so the tests know how much of it is left. */
  const alignTo = (windowMs: number): void => {
    while (devnet.chain.now % windowMs !== 0) devnet.mine(1);
  };

  it('refuses calls beyond the budget with 429, the body and Retry-After until the window ends; the next window has a fresh budget', async () => {
    alignTo(60_000);
    devnet.mine(2); // 6 s into the window: 54 s left
    devnet.setFaults({ rate_limit: { budget: 3, window_ms: 60_000, status: 429 } });
    for (let i = 0; i < 3; i++) expect(label(await call(devnet.url, '/wallet/getnowblock'))).toBe('200');
    for (let i = 0; i < 2; i++) {
      const r = (await call(devnet.url, '/walletsolidity/getnowblock')) as Exclude<Outcome, 'no reply'>;
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('54');
      expect(JSON.parse(r.text)).toEqual({ Error: 'The key exceeds the frequency limit(3), and the query server is suspended for 54s' });
    }
    expect(label(await call(devnet.url, '/sim/info'))).toBe('200');
    devnet.mine(17); // 57 s in: 3 s left
    expect((await call(devnet.url, '/wallet/getnowblock') as { headers: Headers }).headers.get('retry-after')).toBe('3');
    devnet.mine(1); // the next window
    // Refused calls did not count: exactly the budget is served again.
    expect(await labels(devnet.url, 4)).toEqual(['200', '200', '200', '429 Error']);
  });

  it('status 403 answers the daily-usage body; Retry-After is at least 1 s', async () => {
    devnet.setFaults({ rate_limit: { budget: 1, window_ms: 500, status: 403 } });
    expect(label(await call(devnet.url, '/wallet/getnowblock'))).toBe('200');
    const r = (await call(devnet.url, '/wallet/getnowblock')) as Exclude<Outcome, 'no reply'>;
    expect(r.status).toBe(403);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(r.text)).toEqual({ Error: 'Exceed the user daily usage (1), the maximum query frequency is 1 time per second' });
  });

  it('scripted failures do not spend the budget; a lost reply does', async () => {
    alignTo(60_000);
    devnet.setFaults({ rate_limit: { budget: 2, window_ms: 60_000, status: 429 }, script: [{ path: '*', kind: 'http_502', times: 3 }] });
    expect(await labels(devnet.url, 3)).toEqual(['502', '502', '502']);
    devnet.setFaults({ script: [{ path: '*', kind: 'lost_reply' }] });
    expect(await call(devnet.url, '/wallet/getnowblock')).toBe('no reply');
    expect(label(await call(devnet.url, '/wallet/getnowblock'))).toBe('200');
    expect(label(await call(devnet.url, '/wallet/getnowblock'))).toBe('429 Error');
  });
});

describe('timeout fault and close()', () => {
  it('close() destroys a held socket at once instead of waiting for hold_ms', async () => {
    const devnet = await startTestDevnet();
    devnet.setFaults({ script: [{ path: 'wallet/getnowblock', kind: 'timeout', hold_ms: 60_000 }] });
    const seen = new Promise<string>((resolve) => {
      const req = request(devnet.url + '/wallet/getnowblock', { method: 'POST' }, () => resolve('reply'));
      req.on('error', (e) => resolve(e.message));
      req.end('{}');
    });
    while (devnet.faults().script.length > 0) await new Promise((r) => setTimeout(r, 5));
    const started = performance.now();
    await devnet.close();
    expect(await seen).toMatch(/socket hang up|ECONNRESET/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
