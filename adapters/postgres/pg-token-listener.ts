/**
 * How an API process learns, within a second, that a token it remembers has changed in any process (issue #37,
 * decision in the report): migration 0018 sends a changed token's hash on channel `custody_tokens` at commit, and this
 * listener holds a session of its own on LISTEN. A lost notification must never keep a revoked token alive, so the
 * listener also proves every HEARTBEAT_MS that its session still answers: a notification committed before a heartbeat
 * is sent reaches the session before that heartbeat's answer. Cached tokens are trusted only while the newest answered
 * heartbeat was sent less than TRUST_MS ago; past that (a silent network, a stalled or lost session) every lookup goes
 * to the store, and a new session forgets everything cached before it.
 */
import pg from 'pg';
import type { TokenVouch } from '../records/cached-tokens.js';

/** The channel migration 0018's triggers notify on. */
export const TOKEN_CHANNEL = 'custody_tokens';

/**
 * The heartbeat: whether the session that answers still listens on the channel. Behind a pooler in transaction mode
 * the answering session may not be the one that ran LISTEN; then the cache is never trusted (every lookup reads the
 * store) rather than trusted while deaf. Named so that statement statistics tell it from a request's (bench:api).
 */
export const HEARTBEAT = `SELECT '${TOKEN_CHANNEL}' = ANY (ARRAY(SELECT pg_listening_channels())) AS custody_token_listener_heartbeat`;

/** Timings of the listener; the defaults keep a revoked token refused everywhere within 1 s. */
export interface TokenListenerTimings {
  /** How often the session is asked to answer. Default 250 ms. */
  readonly heartbeatMs: number;
  /** How long an answered heartbeat vouches for the cache, from when it was sent. Default 750 ms. */
  readonly trustMs: number;
  /** A heartbeat unanswered this long ends the session (a new one is opened). Default 5 s. */
  readonly deadMs: number;
  /** With no lookup for this long the heartbeats pause (an idle API, a worker), and trust lapses. Default 10 s. */
  readonly idleMs: number;
  /** Wait before opening a new session after one failed or ended. Default 500 ms. */
  readonly retryMs: number;
}

const DEFAULT_TIMINGS: TokenListenerTimings = { heartbeatMs: 250, trustMs: 750, deadMs: 5_000, idleMs: 10_000, retryMs: 500 };

/** What a cache hears: a token hash to forget, or null to forget everything. */
export type Forget = (tokenHash: string | null) => void;

/**
 * One LISTEN session per pool, opened on first use (so a worker, which never authenticates a token, opens none) and
 * closed by close().
 */
export class PgTokenListener implements TokenVouch {
  private readonly timings: TokenListenerTimings;
  private readonly forgetters = new Set<Forget>();
  private client: pg.Client | null = null;
  private opening = false;
  private closed = false;
  /** performance.now() when the newest answered heartbeat was sent. */
  private confirmedAt = Number.NEGATIVE_INFINITY;
  private lastUse = Number.NEGATIVE_INFINITY;
  private heartbeatInFlight: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private epochValue = 0;

  constructor(private readonly connection: pg.ClientConfig, timings: Partial<TokenListenerTimings> = {}) {
    this.timings = { ...DEFAULT_TIMINGS, ...timings };
  }

  /** Changes on every notification and every new or lost session: a lookup that saw it change must not be cached. */
  get epoch(): number {
    return this.epochValue;
  }

  /** Whether a cached token may answer now. Counts as a use: opens the session, or resumes the heartbeats. */
  trusted(): boolean {
    const now = performance.now();
    this.lastUse = now;
    if (this.client === null && !this.opening && !this.closed) void this.open();
    return now - this.confirmedAt < this.timings.trustMs;
  }

  /** Registers a cache's forget function; returns how to unregister it. */
  onForget(forget: Forget): () => void {
    this.forgetters.add(forget);
    return () => this.forgetters.delete(forget);
  }

  /** Ends the session and the heartbeats; trusted() is false from now on. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopHeartbeats();
    const client = this.client;
    this.lose();
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    this.opening = true;
    const client = new pg.Client({ ...this.connection, application_name: 'custody-hub-token-listener', keepAlive: true });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.channel === TOKEN_CHANNEL) this.forget(message.payload ?? null);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${TOKEN_CHANNEL}`);
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      // Whatever was cached before this session may have changed unheard.
      this.forget(null);
      this.timer = setInterval(() => this.heartbeat(), this.timings.heartbeatMs);
      this.timer.unref();
      this.heartbeat();
    } catch {
      await client.end().catch(() => undefined);
      this.retryLater();
    } finally {
      this.opening = false;
    }
  }

  private heartbeat(): void {
    const client = this.client;
    if (client === null) return;
    const sentAt = performance.now();
    if (this.heartbeatInFlight !== null) {
      if (sentAt - this.heartbeatInFlight > this.timings.deadMs) this.lost(client);
      return;
    }
    if (sentAt - this.lastUse > this.timings.idleMs) return;
    this.heartbeatInFlight = sentAt;
    client.query<{ custody_token_listener_heartbeat: boolean }>(HEARTBEAT).then(({ rows }) => {
      if (this.client !== client) return;
      if (rows[0]?.custody_token_listener_heartbeat !== true) return this.lost(client);
      this.heartbeatInFlight = null;
      this.confirmedAt = Math.max(this.confirmedAt, sentAt);
    }, () => this.lost(client));
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.lose();
    void client.end().catch(() => undefined);
    this.retryLater();
  }

  /** No session: nothing cached is trusted, and nothing cached is kept. */
  private lose(): void {
    this.client = null;
    this.heartbeatInFlight = null;
    this.confirmedAt = Number.NEGATIVE_INFINITY;
    this.stopHeartbeats();
    this.forget(null);
  }

  private retryLater(): void {
    if (this.closed) return;
    // The next lookup after the wait opens a new session (an idle process opens none).
    this.opening = true;
    setTimeout(() => {
      this.opening = false;
    }, this.timings.retryMs).unref();
  }

  private stopHeartbeats(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private forget(tokenHash: string | null): void {
    this.epochValue += 1;
    for (const forget of this.forgetters) forget(tokenHash);
  }
}

const listeners = new WeakMap<pg.Pool, PgTokenListener>();

/**
 * The listener of a pool's database, one per pool (created on first ask, its session opened on first use), closed
 * when the pool ends: pool.end() closes it first, so a caller ends one thing as before.
 */
export function tokenListenerOf(pool: pg.Pool): PgTokenListener {
  let listener = listeners.get(pool);
  if (listener !== undefined) return listener;
  const created = new PgTokenListener(pool.options);
  listeners.set(pool, created);
  const end = pool.end.bind(pool) as (callback?: () => void) => Promise<void> | void;
  Object.defineProperty(pool, 'end', {
    configurable: true,
    writable: true,
    value: (callback?: () => void): Promise<void> | void => {
      const closing = created.close();
      if (callback === undefined) return closing.then(() => end());
      void closing.finally(() => end(callback));
    },
  });
  listener = created;
  return listener;
}
