import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { pay, startTestDevnet, trx, wallet } from './test-helpers.js';

const post = async (url: string, body: unknown): Promise<Response> => fetch(url, { method: 'POST', body: JSON.stringify(body) });
const head = async (url: string): Promise<number> => ((await (await post(`${url}/wallet/getnowblock`, {})).json()) as { block_header: { raw_data: { number: number } } }).block_header.raw_data.number;

describe('several node endpoints over one chain, with independent faults', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet({ extraNodes: 1 });
  });
  afterAll(() => devnet.close());

  it('serves the same chain on every node; each counts its own calls', async () => {
    const [a, b] = devnet.nodes;
    expect(a!.url).toBe(devnet.url);
    expect(b!.url).not.toBe(devnet.url);
    const n = devnet.mine(2);
    const before = [a!.calls, b!.calls];
    expect(await head(a!.url)).toBe(n);
    expect(await head(b!.url)).toBe(n);
    expect(await head(b!.url)).toBe(n);
    expect([a!.calls - before[0]!, b!.calls - before[1]!]).toEqual([1, 2]);
  });

  it('counts served calls by name on each node and in total (GET /sim/calls); refused calls are not served', async () => {
    const [a, b] = devnet.nodes;
    const total = devnet.nodeCalls();
    const byA = a!.callsByName;
    await post(`${b!.url}/sim/faults`, { script: [{ path: 'wallet/getnowblock', kind: 'http_503' }] });
    expect((await post(`${b!.url}/wallet/getnowblock`, {})).status).toBe(503);
    await head(b!.url);
    await post(`${a!.url}/walletsolidity/getnowblock`, {});
    const after = (await (await fetch(`${devnet.url}/sim/calls`)).json()) as Record<string, number>;
    expect(after).toEqual(devnet.nodeCalls());
    expect(after['wallet/getnowblock']).toBe((total['wallet/getnowblock'] ?? 0) + 1);
    expect(after['walletsolidity/getnowblock']).toBe((total['walletsolidity/getnowblock'] ?? 0) + 1);
    expect(a!.callsByName['walletsolidity/getnowblock']).toBe((byA['walletsolidity/getnowblock'] ?? 0) + 1);
    expect(Object.keys(after)).toEqual(Object.keys(after).sort());
  });

  it("a node's faults touch only that node, in-process and over its own /sim/faults", async () => {
    const [a, b] = devnet.nodes;
    b!.setFaults({ node_down: true });
    await expect(head(b!.url)).rejects.toThrow();
    expect(await head(a!.url)).toBe(devnet.info().head_number);
    b!.setFaults({ node_down: false });
    await post(`${b!.url}/sim/faults`, { script: [{ path: 'wallet/getnowblock', kind: 'http_429', retry_after_s: 7 }] });
    const refused = await post(`${b!.url}/wallet/getnowblock`, {});
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '7']);
    expect((await post(`${a!.url}/wallet/getnowblock`, {})).status).toBe(200);
    expect(devnet.faults().script).toEqual([]);
    expect(() => b!.setFaults({ stall_solidification: true })).toThrow(/chain-wide/);
    expect(b!.faults()).toEqual({ node_down: false, slow_ms: 0, script: [], chaos: null, rate_limit: null });
  });

  it('POST /sim/reorg replaces the last blocks on every node', async () => {
    const payer = wallet(devnet, 'nodes-payer');
    devnet.fund(payer.address, trx(10));
    devnet.mine(25);
    const txid = pay.trx(devnet, payer.key, wallet(devnet, 'nodes-to').address, 1);
    const n = devnet.mine(1);
    const reply = (await (await post(`${devnet.nodes[1]!.url}/sim/reorg`, { depth: 1, keep: 'none' })).json()) as { fork: number; dropped: string[]; head_number: number };
    expect(reply).toMatchObject({ fork: n - 1, dropped: [txid], head_number: n + 1 });
    expect(await head(devnet.url)).toBe(n + 1);
    expect((await post(`${devnet.url}/sim/reorg`, { depth: 1, keep: 'maybe' })).status).toBe(400);
  });
});
