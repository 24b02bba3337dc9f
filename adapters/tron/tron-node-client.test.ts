/**
 * Adapter-only: the node client's single flight for head reads and identical state reads (the chain-gateway contract
 * cannot see how many requests a read took). Concurrent reads share one request; a read after the last one ended
 * sends a new one, so answers never go backwards; a failure reaches every caller that joined it.
 */
import { describe, expect, it } from 'vitest';
import { ChainError } from '../../core/domain/errors.js';
import { Devnet, startDevnet } from '../tron-devnet/index.js';
import { TronNodeClient } from './tron-node-client.js';

describe('TronNodeClient head single flight', () => {
  it('shares one request among concurrent head reads, and sends a new one after it ended', async () => {
    const devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'single-flight' });
    try {
      const paths: string[] = [];
      // Each request sent (onCall is told once per request, just before it goes out).
      const client = new TronNodeClient({ fullHost: devnet.url, timeoutMs: 5_000, onCall: (path) => paths.push(path) });
      const heads = await Promise.all(Array.from({ length: 5 }, () => client.head('node-read')));
      expect(paths).toEqual(['wallet/getblock']);
      expect(new Set(heads.map((h) => h.number)).size).toBe(1);
      devnet.mine(1);
      const next = await client.head('node-read');
      expect(paths).toHaveLength(2);
      expect(next.number).toBe(heads[0]!.number + 1);
    } finally {
      await devnet.close();
    }
  });

  it('hands a failed shared read to every caller as a ChainError', async () => {
    const client = new TronNodeClient({ fullHost: 'http://127.0.0.1:9', timeoutMs: 1_000 });
    const results = await Promise.allSettled([client.head('node-read'), client.head('node-read')]);
    for (const r of results) expect(r.status === 'rejected' && r.reason instanceof ChainError).toBe(true);
    // The failed flight is over: the next read tries again (and fails again here).
    await expect(client.head('node-read')).rejects.toBeInstanceOf(ChainError);
  });
});

describe('TronNodeClient shared state reads', () => {
  it('shares identical concurrent state reads, never different ones nor per-transaction lookups, and reads afresh after', async () => {
    const devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'shared-reads' });
    try {
      const client = new TronNodeClient({ fullHost: devnet.url, timeoutMs: 5_000 });
      const served = (call: string): number => devnet.nodeCalls()[call] ?? 0;
      const pool = devnet.info().rental_pool;
      const a = Devnet.hex(pool);
      const b = Devnet.hex(devnet.usdtAddress);
      const account = (address: string): Promise<{ balance?: number }> => client.request('full', 'wallet/getaccount', { address });
      const txid = '00'.repeat(32);
      const replies = await Promise.all([account(a), account(a), account(a), account(b),
        client.request('full', 'wallet/gettransactioninfobyid', { value: txid }),
        client.request('full', 'wallet/gettransactioninfobyid', { value: txid })]);
      expect(served('wallet/getaccount')).toBe(2);
      expect(served('wallet/gettransactioninfobyid')).toBe(2);
      expect(replies[1]).toBe(replies[0]);
      expect(replies[2]).toBe(replies[0]);
      // A read after the shared one ended is a new request and sees the chain as it is now.
      devnet.fund(pool, 7_000_000);
      const after = await account(a);
      expect(served('wallet/getaccount')).toBe(3);
      expect(BigInt(after.balance ?? 0) - BigInt(replies[0]!.balance ?? 0)).toBe(7_000_000n);
    } finally {
      await devnet.close();
    }
  });

  it('a read asked after a broadcast began never joins a read asked before it (the caller that sent sees its effect)', async () => {
    const devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'shared-reads-send' });
    try {
      const client = new TronNodeClient({ fullHost: devnet.url, timeoutMs: 5_000 });
      const served = (): number => devnet.nodeCalls()['wallet/getaccount'] ?? 0;
      const a = Devnet.hex(devnet.info().rental_pool);
      const account = (): Promise<unknown> => client.request('full', 'wallet/getaccount', { address: a });
      // The first read is in flight when the send begins and the second is asked (all in one turn).
      const before = account();
      // A refused broadcast still counts as a send begun: what it changes, if anything, is the node's to say.
      const sent = client.broadcast({ txID: '00'.repeat(32), raw_data: {}, signature: [] }).catch(() => undefined);
      const after = account();
      await Promise.all([before, sent, after]);
      expect(served()).toBe(2);
      // Without a send between them, the same two reads share one request.
      await Promise.all([account(), account()]);
      expect(served()).toBe(3);
    } finally {
      await devnet.close();
    }
  });

  it('hands a failed shared read to every caller, and the next read tries again', async () => {
    const client = new TronNodeClient({ fullHost: 'http://127.0.0.1:9', timeoutMs: 1_000 });
    const read = (): Promise<unknown> => client.call('balance-read', 'getTrxBalance', 'full', 'wallet/getaccount', { address: '41' + '00'.repeat(20) });
    const results = await Promise.allSettled([read(), read()]);
    for (const r of results) expect(r.status === 'rejected' && r.reason instanceof ChainError).toBe(true);
    await expect(read()).rejects.toBeInstanceOf(ChainError);
  });
});
