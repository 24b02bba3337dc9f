import { expect } from 'vitest';
import { createMemoryAdapters } from '../../adapters/memory/create-memory-adapters.js';
import { ManualClock } from '../../adapters/memory/manual-clock.js';
import { createAssetRegistry } from '../../core/domain/assets.js';
import { custodialAccount, holderAccount } from '../../core/domain/ledger.js';
import { LedgerReconciliationJob, RECONCILIATION_STATE_KIND } from '../../core/application/ledger-reconciliation.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import type { OperatorStatusStore } from '../../core/ports/operator-status-store.port.js';
import { aWallet, T0 } from './fixtures.js';

/**
 * The reconciliation job's state between passes lives in the given store (issue #36 item 3): one user whose books
 * hold 5 TRX on an address where the chain shows 7, judged by job instances that share only `status` (a restart, or
 * a second worker). Checks that the second pass, run by another instance, reports the stable difference once; that a
 * third instance reports nothing more; and that of two instances racing from one state, only one reports.
 */
export async function reconciliationStateScenario(status: OperatorStatusStore): Promise<void> {
  const clock = new ManualClock(T0);
  const mem = createMemoryAdapters({ clock });
  const wallet = aWallet({ id: 1, userId: 7 });
  await mem.wallets.insert(wallet, { maxSubAddresses: -1 });
  await mem.ledger.post({
    transactionId: 'open', userId: 7, occurredAt: T0, reverses: null, cause: { type: 'deposit', id: 'open' },
    lines: [{ account: holderAccount('external_in', 'TRON', 'TRX'), amount: -5n }, { account: custodialAccount('TRON', 'TRX', wallet.address), amount: 5n }],
  });
  // The chain: 7 TRX liquid, no stake, no USDT (the books hold no USDT either: matched).
  const chain = { getTrxHoldings: async () => ({ liquidSun: 7n, stakedSun: 0n, unstakingSun: 0n }), getTokenBalance: async () => 0n } as unknown as ChainGateway;
  const assets = createAssetRegistry({ usdtContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
  const job = () => new LedgerReconciliationJob({ ...mem, chain, assets, clock, operatorStatus: status }, { everyMs: 0 });

  const first = await job().runPass();
  expect({ reported: first.reported.length, standing: first.standing.length }).toEqual({ reported: 0, standing: 0 });
  // A restarted worker (a new instance) continues the count: the same difference a second time is reported.
  clock.advance(3_600_000);
  const second = await job().runPass();
  expect(second.reported.map((l) => [l.address, l.judgement.unexplained])).toEqual([[wallet.address, 2n]]);
  expect(second.standing).toHaveLength(1);
  // Another worker's pass later: still standing, not reported again.
  clock.advance(3_600_000);
  const third = await job().runPass();
  expect({ reported: third.reported.length, standing: third.standing.length }).toEqual({ reported: 0, standing: 1 });
  expect((await status.get(RECONCILIATION_STATE_KIND))?.body).toMatchObject({ pass: 3, reported: { [`7|TRON|${wallet.address}|TRX`]: '2' } });

  // The difference changes; two workers' passes race from the same state: the new amount is reported once in all.
  await mem.ledger.post({
    transactionId: 'more', userId: 7, occurredAt: T0 + 1, reverses: null, cause: { type: 'deposit', id: 'more' },
    lines: [{ account: holderAccount('external_in', 'TRON', 'TRX'), amount: -1n }, { account: custodialAccount('TRON', 'TRX', wallet.address), amount: 1n }],
  });
  clock.advance(3_600_000);
  await job().runPass();
  clock.advance(3_600_000);
  const racing = await Promise.all([job().runPass(), job().runPass(), job().runPass()]);
  expect(racing.flatMap((p) => p.reported).map((l) => l.judgement.unexplained)).toEqual([1n]);
}
