import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { DeliveryStatus } from '../core/domain/model/webhook.js';
import type { WebhookDeliveryRepository } from '../core/ports/webhook-delivery-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { aDelivery, T0 } from './support/fixtures.js';

/** What the webhook-delivery contract needs: an empty repository. */
export interface WebhookDeliveryRepositorySubject extends Closable {
  readonly deliveries: WebhookDeliveryRepository;
}

const LEASE = 30_000;

function delivery(n: number, overrides: Parameters<typeof aDelivery>[0] = {}) {
  return aDelivery({ deliveryId: `D${n}`, eventId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, ...overrides });
}

/** The WebhookDeliveryRepository contract (core/ports/webhook-delivery-repository.port.ts). */
export function describeWebhookDeliveryRepositoryContract(
  name: string,
  makeSubject: MakeSubject<WebhookDeliveryRepositorySubject>,
  options: ContractOptions<WebhookDeliveryRepositorySubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  describe(`WebhookDeliveryRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('inserts once per event and gets it back', async () => {
      const { deliveries } = subject();
      expect(await deliveries.insert(delivery(1))).toBe(true);
      expect(await deliveries.insert(delivery(1, { deliveryId: 'D-other' }))).toBe(false);
      expect(await deliveries.get('D1')).toEqual(delivery(1));
      expect(await deliveries.get('D-other')).toBeNull();
    });

    it(`of ${concurrency} concurrent inserts for one event exactly one is stored`, async () => {
      const { deliveries } = subject();
      const results = await Promise.all(Array.from({ length: concurrency }, (_, i) => deliveries.insert(delivery(1, { deliveryId: `D-${i}` }))));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('update is optimistic and keeps every attempt', async () => {
      const { deliveries } = subject();
      await deliveries.insert(delivery(1));
      const retrying = delivery(1, { status: 4, attempts: [{ at: T0, httpStatus: 500, error: null, durationMs: 12, response: null, redelivery: false, url: null }], nextAttemptAt: T0 + 60_000, version: 2 });
      await deliveries.update(retrying);
      await expect(deliveries.update(delivery(1, { status: 3, version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(deliveries.update(delivery(9, { version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await deliveries.get('D1')).toEqual(retrying);
    });

    it('claimDue leases PENDING and RETRYING deliveries that are due, oldest first, up to the limit', async () => {
      const { deliveries } = subject();
      const rows: [number, DeliveryStatus, number | null][] = [
        [1, 1, T0 + 2], [2, 4, T0 + 1], [3, 1, T0 + 5000], [4, 3, T0], [5, 5, T0], [6, 6, null], [7, 2, T0], [8, 1, T0 + 3], [9, 4, null],
      ];
      for (const [n, status, at] of rows) await deliveries.insert(delivery(n, { status, nextAttemptAt: at }));
      const first = await deliveries.claimDue(T0 + 10, 'w1', LEASE, 2);
      expect(first.map((d) => d.deliveryId)).toEqual(['D2', 'D1']);
      expect(first.every((d) => d.version === 2 && d.lease?.owner === 'w1' && d.lease.expiresAt === T0 + 10 + LEASE)).toBe(true);
      expect(await deliveries.get('D2')).toEqual(first[0]);
      expect((await deliveries.claimDue(T0 + 10, 'w2', LEASE, 10)).map((d) => d.deliveryId)).toEqual(['D8']);
      expect(await deliveries.claimDue(T0 + 10, 'w3', LEASE, 10)).toEqual([]);
    });

    it('an expired lease is claimable again', async () => {
      const { deliveries } = subject();
      await deliveries.insert(delivery(1));
      await deliveries.claimDue(T0, 'w1', LEASE, 1);
      expect(await deliveries.claimDue(T0 + LEASE - 1, 'w2', LEASE, 1)).toEqual([]);
      expect((await deliveries.claimDue(T0 + LEASE, 'w2', LEASE, 1))[0]).toMatchObject({ version: 3, lease: { owner: 'w2' } });
    });

    it('concurrent claims never hand one delivery to two owners', async () => {
      const { deliveries } = subject();
      for (let n = 1; n <= 20; n++) await deliveries.insert(delivery(n));
      const batches = await Promise.all(Array.from({ length: 10 }, (_, i) => deliveries.claimDue(T0, `w${i}`, LEASE, 3)));
      const ids = batches.flat().map((d) => d.deliveryId);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    });

    it('lists the user\'s deliveries newest first, paged with the total', async () => {
      const { deliveries } = subject();
      for (const n of [2, 3, 1]) await deliveries.insert(delivery(n, { createdAt: T0 + n, status: n === 3 ? 5 : 3 }));
      await deliveries.insert(delivery(4, { userId: 2 }));
      const page = await deliveries.listByUser(1, { offset: 0, limit: 2 });
      expect(page.items.map((d) => d.deliveryId)).toEqual(['D3', 'D2']);
      expect(page.total).toBe(3);
      expect(await deliveries.listByUser(9, { offset: 0, limit: 2 })).toEqual({ items: [], total: 0 });
    });

    it('filters the list by status; the total counts the filtered deliveries only', async () => {
      const { deliveries } = subject();
      for (const [n, status] of [[1, 5], [2, 3], [3, 5], [4, 6]] as const) await deliveries.insert(delivery(n, { createdAt: T0 + n, status }));
      await deliveries.insert(delivery(5, { userId: 2, status: 5 }));
      const dead = await deliveries.listByUser(1, { offset: 0, limit: 10 }, { status: 5 });
      expect(dead.items.map((d) => d.deliveryId)).toEqual(['D3', 'D1']);
      expect(dead.total).toBe(2);
      expect((await deliveries.listByUser(1, { offset: 1, limit: 10 }, { status: 5 })).items.map((d) => d.deliveryId)).toEqual(['D1']);
      expect(await deliveries.listByUser(1, { offset: 0, limit: 10 }, { status: 4 })).toEqual({ items: [], total: 0 });
      expect((await deliveries.listByUser(1, { offset: 0, limit: 10 }, {})).total).toBe(4);
    });

    it('lists every user\'s deliveries in a status newest first (equal times: the later inserted first), paged with the total', async () => {
      const { deliveries } = subject();
      for (const [n, userId, status, at] of [[1, 1, 5, 2], [2, 2, 5, 3], [3, 1, 3, 9], [4, 3, 5, 2], [5, 2, 4, 7], [6, 1, 5, 1]] as const) {
        await deliveries.insert(delivery(n, { userId, status, createdAt: T0 + at }));
      }
      const dead = await deliveries.listByStatus(5, { offset: 0, limit: 10 });
      expect(dead.items.map((d) => [d.deliveryId, d.userId])).toEqual([['D2', 2], ['D4', 3], ['D1', 1], ['D6', 1]]);
      expect(dead.total).toBe(4);
      expect(await deliveries.listByStatus(5, { offset: 1, limit: 2 })).toEqual({ items: [dead.items[1], dead.items[2]], total: 4 });
      expect(await deliveries.listByStatus(6, { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
    });

    it('keeps each attempt\'s response head (empty, none or text) and redelivery mark exactly', async () => {
      const { deliveries } = subject();
      await deliveries.insert(delivery(1));
      const attempts = [
        { at: T0, httpStatus: 500, error: 'HTTP 500', durationMs: 3, response: '', redelivery: false, url: null },
        { at: T0 + 1, httpStatus: null, error: 'timeout', durationMs: 15_000, response: null, redelivery: false, url: null },
        { at: T0 + 2, httpStatus: 200, error: null, durationMs: 4, response: 'ok ünï \u0000 {"$x":1}', redelivery: true, url: 'https://hooks.example.com/in' },
      ];
      const next = delivery(1, { status: 3, attempts, nextAttemptAt: null, version: 2 });
      await deliveries.update(next);
      expect(await deliveries.get('D1')).toEqual(next);
      expect((await deliveries.listByUser(1, { offset: 0, limit: 1 })).items).toEqual([next]);
    });

    options.extraTestsFn?.(makeSubject);
  });
}
