import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { TOKENS } from '../composition/tokens.js';
import { cacheCollectable, fails, ok, userWithWallets } from './api-test-fixtures.js';
import { IDEMPOTENCY_IN_FLIGHT_MS } from './idempotency.js';
import type { ApiHarness, HttpResult } from './test-harness.js';

/** Where the injected crash kills the API process while it answers an idempotent request. */
export type CrashPoint = 'between the effect and the record of its answer' | 'after the effect and the answer are committed';

/** The process died: nothing after this point of the request runs (thrown from the store call it dies in). */
class ProcessKilled extends Error {
  constructor() {
    super('process killed (injected)');
  }
}

/**
 * Kills the request at `point`: in IdempotencyStore.complete (which records the answer, after the use case's writes),
 * or as the API's atomic scope (the store's UnitOfWork.atomically) has committed. The call throws, and the dead
 * process abandons nothing afterwards (abandon is a no-op until restore). Returns the restore.
 */
function injectCrash(h: ApiHarness, point: CrashPoint): () => void {
  const store = h.container.get(TOKENS.Idempotency);
  const { uow } = h.container.get(TOKENS.Stores);
  const { complete, abandon } = store;
  const { atomically } = uow;
  store.abandon = async () => undefined;
  if (point === 'between the effect and the record of its answer') {
    store.complete = async () => { throw new ProcessKilled(); };
  } else {
    // The outermost scope is the API's (the use cases' own scopes nest in it).
    let depth = 0;
    uow.atomically = async <T>(work: () => Promise<T>): Promise<T> => {
      depth += 1;
      try {
        const result = await atomically.call(uow, work) as T;
        if (depth > 1) return result;
      } finally {
        depth -= 1;
      }
      throw new ProcessKilled();
    };
  }
  return () => {
    store.complete = complete;
    store.abandon = abandon;
    uow.atomically = atomically;
  };
}

/**
 * A careful client's POST /collections whose API process is killed at `point`, retried with the same key: while the
 * in-flight lease runs the retry is IDEMPOTENCY-KEY-IN-PROGRESS or the recorded answer; after it, the original answer
 * or one clean execution (201), never BIZ-COMMAND-LOCKED for the request's own command and never a second command.
 */
export async function crashAndRetry(h: ApiHarness, point: CrashPoint): Promise<void> {
  const u = await userWithWallets(h);
  await cacheCollectable(h, u.sub);
  const key = randomUUID();
  const collect = (): Promise<HttpResult> => h.call('POST', '/api/collections', {
    token: u.apiToken, body: { address: u.sub, asset_symbol: 'USDT' }, headers: { 'idempotency-key': key },
  });
  const collections = async (): Promise<unknown[]> =>
    ok(await h.call('GET', '/api/commands?type=3&per_page=100', { token: u.apiToken })).items;

  const restore = injectCrash(h, point);
  try {
    // The client sees the connection drop; in-process the crash surfaces as a 500.
    expect((await collect()).status).toBe(500);
  } finally {
    restore();
  }
  let answer = await collect();
  if (point === 'between the effect and the record of its answer') {
    fails(answer, 409, 'IDEMPOTENCY-KEY-IN-PROGRESS');
    h.clock.advance(IDEMPOTENCY_IN_FLIGHT_MS);
    answer = await collect();
  }
  const created = ok(answer, 201);
  expect(await collections()).toHaveLength(1);
  expect((await collections() as { command_no: string }[])[0]!.command_no).toBe(created.command_no);
  // From now on that answer replays.
  h.clock.advance(IDEMPOTENCY_IN_FLIGHT_MS);
  const replay = await collect();
  expect({ status: replay.status, text: replay.text, replayed: replay.headers.get('idempotent-replayed') })
    .toEqual({ status: 201, text: answer.text, replayed: 'true' });
  expect(await collections()).toHaveLength(1);
}
