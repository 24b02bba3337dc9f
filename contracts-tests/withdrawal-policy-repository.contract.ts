import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict, DomainError } from '../core/domain/errors.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../core/domain/model/command.js';
import type { AllowListEntry, WithdrawalPolicy } from '../core/domain/model/withdrawal-policy.js';
import {
  emptyWithdrawalPolicy, VELOCITY_AMOUNT_WINDOW_MS, VELOCITY_COUNT_WINDOW_MS, type VelocityCharge,
} from '../core/domain/withdrawal-policy-rules.js';
import type { CommandRepository } from '../core/ports/command-repository.port.js';
import type { UnitOfWork } from '../core/ports/unit-of-work.port.js';
import type { WithdrawalPolicyRepository } from '../core/ports/withdrawal-policy-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';
import { aCommand, addressOf, T0 } from './support/fixtures.js';

/**
 * What the withdrawal-policy contract needs: an empty repository, and the unit of work and command repository of the
 * same store (the velocity limits are judged by the unit of work on the store's commands, ChangeSet.velocity).
 */
export interface WithdrawalPolicyRepositorySubject extends Closable {
  readonly withdrawalPolicies: WithdrawalPolicyRepository;
  readonly uow: UnitOfWork;
  readonly commands: CommandRepository;
}

const HOUR = 3_600_000;

export function aPolicy(overrides: Partial<WithdrawalPolicy> = {}): WithdrawalPolicy {
  return {
    ...emptyWithdrawalPolicy(1, T0),
    limits: { USDT: { maxAmount24h: 2n ** 70n, maxCount1h: 3, approvalThreshold: 0n }, TRX: { maxAmount24h: null, maxCount1h: null, approvalThreshold: 5n } },
    version: 1, ...overrides,
  };
}

function anEntry(overrides: Partial<AllowListEntry> = {}): AllowListEntry {
  return { userId: 1, address: addressOf(500), label: 'cold wallet', createdAt: T0, activeFrom: T0 + 24 * HOUR, ...overrides };
}

/** A PENDING withdrawal of `amount` by user 1 from its own address (each on another address: no address lock in the way). */
function aWithdrawal(n: number, amount: bigint, createdAt: number, overrides: Partial<Command> = {}): Command {
  return aCommand({
    commandNo: `W${String(n).padStart(6, '0')}`, type: COMMAND_TYPE.WITHDRAWAL, address: addressOf(1_000 + n), assetSymbol: 'USDT',
    lockedAmount: amount, params: { to_address: addressOf(2), amount: String(amount) }, createdAt, nextRunAt: createdAt, ...overrides,
  });
}

function charge(amount: bigint, at: number, limits: { maxAmount24h?: bigint | null; maxCount1h?: number | null }): VelocityCharge {
  return { userId: 1, assetSymbol: 'USDT', amount, at, maxAmount24h: limits.maxAmount24h ?? null, maxCount1h: limits.maxCount1h ?? null };
}

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return 'OK';
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

/** The WithdrawalPolicyRepository contract (core/ports/withdrawal-policy-repository.port.ts) with ChangeSet.velocity. */
export function describeWithdrawalPolicyRepositoryContract(
  name: string,
  makeSubject: MakeSubject<WithdrawalPolicyRepositorySubject>,
  options: ContractOptions<WithdrawalPolicyRepositorySubject> = {},
): void {
  const concurrency = Math.max(2, options.concurrency ?? 20);
  const numRuns = options.numRuns ?? runs(50);
  describe(`WithdrawalPolicyRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('inserts at version 1, replaces at the next version, keeps bigint limits and nulls, refuses a stale version', async () => {
      const { withdrawalPolicies } = subject();
      expect(await withdrawalPolicies.get(1)).toBeNull();
      await withdrawalPolicies.save(aPolicy());
      expect(await withdrawalPolicies.get(1)).toEqual(aPolicy());
      await expect(withdrawalPolicies.save(aPolicy())).rejects.toBeInstanceOf(ConcurrencyConflict);
      const secret = { keyId: 'k1', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' };
      const next = aPolicy({
        allowListOnly: true, limits: {}, version: 2,
        approval: { url: 'https://approve.example.com/a', pendingUrl: null, pendingSince: null, verifiedAt: T0, reviewNote: null, secret, timeoutMinutes: 5 },
      });
      await withdrawalPolicies.save(next);
      expect(await withdrawalPolicies.get(1)).toEqual(next);
      await expect(withdrawalPolicies.save({ ...next, version: 2 })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await withdrawalPolicies.get(2)).toBeNull();
    });

    it('keeps pending policy changes with their patch (bigint limits, the encrypted secret) and drops them when replaced (issue #35 item 3)', async () => {
      const { withdrawalPolicies } = subject();
      const secret = { keyId: 'k1', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' };
      const pending = aPolicy({
        pendingChanges: [
          {
            changeId: '1', requestedAt: T0, effectiveAt: T0 + 24 * HOUR, loosens: ['allow_list_only', 'limits.USDT.max_amount_24h'],
            patch: { allowListOnly: false, limits: { USDT: { maxAmount24h: 2n ** 71n, maxCount1h: null, approvalThreshold: 0n } } },
          },
          {
            changeId: '7', requestedAt: T0 + 1, effectiveAt: T0 + 1, loosens: ['approval_url', 'approval_secret'],
            patch: { approvalUrl: 'https://approve.example.com/b', approvalSecret: secret },
          },
          { changeId: '8', requestedAt: T0 + 2, effectiveAt: T0 + 3, loosens: ['approval_url'], patch: { approvalUrl: '', limits: {} } },
          // Team changes (issue #35 item 3) wait on the same row: an invitation, a role raised, 2FA off.
          {
            changeId: '9', requestedAt: T0 + 4, effectiveAt: T0 + 5, loosens: ['members.4.invited'], patch: {}, requestedBy: 12,
            team: { kind: 'member_invited', memberId: 4, email: 'ops@team.example', role: 'operator' },
          },
          {
            changeId: '10', requestedAt: T0 + 6, effectiveAt: T0 + 7, loosens: ['members.4.role'], patch: {},
            team: { kind: 'role_raised', memberId: 4, email: 'ops@team.example', from: 'viewer', to: 'approver' },
          },
          {
            changeId: '11', requestedAt: T0 + 8, effectiveAt: T0 + 9, loosens: ['users.12.two_factor'], patch: {},
            team: { kind: 'two_factor_off', userId: 12, email: 'admin@team.example', role: 'admin' },
          },
        ],
      });
      await withdrawalPolicies.save(pending);
      expect(await withdrawalPolicies.get(1)).toEqual(pending);
      const settled = { ...pending, allowListOnly: false, pendingChanges: [], version: 2 };
      await withdrawalPolicies.save(settled);
      const stored = await withdrawalPolicies.get(1);
      expect({ ...stored, pendingChanges: stored?.pendingChanges ?? [] }).toEqual(settled); // none: [] or absent
    });

    it('lists the approval URLs waiting for review, oldest pending first', async () => {
      const { withdrawalPolicies } = subject();
      const pending = (userId: number, since: number) => aPolicy({
        userId, approval: { ...aPolicy().approval, pendingUrl: `https://approve.example.com/${userId}`, pendingSince: since, secret: { keyId: 'k', iv: 'aQ==', ciphertext: 'Yw==', tag: 'dA==' } },
      });
      await withdrawalPolicies.save(pending(1, T0 + 2));
      await withdrawalPolicies.save(aPolicy({ userId: 2 }));
      await withdrawalPolicies.save(pending(3, T0 + 1));
      expect((await withdrawalPolicies.listPendingApprovalUrls()).map((p) => p.userId)).toEqual([3, 1]);
    });

    it('adds an entry once per (user, address), finds it exactly, lists oldest first and removes it at once', async () => {
      const { withdrawalPolicies } = subject();
      expect(await withdrawalPolicies.addAllowListEntry(anEntry(), 10)).toBe('created');
      expect(await withdrawalPolicies.addAllowListEntry(anEntry({ label: 'again' }), 10)).toBe('exists');
      expect(await withdrawalPolicies.addAllowListEntry(anEntry({ userId: 2 }), 10)).toBe('created');
      expect(await withdrawalPolicies.addAllowListEntry(anEntry({ address: addressOf(501), label: null, createdAt: T0 - 1 }), 10)).toBe('created');
      expect(await withdrawalPolicies.findAllowListEntry(1, addressOf(500))).toEqual(anEntry());
      expect(await withdrawalPolicies.findAllowListEntry(1, addressOf(500).toLowerCase())).toBeNull();
      expect(await withdrawalPolicies.findAllowListEntry(3, addressOf(500))).toBeNull();
      const page = await withdrawalPolicies.listAllowList(1, { offset: 0, limit: 10 });
      expect(page).toEqual({ items: [anEntry({ address: addressOf(501), label: null, createdAt: T0 - 1 }), anEntry()], total: 2 });
      expect(await withdrawalPolicies.listAllowList(1, { offset: 1, limit: 1 })).toEqual({ items: [anEntry()], total: 2 });
      expect(await withdrawalPolicies.removeAllowListEntry(1, addressOf(500))).toBe(true);
      expect(await withdrawalPolicies.removeAllowListEntry(1, addressOf(500))).toBe(false);
      expect(await withdrawalPolicies.findAllowListEntry(1, addressOf(500))).toBeNull();
      expect(await withdrawalPolicies.findAllowListEntry(2, addressOf(500))).toEqual(anEntry({ userId: 2 }));
    });

    it('keeps a withdrawal\'s approval sub-state with its command through the unit of work and replaces', async () => {
      const { uow, commands } = subject();
      const awaiting = { state: 'awaiting' as const, deadline: T0 + HOUR, attempts: 0, lastAttemptAt: null, lastRefusal: null, decidedAt: null };
      const withApproval = aWithdrawal(1, 7n, T0, { approval: awaiting });
      await uow.commit({ newCommands: [withApproval] });
      expect(await commands.get(withApproval.commandNo)).toEqual(withApproval);
      const approved = { ...withApproval, status: COMMAND_STATUS.RUNNING, version: 2, approval: { ...awaiting, state: 'approved' as const, attempts: 2, lastAttemptAt: T0 + 5, lastRefusal: null, decidedAt: T0 + 5 } };
      await commands.update(approved);
      expect(await commands.get(withApproval.commandNo)).toEqual(approved);
      const plain = aWithdrawal(2, 7n, T0);
      await uow.commit({ newCommands: [plain] });
      expect((await commands.get(plain.commandNo))!.approval ?? null).toBeNull();
    });

    it(`racing adds: one address is created once, and ${concurrency} racing addresses never pass the cap`, async () => {
      const { withdrawalPolicies } = subject();
      const same = await Promise.all(Array.from({ length: concurrency }, () => withdrawalPolicies.addAllowListEntry(anEntry(), 100)));
      expect(same.filter((o) => o === 'created')).toHaveLength(1);
      const cap = 5;
      const many = await Promise.all(Array.from({ length: concurrency }, (_, i) => withdrawalPolicies.addAllowListEntry(anEntry({ address: addressOf(600 + i) }), cap)));
      expect(many.filter((o) => o === 'created')).toHaveLength(cap - 1);
      expect((await withdrawalPolicies.listAllowList(1, { offset: 0, limit: 100 })).total).toBe(cap);
    });

    it('velocity: counts the user\'s withdrawals of the asset in the windows, skips REJECTED and CANCELLED ones, and writes nothing when refused', async () => {
      const { uow, commands } = subject();
      const at = T0 + 48 * HOUR;
      const past = [
        aWithdrawal(1, 10n, at - 24 * HOUR), // just outside 24 h
        aWithdrawal(2, 20n, at - 24 * HOUR + 1, { status: COMMAND_STATUS.FAILED }), // inside 24 h, outside 1 h: counts (FAILED may have been sent)
        aWithdrawal(3, 40n, at - HOUR + 1, { status: COMMAND_STATUS.SUCCESS }), // inside 1 h
        aWithdrawal(4, 1_000n, at - 10, { status: COMMAND_STATUS.REJECTED }),
        aWithdrawal(5, 1_000n, at - 10, { status: COMMAND_STATUS.CANCELLED }),
        aWithdrawal(6, 1_000n, at - 10, { assetSymbol: 'TRX' }),
        aWithdrawal(7, 1_000n, at - 10, { userId: 2 }),
        aWithdrawal(8, 1_000n, at - 10, { type: COMMAND_TYPE.COLLECTION }),
      ];
      for (const c of past) await commands.insert(c, { locking: false });
      // Totals: 60 in 24 h, 1 in 1 h.
      expect(await codeOf(uow.commit({ newCommands: [aWithdrawal(20, 41n, at)], velocity: charge(41n, at, { maxAmount24h: 100n }) })))
        .toBe('POLICY-VELOCITY-AMOUNT-EXCEEDED');
      expect(await codeOf(uow.commit({ newCommands: [aWithdrawal(21, 1n, at)], velocity: charge(1n, at, { maxCount1h: 1 }) })))
        .toBe('POLICY-VELOCITY-COUNT-EXCEEDED');
      expect(await commands.get('W000020')).toBeNull();
      expect(await commands.get('W000021')).toBeNull();
      expect(await codeOf(uow.commit({ newCommands: [aWithdrawal(22, 40n, at)], velocity: charge(40n, at, { maxAmount24h: 100n, maxCount1h: 2 }) })))
        .toBe('OK');
      expect(await commands.get('W000022')).not.toBeNull();
      expect(await codeOf(uow.commit({ newCommands: [aWithdrawal(23, 1n, at)], velocity: charge(1n, at, { maxAmount24h: 100n }) })))
        .toBe('POLICY-VELOCITY-AMOUNT-EXCEEDED');
      // An hour later the count window has moved past #3 and #22.
      expect(await codeOf(uow.commit({ newCommands: [aWithdrawal(24, 1n, at + HOUR)], velocity: charge(1n, at + HOUR, { maxCount1h: 1 }) })))
        .toBe('OK');
    });

    it(`velocity: ${concurrency} racing withdrawals under max_count_1h 5 and max_amount_24h 7: exactly the allowed ones land`, async () => {
      const { uow, commands } = subject();
      const attempt = (n: number, limits: Parameters<typeof charge>[2]) =>
        codeOf(uow.commit({ newCommands: [aWithdrawal(n, 1n, T0 + n)], velocity: charge(1n, T0 + n, limits) }));
      const byCount = await Promise.all(Array.from({ length: concurrency }, (_, i) => attempt(i, { maxCount1h: 5 })));
      expect(byCount.filter((c) => c === 'OK')).toHaveLength(5);
      expect(new Set(byCount.filter((c) => c !== 'OK'))).toEqual(new Set(['POLICY-VELOCITY-COUNT-EXCEEDED']));
      const byAmount = await Promise.all(Array.from({ length: concurrency }, (_, i) => attempt(100 + i, { maxAmount24h: 12n })));
      expect(byAmount.filter((c) => c === 'OK')).toHaveLength(7);
      const landed = await commands.listByUser(1, { type: COMMAND_TYPE.WITHDRAWAL }, { offset: 0, limit: 1_000 });
      expect(landed.total).toBe(12);
    });

    it('velocity, model-based: any sequence of withdrawals, cancellations and time steps is judged as the reference model judges it', async () => {
      type Op = { kind: 'withdraw'; amount: bigint; count: number | null; max: bigint | null } | { kind: 'reject'; pick: number } | { kind: 'wait'; ms: number };
      const op: fc.Arbitrary<Op> = fc.oneof(
        { arbitrary: fc.record({ kind: fc.constant('withdraw' as const), amount: fc.bigInt({ min: 1n, max: 50n }), count: fc.option(fc.integer({ min: 0, max: 4 })), max: fc.option(fc.bigInt({ min: 0n, max: 120n })) }), weight: 5 },
        { arbitrary: fc.record({ kind: fc.constant('reject' as const), pick: fc.nat() }), weight: 1 },
        { arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(1, 10 * 60_000, HOUR, 6 * HOUR, 23 * HOUR) }), weight: 2 },
      );
      await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => withSubject(makeSubject, async ({ uow, commands }) => {
        // The reference: accepted withdrawals as (time, amount, rejected), judged by plain filters over the two windows.
        const model: { at: number; amount: bigint; rejected: boolean; no: string }[] = [];
        let now = T0;
        let n = 0;
        for (const o of ops) {
          if (o.kind === 'wait') { now += o.ms; continue; }
          if (o.kind === 'reject') {
            const live = model.filter((m) => !m.rejected);
            if (live.length === 0) continue;
            const target = live[o.pick % live.length]!;
            const stored = (await commands.get(target.no))!;
            await commands.update({ ...stored, status: COMMAND_STATUS.REJECTED, version: stored.version + 1 });
            target.rejected = true;
            continue;
          }
          n += 1;
          const counted = model.filter((m) => !m.rejected);
          const count1h = counted.filter((m) => m.at > now - VELOCITY_COUNT_WINDOW_MS).length;
          const sum24h = counted.filter((m) => m.at > now - VELOCITY_AMOUNT_WINDOW_MS).reduce((s, m) => s + m.amount, 0n);
          const expected = o.count !== null && count1h >= o.count ? 'POLICY-VELOCITY-COUNT-EXCEEDED'
            : o.max !== null && sum24h + o.amount > o.max ? 'POLICY-VELOCITY-AMOUNT-EXCEEDED' : 'OK';
          const command = aWithdrawal(n, o.amount, now);
          const got = await codeOf(uow.commit({
            newCommands: [command], velocity: charge(o.amount, now, { maxCount1h: o.count, maxAmount24h: o.max }),
          }));
          expect(got).toBe(expected);
          if (got === 'OK') model.push({ at: now, amount: o.amount, rejected: false, no: command.commandNo });
          now += 1;
        }
      })), { numRuns });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
