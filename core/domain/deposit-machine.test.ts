import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEPOSIT_STATUSES, type Deposit, type DepositStatus } from './model/deposit.js';
import { advancedDeposit, DEPOSIT_TRANSITIONS, depositTransition, INITIAL_DEPOSIT_STATUS, type DepositEvent } from './deposit-machine.js';

/**
 * The deposit rules, copied by hand (issue #24 and the decision in deposit-machine.ts): [from, event, to].
 * confirmed -> reverted is deliberately absent: confirmation is at the solidified block, which is never reorganised.
 */
const SPEC_TABLE: readonly [DepositStatus, DepositEvent, DepositStatus][] = [
  ['pending', 'solidified', 'confirmed'],
  ['pending', 'dropped', 'reverted'],
  ['reverted', 'included', 'pending'],
  ['pending', 'included', 'pending'],
];

const EVENTS: DepositEvent[] = ['solidified', 'dropped', 'included'];

function specTarget(from: DepositStatus, event: DepositEvent): DepositStatus | null {
  return SPEC_TABLE.find(([f, e]) => f === from && e === event)?.[2] ?? null;
}

const aDeposit = (overrides: Partial<Deposit> = {}): Deposit => ({
  depositId: 'd1', transferId: 'ab', userId: 1, address: 'T1', networkCode: 'TRON', assetSymbol: 'TRX', amount: 5n,
  fromAddress: 'T2', txid: 'ab', blockNumber: 10, status: 'pending', detectedAt: 1_000, confirmedAt: null, version: 1, ...overrides,
});

describe('deposit state machine', () => {
  const cases = DEPOSIT_STATUSES.flatMap((from) => EVENTS.map((event) => [from, event] as const));
  it.each(cases)('%s on %s matches the hand-copied table', (from, event) => {
    expect(depositTransition(from, event)).toBe(specTarget(from, event));
  });

  it('has one row per rule and starts pending', () => {
    expect(DEPOSIT_TRANSITIONS).toHaveLength(SPEC_TABLE.length);
    expect(INITIAL_DEPOSIT_STATUS).toBe('pending');
  });

  it('never leaves confirmed', () => {
    for (const event of EVENTS) expect(depositTransition('confirmed', event)).toBeNull();
  });

  it('advancedDeposit bumps the version, stamps confirmedAt once, moves the block on re-inclusion, and refuses what the table refuses', () => {
    const confirmed = advancedDeposit(aDeposit(), 'solidified', { now: 2_000 })!;
    expect(confirmed).toMatchObject({ status: 'confirmed', confirmedAt: 2_000, version: 2, blockNumber: 10 });
    expect(advancedDeposit(confirmed, 'dropped', { now: 3_000 })).toBeNull();
    const reverted = advancedDeposit(aDeposit(), 'dropped', { now: 2_000 })!;
    expect(reverted).toMatchObject({ status: 'reverted', confirmedAt: null, version: 2 });
    expect(advancedDeposit(reverted, 'included', { now: 3_000, blockNumber: 12 })).toMatchObject({ status: 'pending', blockNumber: 12, version: 3 });
    // Seen again where it is: nothing to write. Seen in another block (a crashed pass wrote the old one): it moves.
    expect(advancedDeposit(aDeposit(), 'included', { now: 3_000, blockNumber: 10 })).toBeNull();
    expect(advancedDeposit(aDeposit(), 'included', { now: 3_000, blockNumber: 11 })).toMatchObject({ status: 'pending', blockNumber: 11, version: 2 });
  });

  it('model-based: random events reach only listed states, and confirmed is final', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...EVENTS), { maxLength: 30 }), (events) => {
      let deposit = aDeposit();
      let confirmedOnce = false;
      for (const [i, event] of events.entries()) {
        const next = advancedDeposit(deposit, event, { now: 2_000 + i, blockNumber: 20 + i });
        expect(next?.status ?? null).toBe(specTarget(deposit.status, event));
        if (next !== null && next.status === deposit.status) expect(next.blockNumber).not.toBe(deposit.blockNumber);
        if (next === null) continue;
        expect(next.version).toBe(deposit.version + 1);
        deposit = next;
        if (confirmedOnce) expect(deposit.status).toBe('confirmed');
        confirmedOnce ||= deposit.status === 'confirmed';
        expect(deposit.confirmedAt !== null).toBe(deposit.status === 'confirmed');
      }
    }));
  });
});
