import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEPOSIT_STATUSES, type Deposit } from '../../core/domain/model/deposit.js';
import { fromStoredDeposit, toStoredDeposit } from './deposit-record.js';
import { address, hex64, id, money, ms, optMs, symbol, version } from './testing/record-arbitraries.js';

// The deposit codec, shared by the durable stores; the same checks as record-codecs.test.ts makes of the others.
const deposit: fc.Arbitrary<Deposit> = fc.record({
  depositId: fc.uuid(), transferId: fc.oneof(hex64, hex64.map((t) => `${t}:log:3`), hex64.map((t) => `${t}:internal:0`)), userId: id,
  address, networkCode: fc.constant('TRON' as const), assetSymbol: symbol, amount: money, fromAddress: address, txid: hex64,
  blockNumber: fc.nat(), status: fc.constantFrom(...DEPOSIT_STATUSES), detectedAt: ms, confirmedAt: optMs, version,
});

describe('deposit record codec', () => {
  it('domain -> record -> JSON -> domain is the identity, the amount is a decimal string, and a missing confirmedAt reads as null', () => {
    fc.assert(fc.property(deposit, (value) => {
      const record = toStoredDeposit(value);
      const json = JSON.parse(JSON.stringify(record)) as typeof record;
      expect(json).toStrictEqual(record);
      expect(record.amount).toBe(value.amount.toString());
      expect(fromStoredDeposit(json)).toEqual(value);
      const { confirmedAt: _omitted, ...rest } = json;
      expect(fromStoredDeposit(rest as typeof record)).toEqual({ ...value, confirmedAt: null });
    }), { numRuns: runs(80) });
  });

  it('a malformed stored amount is a store fault, not a zero', () => {
    const record = { ...toStoredDeposit(fc.sample(deposit, 1)[0]!), amount: '1e6' };
    expect(() => fromStoredDeposit(record)).toThrow(/deposit amount/);
  });
});
