// Adapter-only (issue #37): no shared suite can run a second session on the database, lose the listener's session or
// silence its network; the contracts of the cached repositories run in pg-accounts.integration.test.ts.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { anApiToken, T0 } from '../../contracts-tests/support/fixtures.js';
import type { ApiToken } from '../../core/domain/model/index.js';
import type { ApiTokenRepository } from '../../core/ports/api-token-repository.port.js';
import { CachedApiTokenRepository } from '../records/cached-tokens.js';
import { PgApiTokenRepository } from './pg-api-token-repository.js';
import { PgTokenListener } from './pg-token-listener.js';
import { usePgTestStore } from './testing/pg-test-store.js';

const HASH = anApiToken().tokenHash;

/** The store's repository, counting its token lookups: what the cache saves is what this does not count. */
function counting(store: ApiTokenRepository): ApiTokenRepository & { lookups: number } {
  const counted = Object.create(store) as ApiTokenRepository & { lookups: number };
  counted.lookups = 0;
  counted.findByTokenHash = (hash: string) => {
    counted.lookups += 1;
    return store.findByTokenHash(hash);
  };
  return counted;
}

/** A TCP relay to the database that can go silent both ways, as a network that drops packets without a reset. */
async function silenceableRelay(port: number): Promise<{ port: number; silence(): void; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((inbound) => {
    const outbound = connect(port, '127.0.0.1');
    sockets.push(inbound, outbound);
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    const drop = (): void => undefined;
    inbound.on('error', drop);
    outbound.on('error', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    silence: () => {
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Waits until the listener vouches for the cache (its session open and a heartbeat answered). */
async function untilTrusted(listener: PgTokenListener): Promise<void> {
  for (let i = 0; i < 100 && !listener.trusted(); i++) await sleep(20);
  expect(listener.trusted()).toBe(true);
}

describeWithPostgres('PostgreSQL token cache (records/cached-tokens, pg-token-listener)', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'token_cache');
  let listener: PgTokenListener;
  beforeAll(() => {
    listener = new PgTokenListener({ connectionString: open().url });
  });
  afterAll(() => listener?.close());

  const throughRelay = (port: number): string => {
    const url = new URL(open().url);
    url.port = String(port);
    return url.href;
  };
  const revokeElsewhere = (at: number) => open().connection.pool.query('UPDATE api_tokens SET revoked_at = $1 WHERE token_hash = $2', [at, HASH]);

  it('a warm token costs no lookup; a revocation by another session is forgotten within 1 s, a use time is not', async () => {
    await open().clear();
    const store = counting(new PgApiTokenRepository(open().connection.pool));
    const cached = new CachedApiTokenRepository(store, listener);
    await store.create(anApiToken());
    await untilTrusted(listener);
    await cached.findByTokenHash(HASH);
    const warm = store.lookups;
    for (let i = 0; i < 5; i++) expect((await cached.findByTokenHash(HASH))!.revokedAt).toBeNull();
    expect(store.lookups).toBe(warm);
    // A use written by another process changes nothing authentication reads: nothing is forgotten.
    await open().connection.pool.query('UPDATE api_tokens SET last_used_at = $1 WHERE token_hash = $2', [T0 + 1, HASH]);
    await sleep(100);
    await cached.findByTokenHash(HASH);
    expect(store.lookups).toBe(warm);
    await revokeElsewhere(T0 + 2);
    const started = performance.now();
    let found: ApiToken | null = null;
    while (performance.now() - started < 1_000 && (found = await cached.findByTokenHash(HASH))!.revokedAt === null) await sleep(10);
    expect(found!.revokedAt).toBe(T0 + 2);
  });

  it('this process\'s own revocation is refused at once, heard or not, and markUsed moves the cached use time', async () => {
    await open().clear();
    const relay = await silenceableRelay(Number(new URL(open().url).port));
    const deaf = new PgTokenListener({ connectionString: throughRelay(relay.port) });
    try {
      const store = counting(new PgApiTokenRepository(open().connection.pool));
      const cached = new CachedApiTokenRepository(store, deaf);
      await store.create(anApiToken({ lastUsedAt: null }));
      await untilTrusted(deaf);
      await cached.findByTokenHash(HASH);
      await cached.markUsed(anApiToken().id, T0 + 5);
      const warm = store.lookups;
      expect((await cached.findByTokenHash(HASH))!.lastUsedAt).toBe(T0 + 5);
      expect(store.lookups).toBe(warm);
      // The listener still vouches but will not hear this revocation: the cache must forget it by itself.
      relay.silence();
      await cached.revoke(anApiToken().id, T0 + 6);
      expect(deaf.trusted()).toBe(true);
      expect((await cached.findByTokenHash(HASH))!.revokedAt).toBe(T0 + 6);
    } finally {
      await relay.close();
      await deaf.close();
    }
  });

  it('a listener whose network goes silent stops vouching within 1 s: a revocation it cannot hear is still seen', async () => {
    await open().clear();
    const relay = await silenceableRelay(Number(new URL(open().url).port));
    const deaf = new PgTokenListener({ connectionString: throughRelay(relay.port) });
    try {
      const store = counting(new PgApiTokenRepository(open().connection.pool));
      const cached = new CachedApiTokenRepository(store, deaf);
      await store.create(anApiToken());
      await untilTrusted(deaf);
      await cached.findByTokenHash(HASH);
      const warm = store.lookups;
      expect((await cached.findByTokenHash(HASH))!.revokedAt).toBeNull();
      expect(store.lookups).toBe(warm);
      relay.silence();
      await revokeElsewhere(T0 + 3);
      const started = performance.now();
      let found: ApiToken | null = null;
      while (performance.now() - started < 1_000 && (found = await cached.findByTokenHash(HASH))!.revokedAt === null) await sleep(10);
      expect(found!.revokedAt).toBe(T0 + 3);
      expect(deaf.trusted()).toBe(false);
    } finally {
      await relay.close();
      await deaf.close();
    }
  });

  it('a lost listener session forgets everything; a new session vouches again', async () => {
    await open().clear();
    const store = counting(new PgApiTokenRepository(open().connection.pool));
    const cached = new CachedApiTokenRepository(store, listener);
    await store.create(anApiToken());
    await untilTrusted(listener);
    await cached.findByTokenHash(HASH);
    await open().connection.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'custody-hub-token-listener' AND datname = current_database()`);
    for (let i = 0; i < 50 && listener.trusted(); i++) await sleep(10);
    const before = store.lookups;
    await cached.findByTokenHash(HASH);
    expect(store.lookups).toBe(before + 1);
    await untilTrusted(listener);
    await cached.findByTokenHash(HASH);
    const warm = store.lookups;
    await cached.findByTokenHash(HASH);
    expect(store.lookups).toBe(warm);
  });

  it('a session that no longer listens (as behind a pooler in transaction mode) stops vouching', async () => {
    const own = new PgTokenListener({ connectionString: open().url });
    try {
      await untilTrusted(own);
      // The listener's own session, reached on purpose: nothing else can make a session stop listening.
      await (own as unknown as { client: { query(text: string): Promise<unknown> } }).client.query('UNLISTEN *');
      const started = performance.now();
      while (own.trusted() && performance.now() - started < 2_000) await sleep(10);
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      await own.close();
    }
  });
});
