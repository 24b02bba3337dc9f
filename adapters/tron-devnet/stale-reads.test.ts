/**
 * stale_reads: full-node state reads answer from a state up to N blocks behind the head (a provider's backends at
 * different heights), seen over HTTP; heads, transactions and the solidity view stay as they are. stale_tx_lookups:
 * full-node transaction lookups answer as a node N blocks behind.
 */
import { describe, expect, it } from 'vitest';
import { Devnet } from './index.js';
import { startTestDevnet, trx, wallet } from './test-helpers.js';

const post = async (devnet: Devnet, path: string, body: unknown): Promise<Record<string, unknown>> =>
  (await (await fetch(`${devnet.url}/${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as Record<string, unknown>;

/**
 * Mines a block, then credits `address` 1 TRX more, `blocks` times: the devnet credits the head block's state, so the
 * balance a read sees tells which block's state it read.
 */
function ladder(devnet: Devnet, address: string, blocks: number): Map<number, number> {
  const balanceAt = new Map<number, number>();
  for (let k = 0; k < blocks; k++) {
    devnet.mine(1);
    devnet.fund(address, trx(1));
    balanceAt.set(devnet.info().head_number, trx(k + 1));
  }
  return balanceAt;
}

describe('stale_reads', () => {
  it('answers account reads from a seeded 0..N blocks behind, never ahead; heads and the solidity view are untouched', async () => {
    const devnet = await startTestDevnet({ seed: 'stale-reads' });
    try {
      const a = wallet(devnet, 'stale-a');
      const balanceAt = ladder(devnet, a.address, 8);
      const head = devnet.info().head_number;
      devnet.setFaults({ stale_reads: 3 });
      const seen = new Set<number>();
      for (let i = 0; i < 40; i++) {
        const balance = Number((await post(devnet, 'wallet/getaccount', { address: a.hex })).balance ?? 0);
        const block = [...balanceAt].find(([, b]) => b === balance)?.[0];
        expect(block, `balance ${balance} is no block's`).toBeDefined();
        expect(head - block!).toBeGreaterThanOrEqual(0);
        expect(head - block!).toBeLessThanOrEqual(3);
        seen.add(head - block!);
      }
      // 40 seeded draws over 0..3 hit every lag (this seed does; the draws are deterministic).
      expect([...seen].sort()).toEqual([0, 1, 2, 3]);
      const nowBlock = (await post(devnet, 'wallet/getnowblock', {})) as { block_header: { raw_data: { number: number } } };
      expect(nowBlock.block_header.raw_data.number).toBe(head);
      const solidBalances = new Set<unknown>();
      for (let i = 0; i < 10; i++) solidBalances.add((await post(devnet, 'walletsolidity/getaccount', { address: a.hex })).balance);
      expect(solidBalances.size).toBe(1);
      devnet.setFaults({ stale_reads: 0 });
      expect(Number((await post(devnet, 'wallet/getaccount', { address: a.hex })).balance)).toBe(balanceAt.get(head));
    } finally {
      await devnet.close();
    }
  });

  it('constant calls (balanceOf) are stale too, within the bound', async () => {
    const devnet = await startTestDevnet({ seed: 'stale-reads-trc20' });
    try {
      const a = wallet(devnet, 'stale-b');
      for (let k = 1; k <= 6; k++) {
        devnet.mine(1);
        devnet.fundToken(a.address, 1_000n);
      }
      devnet.setFaults({ stale_reads: 2 });
      const balances = new Set<bigint>();
      const balanceOf = async (): Promise<bigint> => {
        const reply = await post(devnet, 'wallet/triggerconstantcontract', {
          owner_address: a.hex, contract_address: Devnet.hex(devnet.usdtAddress), function_selector: 'balanceOf(address)',
          parameter: a.hex.slice(2).padStart(64, '0'),
        });
        return BigInt(`0x${(reply.constant_result as string[])[0]}`);
      };
      for (let i = 0; i < 30; i++) balances.add(await balanceOf());
      expect([...balances].sort()).toEqual([4_000n, 5_000n, 6_000n]);
    } finally {
      await devnet.close();
    }
  });

  it('stale_tx_lookups: a node N blocks behind does not know a transaction in a newer block; the solidity view does', async () => {
    const devnet = await startTestDevnet({ seed: 'stale-tx', solidifyLag: 1 });
    try {
      const a = wallet(devnet, 'stale-tx-a');
      const b = wallet(devnet, 'stale-tx-b');
      devnet.fund(a.address, trx(10));
      devnet.mine(1);
      const sent = await a.tw.trx.sendTransaction(b.address, trx(1)) as { txid: string };
      devnet.mine(1);
      const block = devnet.info().head_number;
      const info = async (path: string): Promise<Record<string, unknown>> => post(devnet, path, { value: sent.txid });
      devnet.setFaults({ stale_tx_lookups: 5 });
      for (let k = 0; k < 5; k++) {
        expect(await info('wallet/gettransactioninfobyid')).toEqual({});
        expect(await info('wallet/gettransactionbyid')).toEqual({});
        devnet.mine(1);
      }
      expect(devnet.info().head_number - block).toBe(5);
      expect((await info('wallet/gettransactioninfobyid'))['blockNumber']).toBe(block);
      expect((await info('walletsolidity/gettransactioninfobyid'))['blockNumber']).toBe(block);
    } finally {
      await devnet.close();
    }
  });

  it('rejects a negative or too large lag, and changes nothing then', async () => {
    const devnet = await startTestDevnet();
    try {
      expect(() => devnet.setFaults({ stale_reads: -1 })).toThrow(/stale_reads/);
      expect(() => devnet.setFaults({ stale_reads: 33 })).toThrow(/stale_reads/);
      expect(() => devnet.setFaults({ stale_tx_lookups: 201 })).toThrow(/stale_tx_lookups/);
      expect(devnet.faults().stale_reads).toBe(0);
      expect(devnet.faults().stale_tx_lookups).toBe(0);
    } finally {
      await devnet.close();
    }
  });
});
