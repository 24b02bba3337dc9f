import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { failureOf, userWithWallets, type UserWithWallets } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const MINUTE = 60_000;

/** What the model knows of one issued token. */
interface TokenModel {
  readonly value: string;
  readonly tokenNo: string;
  readonly sub: number;
  readonly ttl: number;
  expiresAt: number;
  disabled: boolean;
}

interface Model {
  now: number;
  tokens: TokenModel[];
}

interface Real {
  readonly core: TestCore;
  readonly user: UserWithWallets;
}

const activeOn = (m: Model, t: TokenModel) => !t.disabled && m.now < t.expiresAt;

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(readonly sub: number, readonly ttl: number) {}
  check(): boolean { return true; }
  async run(m: Model, r: Real): Promise<void> {
    const call = r.core.app.cashierTokens.create(r.user.userId, { address: r.user.subs[this.sub]!, ttl_minutes: this.ttl });
    if (m.tokens.some((t) => t.sub === this.sub && activeOn(m, t))) {
      expect(await failureOf(call)).toEqual({ code: 'CASHIER-TOKEN-ACTIVE-EXISTS' });
      return;
    }
    const created = await call;
    expect(Date.parse(created.expires_at)).toBe(m.now + this.ttl * MINUTE);
    m.tokens.push({ value: created.token, tokenNo: created.token_no, sub: this.sub, ttl: this.ttl, expiresAt: m.now + this.ttl * MINUTE, disabled: false });
  }
  toString(): string { return `create(sub ${this.sub}, ttl ${this.ttl})`; }
}

class Disable implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check(m: Readonly<Model>): boolean { return m.tokens.length > 0; }
  async run(m: Model, r: Real): Promise<void> {
    const token = m.tokens[this.pick % m.tokens.length]!;
    const call = r.core.app.cashierTokens.disable(r.user.userId, token.tokenNo, { reason: 'model' });
    if (token.disabled) {
      expect(await failureOf(call)).toEqual({ code: 'CASHIER-TOKEN-ALREADY-DISABLED' });
      return;
    }
    expect((await call).status).toBe('disabled');
    token.disabled = true;
  }
  toString(): string { return `disable(#${this.pick})`; }
}

class Use implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check(m: Readonly<Model>): boolean { return m.tokens.length > 0; }
  async run(m: Model, r: Real): Promise<void> {
    const token = m.tokens[this.pick % m.tokens.length]!;
    const { cashier } = r.core.app;
    if (!activeOn(m, token)) {
      expect(await failureOf(cashier.authenticateCashier(token.value))).toEqual({ code: 'CASHIER-TOKEN-INVALID' });
      return;
    }
    const session = await cashier.session(await cashier.authenticateCashier(token.value));
    token.expiresAt = Math.max(token.expiresAt, m.now + token.ttl * MINUTE);
    expect(Date.parse(session.expires_at)).toBe(token.expiresAt);
    expect(session.address.address).toBe(r.user.subs[token.sub]);
  }
  toString(): string { return `use(#${this.pick})`; }
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly minutes: number) {}
  check(): boolean { return true; }
  async run(m: Model, r: Real): Promise<void> {
    r.core.clock.advance(this.minutes * MINUTE);
    m.now += this.minutes * MINUTE;
  }
  toString(): string { return `advance(${this.minutes} min)`; }
}

describe('cashier tokens against a model', () => {
  it('create / disable / use / time passing agree with the spec §3 states and the sliding expiry', async () => {
    const commands = fc.commands([
      fc.tuple(fc.nat(1), fc.constantFrom(60, 120, 480, 1440)).map(([sub, ttl]) => new Create(sub, ttl)),
      fc.nat(20).map((pick) => new Disable(pick)),
      fc.nat(20).map((pick) => new Use(pick)),
      fc.oneof(fc.integer({ min: 1, max: 90 }), fc.constantFrom(59, 60, 61, 120, 1440)).map((minutes) => new Advance(minutes)),
    ], { maxCommands: 25 });
    await fc.assert(fc.asyncProperty(commands, async (cmds) => {
      const core = buildTestCore(devnet);
      const user = await userWithWallets(core.app, core.readCode, 'model@example.com', 2);
      await fc.asyncModelRun(() => ({ model: { now: core.clock.now(), tokens: [] }, real: { core, user } }), cmds);
    }), { numRuns: runs(25) });
  });
});
