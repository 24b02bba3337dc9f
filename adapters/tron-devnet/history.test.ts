/**
 * The per-block state layers (state.ts, layered-map.ts) against what they replaced, a deep copy of the state kept
 * per block: whatever happens later (blocks, faucet mints, stakes and delegations, reorgs, the bottom layer
 * absorbing old blocks), a kept block's state reads exactly as it did when that block stopped being the head, and
 * the stake totals equal a scan of the accounts. Adapter-only: no contract suite sees the devnet's internals.
 */
import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Chain } from './chain.js';
import { addressOfKey, deriveKey } from './codec.js';
import { TxError } from './executor.js';
import { stakeTotals, type ChainState } from './state.js';

const keys = [0, 1, 2, 3].map((i) => deriveKey('history', `k${i}`));
const addrs = keys.map(addressOfKey);

function plain(s: ChainState): string {
  return JSON.stringify({
    ...s,
    accounts: [...s.accounts.entries()],
    delegations: [...s.delegations.entries()],
    usdt: [...s.usdt.entries()].map(([k, v]) => [k, v.toString()]),
    usdtTotalSupply: s.usdtTotalSupply.toString(),
    usdtBlacklist: [...s.usdtBlacklist],
  });
}

function expectTotals(s: ChainState): void {
  let energy = 0;
  let bandwidth = 0;
  for (const a of s.accounts.values()) {
    energy += a.frozenEnergy + a.delegatedEnergy;
    bandwidth += a.frozenBandwidth + a.delegatedBandwidth;
  }
  expect(stakeTotals(s)).toEqual({ energy, bandwidth });
}

const who = fc.nat(3);
const op = fc.oneof(
  fc.record({ t: fc.constant('fund' as const), to: who, sun: fc.integer({ min: 1, max: 5_000_000_000 }) }),
  fc.record({ t: fc.constant('token' as const), to: who, amount: fc.integer({ min: 1, max: 1_000 }) }),
  fc.record({ t: fc.constant('pay' as const), from: who, to: who, sun: fc.integer({ min: 1, max: 2_000_000 }) }),
  fc.record({ t: fc.constant('freeze' as const), from: who, trx: fc.integer({ min: 1, max: 3 }), energy: fc.boolean() }),
  fc.record({ t: fc.constant('delegate' as const), from: who, to: who, trx: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ t: fc.constant('undelegate' as const), from: who, to: who, trx: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ t: fc.constant('blacklist' as const), who, on: fc.boolean() }),
  fc.record({ t: fc.constant('mine' as const), blocks: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ t: fc.constant('reorg' as const), depth: fc.integer({ min: 1, max: 25 }), keep: fc.boolean() }),
);

describe('per-block state layers', () => {
  it('a kept block state never changes after the block stops being the head, and stake totals match a scan', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 5, maxLength: 30 }), (ops) => {
        const genesis = { accounts: addrs.map((address) => ({ address, balance_sun: 10_000_000_000, usdt: 1_000 })) };
        const chain = new Chain({ seed: 'history', params: { solidifyLag: 5 }, genesis });
        const recorded = new Map<number, string>();
        const send = (from: number, type: string, value: Record<string, unknown>) => {
          try {
            chain.broadcast(chain.signRaw(chain.buildRaw(type, { owner_address: addrs[from], ...value }), keys[from]!));
          } catch (e) {
            if (!(e instanceof TxError)) throw e;
          }
        };
        const beforeBlocks = () => {
          const head = chain.head.number;
          recorded.set(head, plain(chain.stateAt(head)!));
        };
        for (const o of ops) {
          switch (o.t) {
            case 'fund':
              chain.fund(addrs[o.to]!, o.sun);
              break;
            case 'token':
              chain.fundToken(addrs[o.to]!, BigInt(o.amount));
              break;
            case 'pay':
              send(o.from, 'TransferContract', { to_address: addrs[o.to], amount: o.sun });
              break;
            case 'freeze':
              send(o.from, 'FreezeBalanceV2Contract', { frozen_balance: o.trx * 1_000_000, resource: o.energy ? 'ENERGY' : 'BANDWIDTH' });
              break;
            case 'delegate':
              send(o.from, 'DelegateResourceContract', { receiver_address: addrs[o.to], balance: o.trx * 1_000_000, resource: 'ENERGY' });
              break;
            case 'undelegate':
              send(o.from, 'UnDelegateResourceContract', { receiver_address: addrs[o.to], balance: o.trx * 1_000_000, resource: 'ENERGY' });
              break;
            case 'blacklist':
              chain.setUsdtBlacklisted(addrs[o.who]!, o.on);
              break;
            case 'mine':
              for (let i = 0; i < o.blocks; i++) {
                beforeBlocks();
                chain.mine(1);
              }
              break;
            case 'reorg': {
              const fork = chain.head.number - o.depth;
              if (fork < chain.solidNumber) break;
              for (const n of recorded.keys()) if (n >= fork) recorded.delete(n);
              const result = chain.reorg(o.depth, { keep: o.keep ? 'all' : 'none' });
              expect(result.fork).toBe(fork);
              break;
            }
          }
          for (const [n, json] of recorded) {
            const st = chain.stateAt(n);
            if (st === undefined) expect(n).toBeLessThan(Math.min(chain.solidNumber, chain.head.number - 64));
            else expect(plain(st), `state of block ${n}`).toBe(json);
          }
          expectTotals(chain.state());
          expectTotals(chain.state(true));
        }
      }),
      { numRuns: runs(60) },
    );
  });
});
