import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { DeveloperConfigRepository } from '../core/ports/developer-config-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { aDeveloperConfig, T0 } from './support/fixtures.js';

/** What the developer-config contract needs: an empty repository. */
export interface DeveloperConfigRepositorySubject extends Closable {
  readonly developerConfigs: DeveloperConfigRepository;
}

/** The DeveloperConfigRepository contract (core/ports/developer-config-repository.port.ts). */
export function describeDeveloperConfigRepositoryContract(
  name: string,
  makeSubject: MakeSubject<DeveloperConfigRepositorySubject>,
  options: ContractOptions<DeveloperConfigRepositorySubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  describe(`DeveloperConfigRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('inserts at version 1 and replaces at the next version, keeping bigint minimums', async () => {
      const { developerConfigs } = subject();
      await developerConfigs.save(aDeveloperConfig());
      expect(await developerConfigs.get(1)).toEqual(aDeveloperConfig());
      const next = aDeveloperConfig({ pendingUrl: 'https://hooks.example.com/a', pendingSince: T0, minCollectAmounts: { TRX: 2n ** 65n }, version: 2 });
      await developerConfigs.save(next);
      expect(await developerConfigs.get(1)).toEqual(next);
      expect(await developerConfigs.get(2)).toBeNull();
    });

    it('keeps a replaced secret and its overlap end exactly, and drops it when saved as null', async () => {
      const { developerConfigs } = subject();
      const previousSecret = { secret: { keyId: 'k0', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' }, validUntil: T0 + 86_400_000 };
      const rotated = aDeveloperConfig({ previousSecret });
      await developerConfigs.save(rotated);
      expect(await developerConfigs.get(1)).toEqual(rotated);
      const dropped = aDeveloperConfig({ previousSecret: null, version: 2 });
      await developerConfigs.save(dropped);
      expect(await developerConfigs.get(1)).toEqual(dropped);
    });

    it('keeps the display name (issue #25) and drops it when saved without', async () => {
      const { developerConfigs } = subject();
      const named = aDeveloperConfig({ displayName: 'Acme Store 商店' });
      await developerConfigs.save(named);
      expect(await developerConfigs.get(1)).toEqual(named);
      await developerConfigs.save(aDeveloperConfig({ version: 2 }));
      expect(await developerConfigs.get(1)).not.toHaveProperty('displayName');
    });

    it('a second insert, a stale or a skipped version throws ConcurrencyConflict', async () => {
      const { developerConfigs } = subject();
      await developerConfigs.save(aDeveloperConfig());
      await expect(developerConfigs.save(aDeveloperConfig({ url: 'https://x.example.com' }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(developerConfigs.save(aDeveloperConfig({ version: 3 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(developerConfigs.save(aDeveloperConfig({ userId: 2, version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect((await developerConfigs.get(1))!.url).toBeNull();
    });

    it('listPending returns configurations with a pending URL, oldest pendingSince first', async () => {
      const { developerConfigs } = subject();
      await developerConfigs.save(aDeveloperConfig({ userId: 1, pendingUrl: 'https://a.example.com', pendingSince: T0 + 5 }));
      await developerConfigs.save(aDeveloperConfig({ userId: 2 }));
      await developerConfigs.save(aDeveloperConfig({ userId: 3, pendingUrl: 'https://c.example.com', pendingSince: T0 + 1 }));
      await developerConfigs.save(aDeveloperConfig({ userId: 4, url: 'https://d.example.com', verifiedAt: T0 }));
      expect((await developerConfigs.listPending()).map((c) => c.userId)).toEqual([3, 1]);
    });

    it('a configuration leaves listPending once its pending URL is cleared (approved or rejected)', async () => {
      const { developerConfigs } = subject();
      await developerConfigs.save(aDeveloperConfig({ pendingUrl: 'https://a.example.com', pendingSince: T0 }));
      expect((await developerConfigs.listPending()).map((c) => c.userId)).toEqual([1]);
      await developerConfigs.save(aDeveloperConfig({ url: 'https://a.example.com', verifiedAt: T0 + 1, version: 2 }));
      expect(await developerConfigs.listPending()).toEqual([]);
    });

    it(`of ${concurrency} concurrent saves of the same next version exactly one lands`, async () => {
      const { developerConfigs } = subject();
      await developerConfigs.save(aDeveloperConfig());
      const results = await Promise.allSettled(Array.from({ length: concurrency }, (_, i) =>
        developerConfigs.save(aDeveloperConfig({ minCollectAmounts: { TRX: BigInt(i + 1) }, version: 2 }))));
      const landed = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(landed).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrencyConflict);
      expect(await developerConfigs.get(1)).toEqual(aDeveloperConfig({ minCollectAmounts: { TRX: BigInt(landed[0]! + 1) }, version: 2 }));
    });

    it('returns copies: changing a returned object does not change the stored one', async () => {
      const { developerConfigs } = subject();
      await developerConfigs.save(aDeveloperConfig());
      const got = (await developerConfigs.get(1))!;
      try { (got.minCollectAmounts as Record<string, bigint>)['USDT'] = 1n; } catch { /* a frozen copy is fine too */ }
      expect((await developerConfigs.get(1))!.minCollectAmounts).toEqual({ USDT: 1_000_000n });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
