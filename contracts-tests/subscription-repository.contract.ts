import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { SubscriptionRepository } from '../core/ports/subscription-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { aSubscription } from './support/fixtures.js';

/** What the subscription contract needs: an empty repository. */
export interface SubscriptionRepositorySubject extends Closable {
  readonly subscriptions: SubscriptionRepository;
}

/** The SubscriptionRepository contract (core/ports/subscription-repository.port.ts). */
export function describeSubscriptionRepositoryContract(
  name: string,
  makeSubject: MakeSubject<SubscriptionRepositorySubject>,
  options: ContractOptions<SubscriptionRepositorySubject> = {},
): void {
  describe(`SubscriptionRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('keeps one subscription per (user, service)', async () => {
      const { subscriptions } = subject();
      const sub = aSubscription();
      const dev = aSubscription({ serviceCode: 'developer', planCode: 'developer', meta: {} });
      await subscriptions.save(sub);
      await subscriptions.save(dev);
      expect(await subscriptions.find(1, 'sub_address')).toEqual(sub);
      expect(await subscriptions.find(1, 'developer')).toEqual(dev);
      expect(await subscriptions.find(2, 'sub_address')).toBeNull();
    });

    it('replaces when the version follows the stored one (plan switch)', async () => {
      const { subscriptions } = subject();
      await subscriptions.save(aSubscription());
      const pro = aSubscription({ planCode: 'pro', meta: { maxSubAddresses: 1000 }, version: 2 });
      await subscriptions.save(pro);
      expect(await subscriptions.find(1, 'sub_address')).toEqual(pro);
    });

    it('a second insert at version 1, a stale or a skipped version throws ConcurrencyConflict', async () => {
      const { subscriptions } = subject();
      await subscriptions.save(aSubscription());
      await expect(subscriptions.save(aSubscription({ planCode: 'pro' }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(subscriptions.save(aSubscription({ version: 3 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(subscriptions.save(aSubscription({ userId: 2, version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect((await subscriptions.find(1, 'sub_address'))!.planCode).toBe('starter');
    });

    it('of concurrent first activations exactly one is stored', async () => {
      const { subscriptions } = subject();
      const plans = ['starter', 'pro', 'unlimited', 'starter', 'pro'];
      const outcomes = await Promise.allSettled(plans.map((planCode) => subscriptions.save(aSubscription({ planCode }))));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    });

    options.extraTestsFn?.(makeSubject);
  });
}
