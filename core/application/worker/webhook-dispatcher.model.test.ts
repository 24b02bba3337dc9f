/**
 * Model-based run of the dispatcher: random interleavings of events, clock moves, passes, receiver outages and
 * webhook URL changes (approve, pending change, removal) against a real local receiver. After every step the
 * stored deliveries and what the receiver saw are checked against the spec §3/§6 rules.
 */
import { Buffer } from 'node:buffer';
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpWebhookTransport, startLocalReceiver, type LocalWebhookReceiver } from '../../../adapters/http/index.js';
import { createMemoryAdapters, ManualClock, type MemoryAdapters } from '../../../adapters/memory/index.js';
import { AesGcmKeyCipher } from '../../../adapters/node/aes-gcm-key-cipher.js';
import { NodeDnsResolver } from '../../../adapters/node/node-dns-resolver.js';
import { DELIVERY_STATUS, type WebhookDelivery } from '../../domain/model/webhook.js';
import { secretAad } from '../developer-config.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

/** Spec §6, copied by hand: 1st immediately, 2nd after 1 minute, 3rd after 5 minutes. */
const RETRY_DELAYS_MS = [0, 60_000, 300_000] as const;
const USERS = [1, 2] as const;
type User = (typeof USERS)[number];
const secretOf = (user: number): string => `secret-${user}`;

/** Path -> answer: every path fails until listed as healthy. */
const healthy = new Set<string>();
let receiver: LocalWebhookReceiver;
beforeAll(async () => {
  receiver = await startLocalReceiver((r) => ({ status: healthy.has(r.path) ? 200 : 500 }));
});
afterAll(() => receiver.close());

interface Model {
  /** Approved and pending path per user. */
  config: Map<User, { url: string | null; pending: string | null }>;
  /** Events emitted and not yet turned into deliveries, by user. */
  unrecorded: { eventId: string; user: User }[];
  /** Event id -> the URL it must be delivered to (null = SKIPPED), fixed when a pass records it. */
  expectedUrl: Map<string, string | null>;
  /** Paths that were only ever pending: they must never be called. */
  neverApproved: Set<string>;
  run: number;
  seq: number;
}

interface Real {
  mem: MemoryAdapters;
  clock: ManualClock;
  cipher: AesGcmKeyCipher;
  dispatcher: WebhookDispatcher;
}

const hitsOf = (eventId: string) => receiver.received.filter((r) => r.headers['x-event-id'] === eventId);

async function allDeliveries(real: Real): Promise<WebhookDelivery[]> {
  const pages = await Promise.all(USERS.map((u) => real.mem.deliveries.listByUser(u, { offset: 0, limit: 1_000 })));
  return pages.flatMap((p) => p.items);
}

/** The spec rules every stored delivery and the receiver's log must satisfy after any step. */
async function checkInvariants(model: Model, real: Real, afterPass: boolean): Promise<void> {
  for (const d of await allDeliveries(real)) {
    const failed = d.attempts.map((a) => a.httpStatus === null || a.httpStatus < 200 || a.httpStatus >= 300);
    expect(d.url).toBe(model.expectedUrl.get(d.eventId));
    expect(d.attempts.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < d.attempts.length; i += 1) {
      expect(d.attempts[i]!.at - d.attempts[i - 1]!.at).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i]!);
    }
    switch (d.status) {
      case DELIVERY_STATUS.SKIPPED:
        expect([d.url, d.attempts.length, d.nextAttemptAt]).toEqual([null, 0, null]);
        break;
      case DELIVERY_STATUS.PENDING:
        expect(d.attempts).toEqual([]);
        break;
      case DELIVERY_STATUS.RETRYING:
        expect(failed.every(Boolean)).toBe(true);
        expect(d.nextAttemptAt).toBe(d.attempts.at(-1)!.at + RETRY_DELAYS_MS[d.attempts.length]!);
        break;
      case DELIVERY_STATUS.SUCCEEDED:
        expect(failed).toEqual([...Array(d.attempts.length - 1).fill(true), false]);
        break;
      case DELIVERY_STATUS.DEAD:
        expect(failed).toEqual([true, true, true]);
        break;
      default:
        throw new Error(`unexpected status ${d.status}`);
    }
    const hits = hitsOf(d.eventId);
    expect(hits).toHaveLength(d.attempts.length);
    for (const hit of hits) {
      expect(`${receiver.origin}${hit.path}`).toBe(d.url);
      const payload = JSON.parse(hit.body) as Record<string, unknown>;
      const keys = Object.keys(payload).sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b)));
      const canonical = `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(payload[k])}`).join(',')}}`;
      expect(hit.headers['x-webhook-signature']).toBe(`sha256=${createHmac('sha256', secretOf(d.userId)).update(canonical).digest('hex')}`);
    }
    if (afterPass && (d.status === DELIVERY_STATUS.PENDING || d.status === DELIVERY_STATUS.RETRYING)) {
      expect(d.nextAttemptAt!).toBeGreaterThan(real.clock.now());
    }
  }
  for (const path of model.neverApproved) expect(receiver.received.filter((r) => r.path === path)).toEqual([]);
}

class Emit implements fc.AsyncCommand<Model, Real> {
  constructor(readonly user: User) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    const eventId = `m${model.run}-e${++model.seq}`;
    await real.mem.uow.commit({ events: [{
      eventId, userId: this.user, eventType: 'webhook.test', occurredAt: real.clock.now(), dispatched: false,
      payload: { event_id: eventId, event_type: 'webhook.test', occurred_at: '2026-01-01T00:00:00+00:00', note: 'ünï ✓' },
    }] });
    model.unrecorded.push({ eventId, user: this.user });
    await checkInvariants(model, real, false);
  }
  toString = (): string => `Emit(${this.user})`;
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    real.clock.advance(this.ms);
    await checkInvariants(model, real, false);
  }
  toString = (): string => `Advance(${this.ms})`;
}

class Pass implements fc.AsyncCommand<Model, Real> {
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    for (const { eventId, user } of model.unrecorded.splice(0)) model.expectedUrl.set(eventId, model.config.get(user)!.url);
    await real.dispatcher.tick();
    await checkInvariants(model, real, true);
  }
  toString = (): string => 'Pass';
}

class Receiver implements fc.AsyncCommand<Model, Real> {
  constructor(readonly user: User, readonly up: boolean) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    const url = model.config.get(this.user)!.url;
    if (url !== null) {
      const path = new URL(url).pathname;
      if (this.up) healthy.add(path); else healthy.delete(path);
    }
    await checkInvariants(model, real, false);
  }
  toString = (): string => `Receiver(${this.user}, ${this.up ? 'up' : 'down'})`;
}

class Configure implements fc.AsyncCommand<Model, Real> {
  constructor(readonly user: User, readonly change: 'approve' | 'pending' | 'remove') {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    const current = model.config.get(this.user)!;
    const path = `/m${model.run}-u${this.user}-${++model.seq}`;
    const url = `${receiver.origin}${path}`;
    const next = this.change === 'approve' ? { url, pending: null }
      : this.change === 'pending' ? { url: current.url, pending: url }
      : { url: null, pending: null };
    if (this.change === 'pending') model.neverApproved.add(path);
    if (this.change === 'approve') { model.neverApproved.delete(path); healthy.add(path); }
    model.config.set(this.user, next);
    const stored = await real.mem.developerConfigs.get(this.user);
    await real.mem.developerConfigs.save({
      userId: this.user, url: next.url, pendingUrl: next.pending, pendingSince: next.pending === null ? null : real.clock.now(),
      verifiedAt: next.url === null ? null : real.clock.now(), reviewNote: null,
      secret: stored?.secret ?? await real.cipher.encrypt(new TextEncoder().encode(secretOf(this.user)), secretAad(this.user)),
      previousSecret: null, minCollectAmounts: {}, version: (stored?.version ?? 0) + 1,
    });
    await checkInvariants(model, real, false);
  }
  toString = (): string => `Configure(${this.user}, ${this.change})`;
}

const user = fc.constantFrom(...USERS);
const commands = [
  // Events and passes twice: the interesting states need several of them.
  user.map((u) => new Emit(u)),
  user.map((u) => new Emit(u)),
  fc.constant(new Pass()),
  fc.constantFrom(1_000, 59_000, 60_000, 240_000, 300_000).map((ms) => new Advance(ms)),
  fc.constant(new Pass()),
  fc.tuple(user, fc.boolean()).map(([u, up]) => new Receiver(u, up)),
  fc.tuple(user, fc.constantFrom('approve' as const, 'pending' as const, 'remove' as const)).map(([u, c]) => new Configure(u, c)),
];

let runs = 0;
describe('WebhookDispatcher model run', () => {
  it('keeps every delivery within the spec rules under random events, clock moves, outages and URL changes', async () => {
    await fc.assert(fc.asyncProperty(fc.commands(commands, { maxCommands: 30, size: 'max' }), async (cmds) => {
      const clock = new ManualClock();
      const mem = createMemoryAdapters({ clock });
      const cipher = new AesGcmKeyCipher({ currentKeyId: 'k', keys: { k: new Uint8Array(32).fill(3) } });
      const dispatcher = new WebhookDispatcher({
        clock, ids: mem.ids, outbox: mem.outbox, deliveries: mem.deliveries, developerConfigs: mem.developerConfigs, cipher,
        transport: new HttpWebhookTransport({ resolver: new NodeDnsResolver(), allowLocal: true }),
      }, { concurrency: 64 });
      const model: Model = {
        config: new Map(USERS.map((u) => [u, { url: null, pending: null }])),
        unrecorded: [], expectedUrl: new Map(), neverApproved: new Set(), run: ++runs, seq: 0,
      };
      const real = { mem, clock, cipher, dispatcher };
      // Both users start with an approved, healthy URL, so most runs deliver; the commands then disturb that.
      for (const u of USERS) await new Configure(u, 'approve').run(model, real);
      await fc.asyncModelRun(() => ({ model, real }), cmds);
    }), { numRuns: 30 });
    // The runs must have exercised real deliveries, not only skips.
    expect(receiver.received.length).toBeGreaterThan(30);
  });
});
