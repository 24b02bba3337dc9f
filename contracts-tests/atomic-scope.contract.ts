import { describe, expect, it } from 'vitest';
import { itUnless } from './support/skipped.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { AuditTrail } from '../core/application/audit-trail.js';
import { verifyStoredAuditChain } from '../core/application/audit-verifier.js';
import { sealAuditEntry } from '../core/domain/audit-chain.js';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { AuditEvent } from '../core/domain/model/audit.js';
import { COMMAND_TYPE } from '../core/domain/model/command.js';
import type { ApiTokenRepository } from '../core/ports/api-token-repository.port.js';
import type { AuditLog } from '../core/ports/audit-log.port.js';
import type { Clock } from '../core/ports/clock.port.js';
import type { CommandRepository } from '../core/ports/command-repository.port.js';
import type { UnitOfWork } from '../core/ports/unit-of-work.port.js';
import { aCommand, anApiToken } from './support/fixtures.js';

/** What the atomic-scope contract drives: one store's unit of work and three of its ports, on an empty store. */
export interface AtomicScopeSubject extends Closable {
  readonly uow: UnitOfWork;
  readonly commands: CommandRepository;
  readonly apiTokens: ApiTokenRepository;
  readonly auditLog: AuditLog;
  readonly clock: Clock;
}

/** Options of describeAtomicScopeContract. */
export interface AtomicScopeContractOptions extends ContractOptions<AtomicScopeSubject> {
  /**
   * How an open scope is kept from the store's other callers; either way a throw out of `atomically` leaves none of
   * its writes. 'snapshot' (PostgreSQL, MongoDB): a read from outside answers the state before the scope until it
   * ends. 'serial' (the memory store, issue #39 item 7): a call from outside waits until the open scope has ended.
   */
  readonly isolation: 'snapshot' | 'serial';
  /**
   * False for a store whose transactions have no savepoints (MongoDB): a failure inside a scope there must end the
   * scope, so the two cases that catch one and go on are not run. Default true.
   */
  readonly savepoints?: boolean;
}

const USER = 7;
/** A command that locks no address, so any number of them may be active at once. */
const cmd = (commandNo: string) => aCommand({ commandNo, userId: USER, type: COMMAND_TYPE.QUERY, address: null });
const login = (n: number): AuditEvent => ({ userId: USER, action: 'auth.login', actor: { kind: 'user', id: null }, detail: { n } });

/** What the store holds of the three kinds of writes the cases make. */
async function stored(s: AtomicScopeSubject): Promise<{ tokens: number[]; entries: number; commands: string[] }> {
  const tokens = (await s.apiTokens.listActiveByUser(USER)).map((t) => t.id).sort((a, b) => a - b);
  const entries = (await s.auditLog.head(USER))?.seq ?? 0;
  const commands: string[] = [];
  for (const no of ['A1', 'A2', 'A3']) if ((await s.commands.get(no)) !== null) commands.push(no);
  return { tokens, entries, commands };
}

/**
 * UnitOfWork.atomically (decision 144): the writes `work` makes through the store's ports land together, or on a
 * durable store not at all. Shared by the memory, PostgreSQL and MongoDB stores.
 */
export function describeAtomicScopeContract(name: string, makeSubject: MakeSubject<AtomicScopeSubject>, options: AtomicScopeContractOptions): void {
  const concurrency = options.concurrency ?? 20;

  describe(`UnitOfWork.atomically contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('writes through several ports inside one scope all land, and the scope answers what its work answered', async () => {
      const s = subject();
      const answer = await s.uow.atomically(async () => {
        await s.apiTokens.createWithinCap(anApiToken({ id: 1, userId: USER, tokenHash: 'h1' }), 10);
        expect(await s.auditLog.insert(sealAuditEntry(null, login(1), 1))).toBe(true);
        await s.uow.commit({ newCommands: [cmd('A1')] });
        // Reads inside the scope see its own writes.
        expect((await s.auditLog.head(USER))?.seq).toBe(1);
        expect((await s.commands.get('A1'))?.commandNo).toBe('A1');
        return 'done';
      });
      expect(answer).toBe('done');
      expect(await stored(s)).toEqual({ tokens: [1], entries: 1, commands: ['A1'] });
    });

    const itWithSavepoints = itUnless(
      options.savepoints === false ? 'the store has no savepoints: a failure inside a scope ends it' : null, `UnitOfWork.atomically contract: ${name}`,
    );

    itWithSavepoints('a failing commit inside a scope writes nothing of its own and the scope can go on (a savepoint, not the end)', async () => {
      const s = subject();
      await s.commands.insert(cmd('A2'), { locking: false });
      await s.uow.atomically(async () => {
        await s.apiTokens.createWithinCap(anApiToken({ id: 1, userId: USER, tokenHash: 'h1' }), 10);
        // A1 is new but A2 is stored already: the change set conflicts and writes neither.
        await expect(s.uow.commit({ newCommands: [cmd('A1'), cmd('A2')] }))
          .rejects.toBeInstanceOf(ConcurrencyConflict);
        await s.uow.commit({ newCommands: [cmd('A3')] });
      });
      expect(await stored(s)).toEqual({ tokens: [1], entries: 0, commands: ['A2', 'A3'] });
    });

    it(`${concurrency} scopes at once, each an action and its AuditTrail entry, make one unforked chain with every action`, async () => {
      const s = subject();
      const trail = new AuditTrail({ auditLog: s.auditLog, clock: s.clock, uow: s.uow });
      await Promise.all(Array.from({ length: concurrency }, (_, i) => trail.recordWith(
        () => s.apiTokens.createWithinCap(anApiToken({ id: i + 1, userId: USER, tokenHash: `h${i + 1}` }), concurrency),
        () => login(i + 1),
      )));
      const now = await stored(s);
      expect(now.tokens).toEqual(Array.from({ length: concurrency }, (_, i) => i + 1));
      expect(now.entries).toBe(concurrency);
      const chain = await s.auditLog.readChain(USER, 0, concurrency + 1);
      expect(chain.map((e) => e.detail['n']).sort((a, b) => Number(a) - Number(b))).toEqual(now.tokens);
      expect((await verifyStoredAuditChain(s.auditLog, USER)).ok).toBe(true);
    });

    it('a throw out of the work leaves none of its writes, and the very error comes out', async () => {
      const s = subject();
      const boom = new Error('dies after its writes');
      const outcome = s.uow.atomically(async () => {
        await s.apiTokens.createWithinCap(anApiToken({ id: 1, userId: USER, tokenHash: 'h1' }), 10);
        await s.uow.commit({ newCommands: [cmd('A1')] });
        await s.auditLog.insert(sealAuditEntry(null, login(1), 1));
        throw boom;
      });
      await expect(outcome).rejects.toBe(boom);
      expect(await stored(s)).toEqual({ tokens: [], entries: 0, commands: [] });
    });

    // Each store declares the case of its own isolation only (the other is not a skip: it does not apply).
    const itSnapshot = options.isolation === 'snapshot' ? it : () => undefined;
    const itSerial = options.isolation === 'serial' ? it : () => undefined;

    itSnapshot('snapshot: an open scope\'s writes are seen by no one outside it until it ends', async () => {
      const s = subject();
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let written!: () => void;
      const inside = new Promise<void>((resolve) => {
        written = resolve;
      });
      const scope = s.uow.atomically(async () => {
        await s.apiTokens.createWithinCap(anApiToken({ id: 1, userId: USER, tokenHash: 'h1' }), 10);
        await s.uow.commit({ newCommands: [cmd('A1')] });
        written();
        await held;
      });
      await inside;
      expect(await stored(s)).toEqual({ tokens: [], entries: 0, commands: [] });
      release();
      await scope;
      expect(await stored(s)).toEqual({ tokens: [1], entries: 0, commands: ['A1'] });
    });

    itSerial('serial: a call from outside waits while a scope is open, then sees all of its writes; a thrown scope\'s none', async () => {
      const s = subject();
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let written!: () => void;
      const inside = new Promise<void>((resolve) => {
        written = resolve;
      });
      const scope = s.uow.atomically(async () => {
        await s.apiTokens.createWithinCap(anApiToken({ id: 1, userId: USER, tokenHash: 'h1' }), 10);
        await s.uow.commit({ newCommands: [cmd('A1')] });
        written();
        await held;
        throw new Error('taken back');
      });
      await inside;
      let seen: unknown = null;
      const outside = Promise.all([s.apiTokens.listActiveByUser(USER), s.commands.get('A1')]).then(([tokens, command]) => {
        seen = { tokens: tokens.length, command };
      });
      // A write from outside waits too: had it landed inside the open scope, the throw would not take it back.
      const written2 = s.uow.commit({ newCommands: [cmd('A3')] });
      for (let i = 0; i < 20; i++) await Promise.resolve();
      expect(seen).toBeNull();
      release();
      await expect(scope).rejects.toThrow('taken back');
      await outside;
      await written2;
      expect(seen).toEqual({ tokens: 0, command: null });
      expect(await stored(s)).toEqual({ tokens: [], entries: 0, commands: ['A3'] });
    });

    itWithSavepoints('a nested scope that throws is undone alone; the outer scope keeps its own writes', async () => {
      const s = subject();
      await s.uow.atomically(async () => {
        await s.apiTokens.createWithinCap(anApiToken({ id: 1, userId: USER, tokenHash: 'h1' }), 10);
        await expect(s.uow.atomically(async () => {
          await s.uow.commit({ newCommands: [cmd('A1')] });
          throw new Error('inner fails');
        })).rejects.toThrow('inner fails');
        await s.auditLog.insert(sealAuditEntry(null, login(1), 1));
      });
      expect(await stored(s)).toEqual({ tokens: [1], entries: 1, commands: [] });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
