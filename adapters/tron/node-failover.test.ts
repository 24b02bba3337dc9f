/**
 * Adapter-only: the gateway over several nodes (`fallbackNodes`) on a devnet serving one chain on two endpoints, each
 * with its own faults. A node that fails as a node (down, HTTP 5xx, 429, a quota text) hands the request to the next
 * and is paused; an answer from java-tron (HTTP 404 here) is not failed over; a single node behaves as it did without
 * fallbacks.
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../memory/index.js';
import { startDevnet, type Devnet } from '../tron-devnet/index.js';
import { createDevnetChainGateway } from './devnet-chain-gateway.js';
import { TronWebChainGateway } from './tronweb-chain-gateway.js';

const opened: Devnet[] = [];
afterEach(async () => {
  for (const devnet of opened.splice(0)) await devnet.close();
});

async function twoNodes(seed: string): Promise<{ devnet: Devnet; clock: ManualClock; gateway: TronWebChainGateway; single: TronWebChainGateway }> {
  const devnet = await startDevnet({ port: 0, blockMs: 0, seed, extraNodes: 1 });
  opened.push(devnet);
  const clock = new ManualClock();
  const now = () => clock.now();
  return {
    devnet, clock,
    gateway: createDevnetChainGateway(devnet, { fallbackNodes: [{ fullHost: devnet.nodes[1]!.url }], now }),
    single: createDevnetChainGateway(devnet, { now }),
  };
}

/** A payer funded with 10 TRX (mined) and a payee; `pay` prepares (builds and signs) a TRX transfer between them. */
async function payerAndPayee(devnet: Devnet, g: TronWebChainGateway) {
  const payer = await g.createAccount();
  const payee = await g.createAccount();
  devnet.fund(payer.address, 10_000_000);
  devnet.mine(1);
  const pay = (amountSun: bigint) => g.prepare({ address: payer.address, privateKey: async () => payer.privateKey }, { kind: 'transfer-trx', to: payee.address, amountSun });
  return { payer, payee, pay };
}

/** Calls each node served (refused ones are not counted). */
const served = (devnet: Devnet): [number, number] => [devnet.nodes[0]!.calls, devnet.nodes[1]!.calls];

describe('TronWebChainGateway with fallback nodes', () => {
  it('with the first node down, reads, the build and the broadcast go to the next node, and the transfer lands', async () => {
    const { devnet, gateway: g } = await twoNodes('failover-down');
    const { payer, payee, pay } = await payerAndPayee(devnet, g);
    devnet.nodes[0]!.setFaults({ node_down: true });
    const before = served(devnet);
    expect(await g.getTrxBalance(payer.address)).toBe(10_000_000n);
    const tx = await pay(1_000_000n);
    await g.broadcast(tx);
    devnet.mine(1);
    expect(await g.getTransaction(tx.txid)).toMatchObject({ state: 'confirmed' });
    expect(await g.getTrxBalance(payee.address)).toBe(1_000_000n);
    const after = served(devnet);
    expect(after[0]).toBe(before[0]);
    expect(after[1]).toBeGreaterThan(before[1]);
  });

  it.each([
    { why: 'an HTTP 503: 1 s', fault: { kind: 'http_503' as const }, pauseMs: 1_000 },
    { why: "a 429's Retry-After, past the backoff's one-minute cap", fault: { kind: 'http_429' as const, retry_after_s: 120 }, pauseMs: 120_000 },
    { why: 'TronGrid\'s quota text in an HTTP 200 error body ("suspended for 5 s")', fault: { kind: 'error_body' as const }, pauseMs: 5_000 },
  ])('a node that failed ($why) hands the request to the next, is skipped while paused, then asked first again', async ({ fault, pauseMs }) => {
    const { devnet, clock, gateway: g } = await twoNodes(`failover-pause-${fault.kind}`);
    const address = (await g.createAccount()).address;
    devnet.fund(address, 5_000_000);
    devnet.mine(1);
    devnet.nodes[0]!.setFaults({ script: [{ path: 'wallet/getaccount', times: 1, ...fault }] });
    const asks = async (): Promise<[number, number]> => {
      const [a, b] = served(devnet);
      expect(await g.getTrxBalance(address)).toBe(5_000_000n);
      const [c, d] = served(devnet);
      return [c - a, d - b];
    };
    expect(await asks()).toEqual([0, 1]);
    // Paused: the first node is not asked, though it would answer now.
    clock.advance(pauseMs - 1);
    expect(await asks()).toEqual([0, 1]);
    clock.advance(1);
    expect(await asks()).toEqual([1, 0]);
  });

  it('an HTTP 404 (a node that does not serve the endpoint: a configuration error) is reported, not hidden by a fallback', async () => {
    const devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'failover-404', extraNodes: 1, solidityPort: 0, fullServesSolidity: false });
    opened.push(devnet);
    // The first node's solidity URL left out: its full port answers /walletsolidity with 404.
    const g = new TronWebChainGateway({
      fullHost: devnet.url, usdtContract: devnet.usdtAddress, timeoutMs: 5_000, fallbackNodes: [{ fullHost: devnet.nodes[1]!.url }],
    });
    await expect(g.solidifiedHead()).rejects.toMatchObject({ code: 'CHAIN-NODE-UNAVAILABLE', transient: false, nodeCode: 'HTTP_404' });
  });

  it('a quota refusal in an HTTP 200 error body (TronGrid\'s "suspended for 5 s") fails over and pauses the node 5 s', async () => {
    const { devnet, clock, gateway: g } = await twoNodes('failover-quota-body');
    const address = (await g.createAccount()).address;
    devnet.fund(address, 2_000_000);
    devnet.mine(1);
    devnet.nodes[0]!.setFaults({ script: [{ path: 'wallet/getaccount', kind: 'error_body', times: 1 }] });
    let [a, b] = served(devnet);
    expect(await g.getTrxBalance(address)).toBe(2_000_000n);
    expect(served(devnet)).toEqual([a, b + 1]);
    clock.advance(4_999);
    [a, b] = served(devnet);
    await g.getTrxBalance(address);
    expect(served(devnet)).toEqual([a, b + 1]);
    clock.advance(1);
    [a, b] = served(devnet);
    await g.getTrxBalance(address);
    expect(served(devnet)).toEqual([a + 1, b]);
  });

  it('with every node failing, the last failure is what the caller sees; with every node paused, the one whose pause ends first is asked', async () => {
    const { devnet, gateway: g, single } = await twoNodes('failover-all');
    const address = (await g.createAccount()).address;
    devnet.nodes[0]!.setFaults({ node_down: true });
    devnet.nodes[1]!.setFaults({ node_down: true });
    await expect(g.getTrxBalance(address)).rejects.toMatchObject({ code: 'CHAIN-BALANCE-QUERY-FAILED', transient: true });
    await expect(single.getTrxBalance(address)).rejects.toMatchObject({ code: 'CHAIN-BALANCE-QUERY-FAILED', transient: true });
    // Both paused 1 s; the first node fails once more (asked anyway), so its pause (2 s) now ends after the second's.
    await expect(g.getTrxBalance(address)).rejects.toMatchObject({ transient: true });
    devnet.nodes[0]!.setFaults({ node_down: false });
    devnet.nodes[1]!.setFaults({ node_down: false });
    const [a, b] = served(devnet);
    expect(await g.getTrxBalance(address)).toBe(0n);
    expect(served(devnet)).toEqual([a, b + 1]);
    // A single node is asked at once, paused or not.
    expect(await single.getTrxBalance(address)).toBe(0n);
    expect(served(devnet)).toEqual([a + 1, b + 1]);
  });

  it('the pause doubles per failure in a row, from 1 s to a cap of a minute', async () => {
    const devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'failover-doubling', extraNodes: 1 });
    opened.push(devnet);
    const clock = new ManualClock();
    const failures: string[] = [];
    const g = createDevnetChainGateway(devnet, {
      fallbackNodes: [{ fullHost: devnet.nodes[1]!.url }], now: () => clock.now(), onNodeFailure: (node) => failures.push(node),
    });
    const address = (await g.createAccount()).address;
    devnet.nodes[0]!.setFaults({ node_down: true });
    await g.getTrxBalance(address);
    for (const pause of [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]) {
      const before = failures.length;
      clock.advance(pause - 1);
      await g.getTrxBalance(address);
      expect(failures.length, `still paused ${pause - 1} ms in`).toBe(before);
      clock.advance(1);
      await g.getTrxBalance(address);
      expect(failures, `asked again after ${pause} ms`).toHaveLength(before + 1);
    }
    expect(new Set(failures)).toEqual(new Set([new URL(devnet.url).origin]));
  });

  it('a broadcast whose reply the first node lost (it took the transaction) goes to the next, which knows it: accepted, landed once', async () => {
    const { devnet, gateway: g } = await twoNodes('failover-lost-reply');
    const { payee, pay } = await payerAndPayee(devnet, g);
    const tx = await pay(2_000_000n);
    devnet.nodes[0]!.setFaults({ script: [{ path: 'wallet/broadcasttransaction', kind: 'lost_reply', times: 1 }] });
    const before = devnet.nodes[1]!.callsByName['wallet/broadcasttransaction'] ?? 0;
    await g.broadcast(tx);
    expect(devnet.nodes[1]!.callsByName['wallet/broadcasttransaction']).toBe(before + 1);
    devnet.mine(1);
    expect(await g.getTransaction(tx.txid)).toMatchObject({ state: 'confirmed' });
    expect(await g.getTrxBalance(payee.address)).toBe(2_000_000n);
  });
});

describe('TronWebChainGateway fallback nodes: model-based', () => {
  /** A fault for the next balance read on one node, with the pause it asks for (null: the backoff's own). */
  const FAULTS = {
    none: null,
    http_503: { rule: { kind: 'http_503' as const }, retryAfterMs: null },
    http_429: { rule: { kind: 'http_429' as const, retry_after_s: 90 }, retryAfterMs: 90_000 },
    quota_body: { rule: { kind: 'error_body' as const }, retryAfterMs: 5_000 },
    down: { rule: null, retryAfterMs: null },
  };
  type Fault = keyof typeof FAULTS;
  const fault = fc.constantFrom<Fault>('none', 'none', 'http_503', 'http_503', 'http_429', 'quota_body', 'down', 'down');
  const command = fc.oneof(
    fc.record({ advanceMs: fc.constantFrom(1, 999, 1_000, 1_000, 2_000, 4_000, 5_000, 60_000, 90_000) }),
    fc.record({ faults: fc.tuple(fault, fault) }),
  );

  it('which node answers each read, and when every node failed, follows the pause rules (decision 85)', async () => {
    const devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'failover-model', extraNodes: 1 });
    opened.push(devnet);
    const address = (await createDevnetChainGateway(devnet).createAccount()).address;
    await fc.assert(fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (commands) => {
      const clock = new ManualClock();
      const g = createDevnetChainGateway(devnet, { fallbackNodes: [{ fullHost: devnet.nodes[1]!.url }], now: () => clock.now() });
      // The model: each node's failures in a row and the end of its pause.
      const model = [{ failures: 0, until: 0 }, { failures: 0, until: 0 }];
      for (const c of commands) {
        if ('advanceMs' in c) {
          clock.advance(c.advanceMs);
          continue;
        }
        c.faults.forEach((f, i) => {
          const node = devnet.nodes[i]!;
          const spec = FAULTS[f];
          node.setFaults({ node_down: f === 'down', script: spec?.rule ? [{ path: 'wallet/getaccount', times: 1, ...spec.rule }] : [] });
        });
        const now = clock.now();
        const ready = [0, 1].filter((i) => model[i]!.until <= now);
        const order = ready.length > 0 ? ready : [model[1]!.until < model[0]!.until ? 1 : 0];
        let expected: number | null = null;
        for (const i of order) {
          const spec = FAULTS[c.faults[i]!];
          if (spec === null) {
            expected = i;
            model[i]!.failures = 0;
            break;
          }
          model[i]!.failures += 1;
          const pause = spec.retryAfterMs ?? Math.min(1_000 * 2 ** (model[i]!.failures - 1), 60_000);
          model[i]!.until = Math.max(model[i]!.until, now + pause);
        }
        const before = served(devnet);
        const outcome = await g.getTrxBalance(address).then(() => 'ok', (e: unknown) => e);
        const after = served(devnet);
        const answered = after[0] > before[0] ? 0 : after[1] > before[1] ? 1 : null;
        if (expected === null) expect(outcome).toMatchObject({ code: 'CHAIN-BALANCE-QUERY-FAILED', transient: true });
        else expect(outcome).toBe('ok');
        expect(answered, JSON.stringify({ c, model, now })).toBe(expected);
      }
      for (const node of devnet.nodes) node.setFaults({ node_down: false, script: [] });
    }), { numRuns: runs(200) });
  });
});
