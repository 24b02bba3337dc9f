import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, MemoryIdempotencyStore, MemoryStore } from '../../adapters/memory/index.js';
import { DomainError, InfrastructureError } from '../../core/domain/errors.js';
import { failureReply, okReply, type ApiReply } from './envelope.js';
import { REPLAY_HEADER, requestHash, runIdempotent } from './idempotency.js';

function fresh(): MemoryIdempotencyStore {
  return new MemoryIdempotencyStore(new MemoryStore(), new ManualClock());
}

/**
 * runIdempotent on the memory store: which outcomes are stored (the answer to that request) and which are not (the
 * client must be able to retry). The HTTP suites cannot make a use case fail with a 5xx on demand; this one can.
 */
describe('runIdempotent', () => {
  it('a 5xx reply or an unexpected error is not stored: the same key executes again', async () => {
    const store = fresh();
    let runs = 0;
    const failing = [
      async (): Promise<ApiReply> => { runs += 1; return failureReply('SERVICE-UNAVAILABLE'); },
      async (): Promise<ApiReply> => { runs += 1; throw new InfrastructureError('CHAIN-NODE-UNAVAILABLE', 'node down'); },
      async (): Promise<ApiReply> => { runs += 1; throw new TypeError('bug'); },
    ];
    for (const [i, execute] of failing.entries()) {
      const key = `k${i}`;
      await runIdempotent(store, 's', key, { a: 1 }, execute).catch(() => undefined);
      const second = await runIdempotent(store, 's', key, { a: 1 }, async () => { runs += 1; return okReply({ ok: i }, 201); });
      expect(second).toEqual(okReply({ ok: i }, 201));
    }
    expect(runs).toBe(6);
  });

  it('a 2xx or a 4xx (returned or thrown as a domain error) is stored and replayed with the replay header', async () => {
    const store = fresh();
    const outcomes = [
      async (): Promise<ApiReply> => okReply({ task_no: 'T1' }, 201),
      async (): Promise<ApiReply> => failureReply('BIZ-COMMAND-LOCKED'),
      async (): Promise<ApiReply> => { throw new DomainError('BIZ-ASSET-NOT-FOUND'); },
    ];
    for (const [i, execute] of outcomes.entries()) {
      const first = await runIdempotent(store, 's', `k${i}`, { i }, execute);
      const replay = await runIdempotent(store, 's', `k${i}`, { i }, async () => { throw new Error('must not run'); });
      expect({ status: replay.status, body: replay.body }).toEqual({ status: first.status, body: first.body });
      expect(replay.headers).toEqual({ [REPLAY_HEADER]: 'true' });
    }
  });

  it('the request hash ignores key order and spacing but not values or types', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), (body) => {
      const reversed = Object.fromEntries(Object.entries(body).reverse());
      expect(requestHash(reversed)).toBe(requestHash(JSON.parse(JSON.stringify(body, null, 2))));
    }));
    expect(requestHash({ amount: '1' })).not.toBe(requestHash({ amount: 1 }));
    expect(requestHash({ a: [1, 2] })).not.toBe(requestHash({ a: [2, 1] }));
    expect(requestHash({ a: null })).not.toBe(requestHash({}));
  });
});
