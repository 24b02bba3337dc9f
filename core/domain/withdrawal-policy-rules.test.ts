import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryWithdrawalPolicyRepository } from '../../adapters/memory/memory-withdrawal-policy-repository.js';
import { MemoryStore } from '../../adapters/memory/memory-store.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command } from './model/command.js';
import {
  DEFAULT_LIMITS_KEY, destinationRefusal, emptyWithdrawalPolicy, limitsOf, needsApproval, velocityCharge, velocityRefusal, velocityRelief, velocityTotals,
  VELOCITY_AMOUNT_WINDOW_MS, VELOCITY_COUNT_WINDOW_MS,
} from './withdrawal-policy-rules.js';

const T0 = 1_700_000_000_000;
const DELAY = 24 * 3_600_000;
const ADDRESSES = ['TA', 'TB', 'TC', 'TD'] as const;

describe('withdrawal policy rules (issue #26)', () => {
  it('destination, model-based: with allow_list_only only entries past their delay may be paid; removal is immediate; without it anything', async () => {
    type Op =
      | { kind: 'add'; address: string } | { kind: 'remove'; address: string } | { kind: 'only'; on: boolean }
      | { kind: 'wait'; ms: number } | { kind: 'pay'; address: string };
    const address = fc.constantFrom(...ADDRESSES);
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), address }),
      fc.record({ kind: fc.constant('remove' as const), address }),
      fc.record({ kind: fc.constant('only' as const), on: fc.boolean() }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(1, 60_000, DELAY - 1, DELAY) }),
      { arbitrary: fc.record({ kind: fc.constant('pay' as const), address }), weight: 3 },
    );
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
      const repo = new MemoryWithdrawalPolicyRepository(new MemoryStore());
      // The reference: when each listed address was added, and the switch.
      const added = new Map<string, number>();
      let only = false;
      let now = T0;
      for (const o of ops) {
        switch (o.kind) {
          case 'add': {
            const outcome = await repo.addAllowListEntry({ userId: 1, address: o.address, label: null, createdAt: now, activeFrom: now + DELAY }, 100);
            expect(outcome).toBe(added.has(o.address) ? 'exists' : 'created');
            if (!added.has(o.address)) added.set(o.address, now);
            break;
          }
          case 'remove':
            expect(await repo.removeAllowListEntry(1, o.address)).toBe(added.delete(o.address));
            break;
          case 'only':
            only = o.on;
            break;
          case 'wait':
            now += o.ms;
            break;
          case 'pay': {
            const entry = await repo.findAllowListEntry(1, o.address);
            const got = destinationRefusal({ allowListOnly: only }, entry, now);
            const since = added.get(o.address);
            const expected = !only ? null : since === undefined ? 'POLICY-DESTINATION-NOT-ALLOWED'
              : now - since < DELAY ? 'POLICY-DESTINATION-COOLING-OFF' : null;
            expect(got).toBe(expected);
          }
        }
      }
    }), { numRuns: runs(200) });
  });

  it('velocity, against a reference model: the refusal is the count first, then the amount, over the two rolling windows', () => {
    const command = fc.record({
      ageMs: fc.integer({ min: -1_000, max: VELOCITY_AMOUNT_WINDOW_MS + 1_000 }), amount: fc.bigInt({ min: 1n, max: 1_000n }),
      status: fc.constantFrom(...Object.values(COMMAND_STATUS)), type: fc.constantFrom(COMMAND_TYPE.WITHDRAWAL, COMMAND_TYPE.COLLECTION),
      symbol: fc.constantFrom('USDT', 'TRX'), userId: fc.constantFrom(1, 2),
    });
    fc.assert(fc.property(
      fc.array(command, { maxLength: 30 }), fc.bigInt({ min: 1n, max: 1_000n }),
      fc.option(fc.integer({ min: 0, max: 10 })), fc.option(fc.bigInt({ min: 0n, max: 5_000n })),
      (history, amount, maxCount1h, maxAmount24h) => {
        const at = T0 + VELOCITY_AMOUNT_WINDOW_MS;
        const commands = history.map((h, i): Command => ({
          commandNo: `C${i}`, userId: h.userId, type: h.type, status: h.status, address: `A${i}`, assetSymbol: h.symbol, lockedAmount: h.amount,
          params: {}, transaction: null, errorCode: null, lastError: null, createdAt: at - h.ageMs, startedAt: null, finishedAt: null,
          nextRunAt: at, lease: null, version: 1,
        }));
        const charge = { userId: 1, assetSymbol: 'USDT', amount, at, maxCount1h, maxAmount24h };
        // The reference, written from the rules' text: user 1's USDT withdrawals, neither REJECTED nor CANCELLED.
        const counted = history.filter((h) => h.userId === 1 && h.symbol === 'USDT' && h.type === COMMAND_TYPE.WITHDRAWAL
          && h.status !== COMMAND_STATUS.REJECTED && h.status !== COMMAND_STATUS.CANCELLED);
        const lastHour = counted.filter((h) => h.ageMs < VELOCITY_COUNT_WINDOW_MS).length;
        const lastDay = counted.filter((h) => h.ageMs < VELOCITY_AMOUNT_WINDOW_MS).reduce((sum, h) => sum + h.amount, 0n);
        const expected = maxCount1h !== null && lastHour >= maxCount1h ? 'POLICY-VELOCITY-COUNT-EXCEEDED'
          : maxAmount24h !== null && lastDay + amount > maxAmount24h ? 'POLICY-VELOCITY-AMOUNT-EXCEEDED' : null;
        expect(velocityRefusal(velocityTotals(commands, charge), charge)).toBe(expected);
      },
    ), { numRuns: runs(500) });
  });

  it('velocity relief: what is left now, and the first moment the refused withdrawal fits (never: it cannot) (issue #34)', () => {
    const command = fc.record({
      ageMs: fc.integer({ min: -1_000, max: VELOCITY_AMOUNT_WINDOW_MS + 1_000 }), amount: fc.bigInt({ min: 1n, max: 1_000n }),
      status: fc.constantFrom(...Object.values(COMMAND_STATUS)), symbol: fc.constantFrom('USDT', 'TRX'), userId: fc.constantFrom(1, 2),
    });
    fc.assert(fc.property(
      fc.array(command, { maxLength: 20 }), fc.bigInt({ min: 1n, max: 2_000n }),
      fc.option(fc.integer({ min: 0, max: 6 })), fc.option(fc.bigInt({ min: 0n, max: 5_000n })),
      (history, amount, maxCount1h, maxAmount24h) => {
        const at = T0 + VELOCITY_AMOUNT_WINDOW_MS;
        const commands = history.map((h, i): Command => ({
          commandNo: `C${i}`, userId: h.userId, type: COMMAND_TYPE.WITHDRAWAL, status: h.status, address: `A${i}`, assetSymbol: h.symbol,
          lockedAmount: h.amount, params: {}, transaction: null, errorCode: null, lastError: null, createdAt: at - h.ageMs, startedAt: null,
          finishedAt: null, nextRunAt: at, lease: null, version: 1,
        }));
        const charge = { userId: 1, assetSymbol: 'USDT', amount, at, maxCount1h, maxAmount24h };
        const relief = velocityRelief(commands, charge);
        const totals = velocityTotals(commands, charge);
        const refusedAt = (t: number) => velocityRefusal(velocityTotals(commands, { ...charge, at: t }), { ...charge, at: t });
        expect(relief.amountLeft).toBe(maxAmount24h === null ? null : (maxAmount24h > totals.amount24h ? maxAmount24h - totals.amount24h : 0n));
        expect(relief.countLeft).toBe(maxCount1h === null ? null : Math.max(0, maxCount1h - totals.count1h));
        if (relief.fitsAt === null) {
          // Never: only an amount above the limit by itself, or no withdrawal allowed at all.
          expect((maxAmount24h !== null && amount > maxAmount24h) || maxCount1h === 0).toBe(true);
          expect(refusedAt(at + 2 * VELOCITY_AMOUNT_WINDOW_MS)).not.toBeNull();
        } else {
          expect(relief.fitsAt).toBeGreaterThanOrEqual(at);
          expect(refusedAt(relief.fitsAt)).toBeNull();
          if (relief.fitsAt > at) expect(refusedAt(relief.fitsAt - 1)).not.toBeNull();
          else expect(refusedAt(at)).toBeNull();
        }
      },
    ), { numRuns: runs(1_000) });
  });

  it('approval threshold: strictly above it; an unlimited asset never; the default entry (*) covers an unlisted asset', () => {
    fc.assert(fc.property(fc.option(fc.bigInt({ min: 0n, max: 100n })), fc.bigInt({ min: 1n, max: 200n }), fc.boolean(), (threshold, amount, withDefault) => {
      const own = { maxAmount24h: null, maxCount1h: null, approvalThreshold: threshold };
      const fallback = { maxAmount24h: null, maxCount1h: null, approvalThreshold: 50n };
      const policy = { ...emptyWithdrawalPolicy(1, T0), limits: { USDT: own, ...(withDefault ? { [DEFAULT_LIMITS_KEY]: fallback } : {}) } };
      expect(needsApproval(limitsOf(policy, 'USDT'), amount)).toBe(threshold !== null && amount > threshold);
      expect(needsApproval(limitsOf(policy, 'TRX'), amount)).toBe(withDefault && amount > 50n);
      expect(limitsOf(policy, 'constructor')).toBe(withDefault ? fallback : null);
      const charge = velocityCharge(limitsOf(policy, 'USDT'), { userId: 1, assetSymbol: 'USDT', amount, at: T0 });
      expect(charge === null ? null : charge.approvalThreshold).toBe(threshold === null ? null : threshold);
      // A withdrawal recorded awaiting its approval is not judged against the threshold again.
      expect(velocityCharge(limitsOf(policy, 'USDT'), { userId: 1, assetSymbol: 'USDT', amount, at: T0 }, true)).toBeNull();
    }));
  });

  it('approval threshold with the rolling 24 h sum (issue #35 item 2): splitting never takes more than the threshold past approval in a day', () => {
    // Each step: wait, then ask to withdraw `amount` of USDT without an approval; the store's rule decides (velocityRefusal
    // over velocityTotals, as every UnitOfWork does). An accepted one is recorded unapproved; a refused one is recorded
    // awaiting its approval (or, denied later, REJECTED and so not counted).
    const step = fc.record({ waitMs: fc.constantFrom(0, 60_000, 3_600_000, VELOCITY_AMOUNT_WINDOW_MS - 1, VELOCITY_AMOUNT_WINDOW_MS), amount: fc.bigInt({ min: 1n, max: 60n }), denied: fc.boolean() });
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 100n }), fc.array(step, { maxLength: 25 }), (threshold, steps) => {
      const limits = { maxAmount24h: null, maxCount1h: null, approvalThreshold: threshold };
      const commands: Command[] = [];
      let at = T0;
      for (const [i, s] of steps.entries()) {
        at += s.waitMs;
        const charge = velocityCharge(limits, { userId: 1, assetSymbol: 'USDT', amount: s.amount, at })!;
        const refusal = velocityRefusal(velocityTotals(commands, charge), charge);
        // The reference: everything counted in the last 24 h plus this one.
        const day = commands.filter((c) => c.status !== COMMAND_STATUS.REJECTED && c.createdAt > at - VELOCITY_AMOUNT_WINDOW_MS)
          .reduce((sum, c) => sum + c.lockedAmount, 0n);
        expect(refusal).toBe(day + s.amount > threshold ? 'POLICY-APPROVAL-REQUIRED' : null);
        const approved = refusal !== null;
        commands.push({
          commandNo: `C${i}`, userId: 1, type: COMMAND_TYPE.WITHDRAWAL, status: approved && s.denied ? COMMAND_STATUS.REJECTED : COMMAND_STATUS.SUCCESS,
          address: 'A', assetSymbol: 'USDT', lockedAmount: s.amount, params: { approved: String(approved) }, transaction: null, errorCode: null,
          lastError: null, createdAt: at, startedAt: null, finishedAt: null, nextRunAt: at, lease: null, version: 1,
        });
        // The invariant: what left without any approval in any 24 h window ending now is at most the threshold.
        const unapproved = commands.filter((c) => c.params['approved'] === 'false' && c.createdAt > at - VELOCITY_AMOUNT_WINDOW_MS)
          .reduce((sum, c) => sum + c.lockedAmount, 0n);
        expect(unapproved <= threshold).toBe(true);
      }
    }), { numRuns: runs(500) });
  });
});
