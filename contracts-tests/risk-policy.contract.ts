import { describe, expect, it } from 'vitest';
import type { RiskPolicy } from '../core/ports/risk-policy.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { addressOf } from './support/fixtures.js';

/** What the risk contract needs: an empty deny-list. */
export interface RiskPolicySubject extends Closable {
  readonly risk: RiskPolicy;
}

const byKindAndValue = (a: { kind: string; value: string }, b: { kind: string; value: string }) =>
  `${a.kind}:${a.value}`.localeCompare(`${b.kind}:${b.value}`);

/** The RiskPolicy contract (core/ports/risk-policy.port.ts): a deny-list of users and addresses. */
export function describeRiskPolicyContract(
  name: string,
  makeSubject: MakeSubject<RiskPolicySubject>,
  options: ContractOptions<RiskPolicySubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  describe(`RiskPolicy contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);
    const withdrawal = { userId: 1, operation: 'withdrawal', address: addressOf(1), toAddress: addressOf(2), assetSymbol: 'USDT', amount: 5n } as const;

    it('an empty deny-list blocks nothing', async () => {
      expect(await subject().risk.check(withdrawal)).toEqual({ blocked: false });
      expect(await subject().risk.list()).toEqual([]);
    });

    it('blocks a listed user, acting address or destination, with the entry\'s reason', async () => {
      const { risk } = subject();
      await risk.deny({ kind: 'user', value: '1', reason: 'fraud' });
      expect(await risk.check(withdrawal)).toEqual({ blocked: true, reason: 'fraud' });
      expect(await risk.check({ ...withdrawal, userId: 2 })).toEqual({ blocked: false });
      await risk.deny({ kind: 'address', value: addressOf(2), reason: 'sanctioned' });
      expect(await risk.check({ ...withdrawal, userId: 2 })).toEqual({ blocked: true, reason: 'sanctioned' });
      expect(await risk.check({ userId: 2, operation: 'collection', address: addressOf(2) })).toMatchObject({ blocked: true });
      expect(await risk.check({ userId: 2, operation: 'collection', address: addressOf(3) })).toEqual({ blocked: false });
    });

    it('an entry without a reason still blocks, with some non-empty reason', async () => {
      const { risk } = subject();
      await risk.deny({ kind: 'address', value: addressOf(1), reason: null });
      const verdict = await risk.check(withdrawal);
      expect(verdict.blocked).toBe(true);
      expect(verdict.blocked && verdict.reason.length > 0).toBe(true);
    });

    it('a user entry does not match an address with the same text, nor the reverse', async () => {
      const { risk } = subject();
      await risk.deny({ kind: 'address', value: '1', reason: null });
      await risk.deny({ kind: 'user', value: addressOf(1), reason: null });
      expect(await risk.check(withdrawal)).toEqual({ blocked: false });
    });

    it('deny is idempotent and replaces the reason; allow removes once', async () => {
      const { risk } = subject();
      await risk.deny({ kind: 'user', value: '1', reason: 'first' });
      await risk.deny({ kind: 'user', value: '1', reason: 'second' });
      expect(await risk.list()).toEqual([{ kind: 'user', value: '1', reason: 'second' }]);
      expect(await risk.allow('user', '1')).toBe(true);
      expect(await risk.allow('user', '1')).toBe(false);
      expect(await risk.check(withdrawal)).toEqual({ blocked: false });
      expect(await risk.list()).toEqual([]);
    });

    it('lists every entry', async () => {
      const { risk } = subject();
      await risk.deny({ kind: 'user', value: '7', reason: 'a' });
      await risk.deny({ kind: 'address', value: addressOf(3), reason: null });
      expect((await risk.list()).sort(byKindAndValue)).toEqual([
        { kind: 'address', value: addressOf(3), reason: null }, { kind: 'user', value: '7', reason: 'a' },
      ]);
    });

    it(`${concurrency} concurrent denies of one entry leave one entry; concurrent allows report true once`, async () => {
      const { risk } = subject();
      await Promise.all(Array.from({ length: concurrency }, () => risk.deny({ kind: 'user', value: '1', reason: 'r' })));
      expect(await risk.list()).toHaveLength(1);
      const removed = await Promise.all(Array.from({ length: concurrency }, () => risk.allow('user', '1')));
      expect(removed.filter(Boolean)).toHaveLength(1);
    });

    options.extraTestsFn?.(makeSubject);
  });
}
