/**
 * solidify_jitter: the solidified head trails the head by a lag that varies per block (seeded), and never moves
 * backwards, seen over HTTP (/walletsolidity/getnowblock) and through tronweb's solidified reads.
 */
import { describe, expect, it } from 'vitest';
import type { Devnet } from './index.js';
import { startTestDevnet, trx, wallet } from './test-helpers.js';

const solidOverHttp = async (devnet: Devnet): Promise<number> => {
  const b = (await (await fetch(`${devnet.solidityUrl}/walletsolidity/getnowblock`, { method: 'POST', body: '{}' })).json()) as {
    block_header: { raw_data: { number?: number } };
  };
  // java-tron omits a proto default: block 0 prints without `number`.
  return b.block_header.raw_data.number ?? 0;
};

/** Mines `n` blocks one at a time (after 30 blocks of warm-up) and returns [head, solidified] after each, read over HTTP. */
async function trail(devnet: Devnet, n: number): Promise<Array<[number, number]>> {
  devnet.mine(30);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    devnet.mine(1);
    out.push([devnet.chain.head.number, await solidOverHttp(devnet)]);
  }
  return out;
}

describe('solidify_jitter', () => {
  it('off: the lag is exactly solidifyLag', async () => {
    const devnet = await startTestDevnet();
    try {
      for (const [head, solid] of await trail(devnet, 30)) expect(head - solid).toBe(19);
    } finally {
      await devnet.close();
    }
  });

  it('on: the lag varies within [lag, lag + jitter], the solidified number never goes back, and a seed replays it', async () => {
    const a = await startTestDevnet({ seed: 'jitter' });
    const b = await startTestDevnet({ seed: 'jitter' });
    try {
      const set = (await (await fetch(`${a.url}/sim/faults`, { method: 'POST', body: JSON.stringify({ solidify_jitter: 6 }) })).json()) as { solidify_jitter: number };
      expect(set.solidify_jitter).toBe(6);
      b.setFaults({ solidify_jitter: 6 });
      const ta = await trail(a, 120);
      expect(await trail(b, 120)).toEqual(ta);
      const lags = ta.map(([head, solid]) => head - solid);
      for (const lag of lags) {
        expect(lag).toBeGreaterThanOrEqual(19);
        expect(lag).toBeLessThanOrEqual(25);
      }
      expect(new Set(lags).size).toBeGreaterThan(3);
      const steps = ta.slice(1).map(([, solid], i) => solid - ta[i]![1]);
      for (const step of steps) expect(step).toBeGreaterThanOrEqual(0);
      expect(steps).toContain(0);
      expect(Math.max(...steps)).toBeGreaterThan(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('never regresses when the jitter or the lag parameter grows, or while stalled', async () => {
    const devnet = await startTestDevnet({ seed: 'jitter-2' });
    try {
      devnet.mine(40);
      const solid = devnet.info().solidified_number;
      devnet.setFaults({ solidify_jitter: 30 });
      devnet.setParams({ solidifyLag: 35 });
      expect(devnet.info().solidified_number).toBe(solid);
      devnet.setFaults({ stall_solidification: true });
      devnet.mine(80);
      expect(devnet.info().solidified_number).toBe(solid);
      devnet.setFaults({ stall_solidification: false });
      const lag = devnet.info().head_number - devnet.info().solidified_number;
      expect(lag).toBeGreaterThanOrEqual(35);
      expect(lag).toBeLessThanOrEqual(65);
      // A long advance (a gap of missed slots, then regular blocks) still brings the solidified view past the gap.
      const before = devnet.chain.now;
      devnet.advance(86_400_000);
      expect(devnet.chain.block(devnet.chain.solidNumber)!.time).toBeGreaterThanOrEqual(before + 86_400_000 - (35 + 30) * 3_000);
      expect(() => devnet.setFaults({ solidify_jitter: 1.5 })).toThrow();
    } finally {
      await devnet.close();
    }
  });

  it('tronweb sees a transaction as solidified exactly when the jittered solidified head reaches its block', async () => {
    const devnet = await startTestDevnet({ seed: 'jitter-3', solidityPort: 0, fullServesSolidity: false });
    try {
      const payer = wallet(devnet, 'jitter-payer');
      devnet.fund(payer.address, trx(10));
      devnet.setFaults({ solidify_jitter: 8 });
      const sent = await payer.tw.trx.sendTransaction(wallet(devnet, 'jitter-to').address, trx(1));
      devnet.mine(1);
      const included = devnet.chain.head.number;
      const { TronWeb } = await import('tronweb');
      const tw = new TronWeb({ fullNode: devnet.url, solidityNode: devnet.solidityUrl });
      for (let i = 0; i < 40; i++) {
        const info = await tw.trx.getTransactionInfo(sent.transaction.txID);
        expect(Object.keys(info).length > 0).toBe(devnet.chain.solidNumber >= included);
        devnet.mine(1);
      }
      expect(devnet.chain.solidNumber).toBeGreaterThanOrEqual(included);
    } finally {
      await devnet.close();
    }
  });
});
