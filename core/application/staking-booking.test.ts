import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../adapters/memory/memory-ledger.js';
import { aCommand, addressOf, T0 } from '../../contracts-tests/support/fixtures.js';
import { sumsPerAsset } from '../domain/ledger.js';
import { COMMAND_STATUS, COMMAND_TYPE, type CommandType } from '../domain/model/command.js';
import { STAKING_CAUSE, STAKING_REWARD_CAUSE, stakingBooking, type SettledReceipt } from './ledger-bookings.js';

const ADDRESS = addressOf(1);
const sun = fc.bigInt({ min: 0n, max: 5_000_000n });
const opArb = fc.record({
  type: fc.constantFrom<CommandType>(COMMAND_TYPE.STAKE, COMMAND_TYPE.UNSTAKE, COMMAND_TYPE.WITHDRAW_UNSTAKED, COMMAND_TYPE.VOTE, COMMAND_TYPE.WITHDRAW_REWARD),
  status: fc.constantFrom(COMMAND_STATUS.SUCCESS, COMMAND_STATUS.FAILED),
  // A share (per mille) of what the chain lets the command move: the stake of the liquid TRX, the unstake of the stake,
  // the withdrawal of the unstaking TRX past its wait.
  share: fc.integer({ min: 1, max: 1_000 }), expiredShare: fc.integer({ min: 0, max: 1_000 }), reward: fc.bigInt({ min: 0n, max: 10n ** 9n }),
  receipt: fc.constantFrom('confirmed', 'failed', 'none'), net: sun, energy: sun, rest: sun,
});

/**
 * Issue #36: staking in the books. Over random sequences of stakes, unstakes, withdrawals of unstaked TRX, votes and
 * reward withdrawals (SUCCESS or FAILED; receipts confirmed, failed or never included), each booked through the memory
 * ledger: every transaction sums to zero per asset; the liquid, staked and unstaking accounts and the fee and outside
 * accounts follow a model of the chain to the SUN (each entry's balance_after is its account's running balance); each
 * command is booked exactly once by its cause, however often it is booked again.
 */
describe('stakingBooking', () => {
  it('sums to zero, follows the chain\'s liquid, staked and unstaking TRX, and books each command once', async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
      const ledger = new MemoryLedger();
      const model = { liquid: 1_000n * 1_000_000n, staked: 0n, unstaking: 0n, bandwidth: 0n, burnt: 0n, received: 1_000n * 1_000_000n };
      await ledger.post({ transactionId: 'open', userId: 1, occurredAt: T0, reverses: null, cause: { type: 'deposit', id: 'open' },
        lines: [{ account: { kind: 'external_in', networkCode: 'TRON', assetSymbol: 'TRX', address: null }, amount: -model.liquid },
          { account: { kind: 'custodial', networkCode: 'TRON', assetSymbol: 'TRX', address: ADDRESS }, amount: model.liquid }] });
      for (const [i, op] of ops.entries()) {
        const fee = op.net + op.energy + op.rest;
        // The chain never charges more than the address holds: such a transaction is refused, never included (the
        // model once let the liquid TRX go below zero, and a stake of a negative amount followed).
        if (op.receipt !== 'none' && fee > model.liquid) continue;
        const txid = (i + 1).toString(16).padStart(64, '0');
        const expired = op.type === COMMAND_TYPE.UNSTAKE || op.type === COMMAND_TYPE.WITHDRAW_UNSTAKED ? model.unstaking * BigInt(op.expiredShare) / 1_000n : 0n;
        const amount = op.type === COMMAND_TYPE.STAKE ? (model.liquid - fee) * BigInt(op.share) / 1_000n
          : op.type === COMMAND_TYPE.UNSTAKE ? model.staked * BigInt(op.share) / 1_000n : 0n;
        const receipt: SettledReceipt | undefined = op.receipt === 'none' ? undefined : op.receipt === 'confirmed'
          ? { state: 'confirmed', blockNumber: 1, confirmations: 1, solidified: true, feeSun: fee, energyUsed: 0, netFeeSun: op.net, energyFeeSun: op.energy,
            ...(expired > 0n ? { withdrawExpireAmountSun: expired } : {}), ...(op.type === COMMAND_TYPE.WITHDRAW_REWARD && op.reward > 0n ? { withdrawAmountSun: op.reward } : {}) }
          : { state: 'failed', blockNumber: 1, reason: 'REVERT', feeSun: fee, netFeeSun: op.net, energyFeeSun: op.energy };
        const command = aCommand({
          commandNo: `C${i}`, type: op.type, status: op.status, finishedAt: T0 + i + 1, address: ADDRESS, assetSymbol: 'TRX',
          params: op.type === COMMAND_TYPE.STAKE || op.type === COMMAND_TYPE.UNSTAKE ? { resource: 'ENERGY', amount: amount.toString() } : {},
          transaction: { txid, signedJson: '{}', expiresAt: T0, broadcastAt: T0 },
        });
        // The chain, as the model sees it.
        if (receipt !== undefined) {
          model.liquid -= fee;
          model.bandwidth += op.net;
          model.burnt += op.energy + op.rest;
          if (op.status === COMMAND_STATUS.SUCCESS && receipt.state === 'confirmed') {
            if (op.type === COMMAND_TYPE.STAKE) { model.liquid -= amount; model.staked += amount; }
            if (op.type === COMMAND_TYPE.UNSTAKE) { model.staked -= amount; model.unstaking += amount; }
            if (op.type === COMMAND_TYPE.UNSTAKE || op.type === COMMAND_TYPE.WITHDRAW_UNSTAKED) { model.unstaking -= expired; model.liquid += expired; }
            if (op.type === COMMAND_TYPE.WITHDRAW_REWARD) { model.liquid += op.reward; model.received += op.reward; }
          }
        }
        const tx = stakingBooking(command, receipt, { networkCode: 'TRON' }, `LT${i}`);
        if (tx === null) {
          expect(receipt === undefined || fee === 0n).toBe(true);
          continue;
        }
        for (const [asset, sum] of sumsPerAsset(tx.lines)) expect(sum, asset).toBe(0n);
        expect(tx.lines.every((l) => l.amount !== 0n)).toBe(true);
        expect(tx.cause).toEqual({ type: op.type === COMMAND_TYPE.WITHDRAW_REWARD ? STAKING_REWARD_CAUSE : STAKING_CAUSE, id: `C${i}`, txid });
        expect(tx.occurredAt).toBe(T0 + i + 1);
        const first = await ledger.post(tx);
        expect(first.created).toBe(true);
        // Booked again (a redo, a second worker): the cause is already booked, nothing is written.
        const again = await ledger.post({ ...stakingBooking(command, receipt, { networkCode: 'TRON' }, `LT${i}-again`)! });
        expect(again.created).toBe(false);
        expect(again.entries.map((e) => e.transactionId)).toEqual(first.entries.map(() => `LT${i}`));
      }
      const balances = await ledger.balancesAt(1, T0 + ops.length + 1);
      const held = (kind: string) => balances.find((b) => b.account.kind === kind)?.balance ?? 0n;
      expect({ liquid: held('custodial'), staked: held('staked'), unstaking: held('unstaking'), bandwidth: held('fee_bandwidth'), burnt: held('fee_trx_burned'), received: -held('external_in') })
        .toEqual(model);
      // Each entry keeps its account's balance after it.
      const running = new Map<string, bigint>();
      for (const e of (await ledger.entries(1, {}, { offset: 0, limit: 10_000 })).items) {
        const key = `${e.account.kind}|${e.account.address}`;
        running.set(key, (running.get(key) ?? 0n) + e.amount);
        expect(e.balanceAfter).toBe(running.get(key));
      }
      const causes = (await ledger.entries(1, {}, { offset: 0, limit: 10_000 })).items.map((e) => `${e.cause.type}|${e.cause.id}|${e.transactionId}`);
      expect(new Set(causes.map((c) => c.split('|').slice(0, 2).join('|'))).size).toBe(new Set(causes).size);
    }), { numRuns: runs(300) });
  });

  it('only a finished staking command can be booked; a stake or unstake address lines carry the address', () => {
    for (const c of [aCommand({ type: COMMAND_TYPE.STAKE, status: COMMAND_STATUS.RUNNING }), aCommand({ type: COMMAND_TYPE.WITHDRAWAL, status: COMMAND_STATUS.SUCCESS, finishedAt: T0 })]) {
      expect(() => stakingBooking(c, undefined, { networkCode: 'TRON' }, 'LT1')).toThrow(RangeError);
    }
    const stake = aCommand({ type: COMMAND_TYPE.STAKE, status: COMMAND_STATUS.SUCCESS, finishedAt: T0, address: ADDRESS, params: { amount: '7' },
      transaction: { txid: 'ab'.repeat(32), signedJson: '{}', expiresAt: T0, broadcastAt: T0 } });
    const tx = stakingBooking(stake, { state: 'confirmed', blockNumber: 1, confirmations: 1, solidified: true, feeSun: 0n, energyUsed: 0 }, { networkCode: 'TRON' }, 'LT1')!;
    expect(tx.lines).toEqual([
      { account: { kind: 'custodial', networkCode: 'TRON', assetSymbol: 'TRX', address: ADDRESS }, amount: -7n },
      { account: { kind: 'staked', networkCode: 'TRON', assetSymbol: 'TRX', address: ADDRESS }, amount: 7n },
    ]);
  });
});
