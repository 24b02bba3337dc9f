import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InfrastructureError } from '../../core/domain/errors.js';
import {
  fromStoredAccount, fromStoredApiToken, fromStoredSession, fromStoredSubscription, toStoredAccount, toStoredApiToken,
  toStoredSession, toStoredSubscription,
} from './account-record.js';
import { fromStoredCashierToken, toStoredCashierToken } from './cashier-token-record.js';
import { fromStoredCollectionTask, toStoredCollectionTask } from './collection-task-record.js';
import { fromStoredCommand, toStoredCommand } from './command-record.js';
import { fromStoredAllowListEntry, fromStoredWithdrawalPolicy, toStoredAllowListEntry, toStoredWithdrawalPolicy } from './withdrawal-policy-record.js';
import { fromStoredIdempotency, toStoredIdempotency } from './idempotency-record.js';
import { decodeMoney, encodeMoney } from './record-support.js';
import { fromStoredScanCheckpoint, toStoredScanCheckpoint } from './scan-checkpoint-record.js';
import { fromStoredBalance, fromStoredWallet, toStoredBalance, toStoredWallet } from './wallet-record.js';
import {
  fromStoredDeveloperConfig, fromStoredWebhookDelivery, fromStoredWebhookEvent, toStoredDeveloperConfig,
  toStoredWebhookDelivery, toStoredWebhookEvent,
} from './webhook-record.js';
import {
  account, allowListEntry, apiToken, balance, cashierToken, command, delivery, developerConfig, event, money, ms, optMs, session, subscription, task, wallet,
  withdrawalPolicy,
} from './testing/record-arbitraries.js';

// The codecs every durable store shares. A record must hold JSON values only (no bigint, Date, undefined or class
// instance), so that each store can keep it as it likes; here it travels as JSON text, the plainest store of all.
// Each store's own test adds what its encoding does (MongoDB: BSON and `_id`).

/** Parses what JSON.stringify wrote: the record as the plainest store would give it back. */
function throughJson<R>(record: R): R {
  return JSON.parse(JSON.stringify(record)) as R;
}

/** Drops top-level nulls: a field written as null and a field never written must read the same. */
function withoutNulls<R extends object>(record: R): R {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null)) as R;
}

function roundTrips<T, R extends object>(name: string, arb: fc.Arbitrary<T>, to: (value: T) => R, from: (record: R) => T): void {
  it(`${name}: domain -> record -> JSON -> domain is the identity, the record is JSON, and missing equals null`, () => {
    fc.assert(fc.property(arb, (value) => {
      const record = to(value);
      // Strict: a Date, an undefined field or a class instance would not come back from JSON as it went in.
      expect(throughJson(record)).toStrictEqual(record);
      expect(from(throughJson(record))).toEqual(value);
      expect(from(throughJson(withoutNulls(record)))).toEqual(value);
    }), { numRuns: runs(60) });
  }, 20_000);
}

describe('record codecs (shared by the durable stores)', () => {
  roundTrips('account', account, toStoredAccount, fromStoredAccount);
  roundTrips('session', session, toStoredSession, fromStoredSession);
  roundTrips('subscription', subscription, toStoredSubscription, fromStoredSubscription);
  roundTrips('api token', apiToken, toStoredApiToken, fromStoredApiToken);
  roundTrips('wallet address', wallet, toStoredWallet, fromStoredWallet);
  roundTrips('balance snapshot', balance, toStoredBalance, fromStoredBalance);
  roundTrips('command', command, toStoredCommand, fromStoredCommand);
  roundTrips('withdrawal policy', withdrawalPolicy, toStoredWithdrawalPolicy, fromStoredWithdrawalPolicy);
  roundTrips('allow-list entry', allowListEntry, toStoredAllowListEntry, fromStoredAllowListEntry);
  roundTrips('collection task', task, toStoredCollectionTask, fromStoredCollectionTask);
  roundTrips('cashier token', cashierToken, toStoredCashierToken, fromStoredCashierToken);
  roundTrips('developer config', developerConfig, toStoredDeveloperConfig, fromStoredDeveloperConfig);
  roundTrips('webhook event', event, toStoredWebhookEvent, fromStoredWebhookEvent);
  roundTrips('webhook delivery', delivery, toStoredWebhookDelivery, fromStoredWebhookDelivery);

  it('idempotency record: the round trip keeps epoch ms and an absent lease stays absent', () => {
    fc.assert(fc.property(ms, fc.integer({ min: 1, max: 2 * 86_400_000 }), optMs, (createdAt, windowMs, lease) => {
      const value = {
        scope: 's', key: 'k', requestHash: 'h', state: 'in-progress' as const, response: null, createdAt, expiresAt: createdAt + windowMs,
        ...(lease === null ? {} : { leaseExpiresAt: lease }),
      };
      const record = toStoredIdempotency(value);
      expect(throughJson(record)).toStrictEqual(record);
      expect(fromStoredIdempotency(throughJson(record))).toEqual(value);
    }));
  });

  it('stores every amount as a decimal integer string', () => {
    fc.assert(fc.property(command, task, balance, developerConfig, (c, t, b, d) => {
      expect(toStoredCommand(c).lockedAmount).toBe(c.lockedAmount.toString());
      expect(toStoredCollectionTask(t).sweptAmount).toBe(t.sweptAmount === null ? null : t.sweptAmount.toString());
      expect(toStoredBalance(b).items.map((i) => i.available)).toEqual(b.items.map((i) => i.available.toString()));
      for (const { symbol: s, amount } of toStoredDeveloperConfig(d).minCollectAmounts) expect(amount).toBe(d.minCollectAmounts[s]!.toString());
    }));
  });

  it('keeps command params and webhook payload keys out of field names', () => {
    const record = toStoredCommand({ ...fc.sample(command, { numRuns: 1, seed: 1 })[0]!, params: { '$where': 'x', 'a.b': 'y' } });
    expect(record.params).toEqual([{ name: '$where', value: 'x' }, { name: 'a.b', value: 'y' }]);
    const eventRecord = toStoredWebhookEvent({ ...fc.sample(event, { numRuns: 1, seed: 1 })[0]!, payload: { '$set': 1, 'a.b': [2] } });
    expect(Object.keys(eventRecord)).not.toContain('payload');
    expect(JSON.parse(eventRecord.payloadJson)).toEqual({ '$set': 1, 'a.b': [2] });
  });

  it('decodeMoney refuses anything but an integer string: a stored double or a malformed value is a store fault', () => {
    fc.assert(fc.property(money, (amount) => {
      expect(decodeMoney(encodeMoney(amount), 'x')).toBe(amount);
    }));
    for (const bad of [1.5, 12, '1.5', '', '01', '+1', '1e3', ' 1', null, undefined, { $numberDecimal: '1' }]) {
      expect(() => decodeMoney(bad, 'amount'), String(bad)).toThrow(InfrastructureError);
    }
  });
});

describe('scan checkpoint record (shared by the MongoDB and PostgreSQL scan cursor stores)', () => {
  const blockId = fc.record({ number: fc.nat(), hash: fc.string({ minLength: 1, maxLength: 8 }) });
  const contract = fc.option(fc.constantFrom('TContractA', 'TContractB'), { nil: null });
  const checkpoint = fc.record({
    // Absent on a checkpoint saved before the genesis was recorded.
    genesis: fc.option(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'.split('')), minLength: 64, maxLength: 64 }), { nil: undefined }),
    block: blockId,
    recent: fc.array(blockId, { maxLength: 3 }),
    final: fc.nat(),
    unfinal: fc.array(fc.record({
      number: fc.nat(), hash: fc.string({ minLength: 1, maxLength: 8 }),
      changes: fc.array(fc.record({ address: fc.string(), contract, delta: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }) }), { maxLength: 3 }),
      deposits: fc.array(fc.record({
        id: fc.string(), txid: fc.string(), contract, internal: fc.boolean(), from: fc.string(), to: fc.string(), amount: money,
      }), { maxLength: 3 }),
      uncertain: fc.array(fc.string(), { maxLength: 2 }),
    }), { maxLength: 3 }),
    anchors: fc.array(fc.record({
      address: fc.string(), at: fc.nat(), balances: fc.array(fc.record({ contract, amount: money }), { maxLength: 2 }),
    }), { maxLength: 3 }),
  });

  it('round-trips through JSON exactly, amounts as decimal strings', () => {
    fc.assert(fc.property(checkpoint, (c) => {
      const record = throughJson(toStoredScanCheckpoint(c));
      expect(JSON.stringify(record)).not.toMatch(/"(delta|amount)":-?[0-9]/);
      expect(fromStoredScanCheckpoint(record)).toEqual(c);
    }));
  });

  it('reads a checkpoint written before uncertain blocks were tracked as having none', () => {
    const record = toStoredScanCheckpoint({ block: { number: 5, hash: 'aa' }, recent: [], final: 4, anchors: [],
      unfinal: [{ number: 5, hash: 'aa', changes: [], deposits: [], uncertain: [] }] });
    delete record.unfinal[0]!.uncertain;
    expect(fromStoredScanCheckpoint(throughJson(record)).unfinal[0]!.uncertain).toEqual([]);
  });
});
