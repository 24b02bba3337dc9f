import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { aCashierToken, aWallet, T0 } from '../../contracts-tests/support/fixtures.js';
import { emptyDeveloperConfig } from '../../core/application/developer-config.js';
import { DEFAULT_CORE_SETTINGS } from '../../core/application/deps.js';
import { PaymentWatcher, type PaymentWatcherDeps } from '../../core/application/worker/payment-watcher.js';
import { createAssetRegistry } from '../../core/domain/assets.js';
import type { Deposit } from '../../core/domain/model/deposit.js';
import { ManualClock, MemoryAddressLock } from '../memory/index.js';
import { createPostgresAdapters } from './create-postgres-adapters.js';
import { usePgTestStore } from './testing/pg-test-store.js';

const USDT_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

/**
 * "Paid means forwarded" exactly once on PostgreSQL (issue #25): 1-3 workers judge the same request at once, each with
 * its own address lock (as separate processes without a shared lock would), so only the store's versioned replace of
 * the request and the command lock constraint stand between them and a second event or a second collection.
 */
describeWithPostgres('payment watcher on PostgreSQL', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'payment-watcher');

  it('1-3 workers with separate locks, payments in any split: one payment.paid and one collection once paid, none before', async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 3 }),
      fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 3 }),
      async (workers, parts) => {
        await open().clear();
        const clock = new ManualClock(T0);
        const stores = createPostgresAdapters({ connection: open().connection, clock });
        const main = aWallet({ id: 1, addressType: 1 });
        const sub = aWallet({ id: 2 });
        await stores.wallets.insert(main, { maxSubAddresses: 10 });
        await stores.wallets.insert(sub, { maxSubAddresses: 10 });
        await stores.developerConfigs.save({ ...emptyDeveloperConfig(1), optInEventTypes: ['payment.paid'], version: 1 });
        await stores.cashierTokens.insert(aCashierToken({
          address: sub.address, walletAddressId: sub.id, createdAt: T0,
          payment: {
            assetSymbol: 'USDT', amount: 25n, reference: 'order-1', description: null, deadline: T0 + 30 * 60_000,
            status: 'awaiting', received: 0n, collect: null, watched: true,
          },
        }), T0);
        const deps = (): PaymentWatcherDeps => ({
          ...stores, addressLock: new MemoryAddressLock({ clock }), settings: DEFAULT_CORE_SETTINGS,
          assets: createAssetRegistry({ usdtContract: USDT_CONTRACT }),
        });
        let total = 0n;
        for (const [i, part] of parts.entries()) {
          total += BigInt(part);
          const txid = String(i + 1).padStart(64, 'a');
          const deposit: Deposit = {
            depositId: `dep-${i}`, transferId: `${txid}:log:0`, userId: 1, address: sub.address, networkCode: 'TRON',
            assetSymbol: 'USDT', amount: BigInt(part), fromAddress: main.address, txid, blockNumber: 10 + i,
            status: 'confirmed', detectedAt: T0 + i + 1, confirmedAt: T0 + i + 2, version: 1,
          };
          await stores.deposits.insert(deposit);
          await stores.balances.put({
            address: sub.address, refreshSource: 1, updatedAt: clock.now(),
            items: [{ symbol: 'TRX', available: 0n, updatedAt: clock.now() }, { symbol: 'USDT', available: total, updatedAt: clock.now() }],
          });
          await Promise.all(Array.from({ length: workers }, () => new PaymentWatcher(deps()).pass()));
        }
        // One more pass each: whatever a raced or busy worker left is settled now.
        await Promise.all(Array.from({ length: workers }, () => new PaymentWatcher(deps()).pass()));
        const commands = (await stores.commands.listByUser(1, {}, { offset: 0, limit: 10 })).items;
        const paid = (await stores.outbox.listUndispatched(50)).filter((e) => e.eventType === 'payment.paid');
        expect({ commands: commands.length, paid: paid.length }).toEqual(total >= 25n ? { commands: 1, paid: 1 } : { commands: 0, paid: 0 });
        const stored = (await stores.cashierTokens.findByTokenNo('CT0001'))!.payment!;
        expect(stored.collect).toBe(total >= 25n ? 'started' : null);
      },
    ), { numRuns: 15 });
  }, 180_000);
});
