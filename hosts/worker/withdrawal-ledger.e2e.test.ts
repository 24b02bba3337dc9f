/**
 * Withdrawals in the books (issue #36), on the devnet through real tronweb: a USDT withdrawal from the main address
 * to an outside address, a TRX withdrawal from the main address to one of the user's sub-addresses, and a USDT refund
 * from a sub-address that holds no TRX (its fees funded by the main address, issue #34) each book one transaction keyed
 * by the command, even when two workers' catch-up passes race; the entries sum to zero per asset, and the custodial
 * balances after them equal the chain's balances of every address, TRX and USDT, to the SUN. A funded refund whose
 * transfer reverts (the token blacklists the sub-address after its energy was delegated) books no amount, only the
 * funding, its fees and what the reverted transfer paid (nothing here: its energy was delegated), and the books still
 * equal the chain.
 */
import { describe, expect, it } from 'vitest';
import { CollectionBookingCatchUp } from '../../core/application/collection-ledger-booker.js';
import { WITHDRAWAL_CAUSE } from '../../core/application/ledger-bookings.js';
import { WithdrawalLedgerBooker } from '../../core/application/withdrawal-ledger-booker.js';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { custodialAccount, holderAccount, sumsPerAsset } from '../../core/domain/ledger.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { buildWorkerWorld, TRX, type WorkerWorld } from './worker-test-fixture.js';
import { driveUntil } from './worker-drive.js';

async function ended(w: WorkerWorld, commandNo: string): Promise<boolean> {
  const c = await w.stores.commands.get(commandNo);
  return c !== null && c.status !== COMMAND_STATUS.PENDING && c.status !== COMMAND_STATUS.RUNNING;
}

describe('withdrawals in the books', () => {
  it('books each withdrawal once, sums to zero per asset, and leaves every custodial balance equal to the chain\'s', async () => {
    const w = await buildWorkerWorld({ solidifyLag: 1, seed: 'ledger-withdrawals' });
    try {
      const sub = await w.addSub();
      const own = await w.addSub();
      const outside = (await w.gateway.createAccount()).address;
      w.devnet.fundToken(sub, 25_000_000n);
      w.devnet.fundToken(w.main.address, 40_000_000n);
      w.devnet.mine(1);
      const addresses = [w.main.address, sub, own];
      const chain = async () => {
        const out: Record<string, bigint> = {};
        for (const a of addresses) {
          out[`${a} TRX`] = await w.gateway.getTrxBalance(a);
          out[`${a} USDT`] = await w.gateway.getTokenBalance(a, w.devnet.usdtAddress);
        }
        return out;
      };
      // What the addresses hold before, booked as the scanner books deposits.
      let n = 0;
      for (const [key, amount] of Object.entries(await chain())) {
        if (amount === 0n) continue;
        const [address, asset] = key.split(' ') as [string, string];
        n += 1;
        await w.stores.ledger.post({ transactionId: `open-${n}`, userId: w.userId, occurredAt: w.clock.now(), reverses: null, cause: { type: 'deposit', id: `open-${n}` },
          lines: [{ account: holderAccount('external_in', 'TRON', asset), amount: -amount }, { account: custodialAccount('TRON', asset, address), amount }] });
      }
      const executor = new CommandExecutor(
        { ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(w.gateway) } },
        { pollMs: 1_000 }, { funding: { confirmations: 1 } },
      );
      const booker = new WithdrawalLedgerBooker({ commands: w.stores.commands, wallets: w.stores.wallets, chain: w.gateway, ledger: w.stores.ledger, ids: w.stores.ids });

      const payout = await w.withdraw(w.main.address, outside, 'USDT', 12_000_000n);
      const refund = await w.withdraw(sub, outside, 'USDT', 10_000_000n);
      expect(await booker.book(payout.commandNo)).toBe('not-finished');
      await driveUntil(w, [executor], async () => await ended(w, payout.commandNo) && await ended(w, refund.commandNo), { maxRounds: 80 });
      const internal = await w.withdraw(w.main.address, own, 'TRX', 3n * TRX);
      await driveUntil(w, [executor], () => ended(w, internal.commandNo), { maxRounds: 40 });
      w.devnet.mine(2);
      const done = await Promise.all([payout, refund, internal].map(async (c) => (await w.stores.commands.get(c.commandNo))!));
      expect(done.map((c) => [c.status, c.lastError])).toEqual([[COMMAND_STATUS.SUCCESS, null], [COMMAND_STATUS.SUCCESS, null], [COMMAND_STATUS.SUCCESS, null]]);
      expect(done[1]!.funding?.steps.length ?? 0).toBeGreaterThan(0);

      // The executor finished without booking (as a worker dying right after its SUCCESS write): two workers' catch-up
      // passes at once, then a redo: one booking each.
      const catchUp = () => new CollectionBookingCatchUp(booker, w.clock, { lookbackMs: 3_600_000, everyMs: 60_000, limit: 10 });
      const outcomes = await Promise.all([catchUp().maybeRun(), catchUp().maybeRun()]);
      expect(outcomes.reduce((a, b) => a + b, 0)).toBe(3);
      for (const c of done) expect(await booker.book(c.commandNo)).toBe('already-booked');
      expect(await catchUp().maybeRun()).toBe(0);
      const entries = (await w.stores.ledger.entries(w.userId, { causeType: WITHDRAWAL_CAUSE }, { offset: 0, limit: 1_000 })).items;
      expect(new Set(entries.map((e) => e.transactionId)).size).toBe(3);
      expect(new Set(entries.map((e) => `${e.cause.id} ${e.cause.txid}`))).toEqual(new Set(done.map((c) => `${c.commandNo} ${c.transaction!.txid}`)));
      for (const [asset, sum] of sumsPerAsset(entries)) expect(sum, asset).toBe(0n);
      const sent = (asset: string) => entries.filter((e) => e.account.kind === 'external_out' && e.account.assetSymbol === asset).reduce((s, e) => s + e.amount, 0n);
      expect({ usdt: sent('USDT'), trx: sent('TRX') }).toEqual({ usdt: 22_000_000n, trx: 0n });

      // The books say what the chain says, per address and asset.
      const balances = await w.stores.ledger.balancesAt(w.userId, w.clock.now() + 3_600_000);
      const booked: Record<string, bigint> = {};
      for (const a of addresses) {
        for (const asset of ['TRX', 'USDT']) {
          booked[`${a} ${asset}`] = balances.find((b) => b.account.kind === 'custodial' && b.account.address === a && b.account.assetSymbol === asset)?.balance ?? 0n;
        }
      }
      expect(booked).toEqual(await chain());
    } finally {
      await w.close();
    }
  }, 120_000);

  it('a funded refund that fails after its funding went out books only what the chain shows paid: the books still equal the chain', async () => {
    const w = await buildWorkerWorld({ solidifyLag: 1, seed: 'ledger-failed-refund' });
    try {
      const sub = await w.addSub();
      const outside = (await w.gateway.createAccount()).address;
      w.devnet.fundToken(sub, 25_000_000n);
      w.devnet.mine(1);
      const chain = async () => ({
        mainTrx: await w.gateway.getTrxBalance(w.main.address), subTrx: await w.gateway.getTrxBalance(sub),
        mainUsdt: await w.gateway.getTokenBalance(w.main.address, w.devnet.usdtAddress), subUsdt: await w.gateway.getTokenBalance(sub, w.devnet.usdtAddress),
      });
      const opening = await chain();
      let n = 0;
      for (const [address, asset, amount] of [[w.main.address, 'TRX', opening.mainTrx], [sub, 'USDT', opening.subUsdt]] as const) {
        n += 1;
        await w.stores.ledger.post({ transactionId: `open-${n}`, userId: w.userId, occurredAt: w.clock.now(), reverses: null, cause: { type: 'deposit', id: `open-${n}` },
          lines: [{ account: holderAccount('external_in', 'TRON', asset), amount: -amount }, { account: custodialAccount('TRON', asset, address), amount }] });
      }
      const executor = new CommandExecutor(
        { ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, energy: { self: new SelfDelegationEnergyProvider(w.gateway) } },
        { pollMs: 1_000 }, { funding: { confirmations: 1 } },
      );
      const booker = new WithdrawalLedgerBooker({ commands: w.stores.commands, wallets: w.stores.wallets, chain: w.gateway, ledger: w.stores.ledger, ids: w.stores.ids });
      const refund = await w.withdraw(sub, outside, 'USDT', 10_000_000n);
      // Once the energy is delegated, the token blacklists the sub-address: its transfer can only fail.
      await driveUntil(w, [executor], async () => ((await w.stores.commands.get(refund.commandNo))!.funding?.energyPath ?? null) === 'self', { maxRounds: 30 });
      w.devnet.setUsdtBlacklisted(sub);
      await driveUntil(w, [executor], () => ended(w, refund.commandNo), { maxRounds: 80 });
      w.devnet.mine(2);
      const done = (await w.stores.commands.get(refund.commandNo))!;
      expect(done.status).toBe(COMMAND_STATUS.FAILED);
      const outcomes = await Promise.all([booker.catchUp(0, 10), booker.catchUp(0, 10)]);
      expect(outcomes.reduce((a, b) => a + b.booked, 0)).toBe(1);
      const entries = (await w.stores.ledger.entries(w.userId, { causeType: WITHDRAWAL_CAUSE }, { offset: 0, limit: 1_000 })).items;
      expect(new Set(entries.map((e) => e.cause.id))).toEqual(new Set([refund.commandNo]));
      for (const [asset, sum] of sumsPerAsset(entries)) expect(sum, asset).toBe(0n);
      expect(entries.some((e) => e.account.kind === 'external_out')).toBe(false);
      const balances = await w.stores.ledger.balancesAt(w.userId, w.clock.now() + 3_600_000);
      const booked = (address: string, asset: string) => balances.find((b) => b.account.kind === 'custodial' && b.account.address === address
        && b.account.assetSymbol === asset)?.balance ?? 0n;
      expect({ mainTrx: booked(w.main.address, 'TRX'), subTrx: booked(sub, 'TRX'), mainUsdt: booked(w.main.address, 'USDT'), subUsdt: booked(sub, 'USDT') })
        .toEqual(await chain());
    } finally {
      await w.close();
    }
  }, 120_000);
});
