import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Member } from '../core/domain/model/member.js';
import { MEMBER_ROLES } from '../core/domain/team-roles.js';
import type { MemberRepository } from '../core/ports/member-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';

/** What the member contract needs: an empty repository. */
export interface MemberRepositorySubject extends Closable {
  readonly members: MemberRepository;
}

const T0 = 1_767_225_600_000;

/** A pending invitation of account 1; `over` changes fields. */
export function anInvitation(over: Partial<Member> = {}): Member {
  return { id: 1, accountId: 1, email: 'ops@example.com', role: 'operator', invitationHash: 'c1'.repeat(32), invitedAt: T0, userId: null, joinedAt: null, ...over };
}

/** The MemberRepository contract (core/ports/member-repository.port.ts); a fresh, empty subject per test. */
export function describeMemberRepositoryContract(
  name: string,
  makeSubject: MakeSubject<MemberRepositorySubject>,
  options: ContractOptions<MemberRepositorySubject> = {},
): void {
  describe(`MemberRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('creates an invitation once per account and e-mail; lists an account\'s members by id', async () => {
      const { members } = subject();
      expect(await members.create(anInvitation({ id: 2 }))).toBe(true);
      expect(await members.create(anInvitation({ id: 3 }))).toBe(false);
      expect(await members.create(anInvitation({ id: 4, email: 'b@example.com', role: 'viewer' }))).toBe(true);
      expect(await members.create(anInvitation({ id: 5, accountId: 9 }))).toBe(true);
      expect(await members.listByAccount(1)).toEqual([anInvitation({ id: 2 }), anInvitation({ id: 4, email: 'b@example.com', role: 'viewer' })]);
      expect(await members.listByAccount(7)).toEqual([]);
    });

    it('finds a pending invitation by e-mail and code hash only; accept joins it once and clears the code', async () => {
      const { members } = subject();
      await members.create(anInvitation());
      expect(await members.findInvitation('ops@example.com', '00'.repeat(32))).toBeNull();
      expect(await members.findInvitation('other@example.com', 'c1'.repeat(32))).toBeNull();
      expect(await members.findInvitation('ops@example.com', 'c1'.repeat(32))).toEqual(anInvitation());
      expect(await members.accept(1, 42, T0 + 5)).toBe(true);
      expect(await members.accept(1, 43, T0 + 6)).toBe(false);
      expect(await members.findInvitation('ops@example.com', 'c1'.repeat(32))).toBeNull();
      expect(await members.listByAccount(1)).toEqual([anInvitation({ userId: 42, joinedAt: T0 + 5, invitationHash: null })]);
    });

    it('the standing of a user: a member\'s account and role, an owner with members as owner, anyone else null', async () => {
      const { members } = subject();
      expect(await members.standingOf(1)).toBeNull();
      await members.create(anInvitation());
      expect(await members.standingOf(1)).toEqual({ accountId: 1, role: 'owner' });
      expect(await members.standingOf(42)).toBeNull();
      await members.accept(1, 42, T0 + 5);
      expect(await members.standingOf(42)).toEqual({ accountId: 1, role: 'operator' });
      expect(await members.setRole(1, 1, 'approver')).toBe(true);
      expect(await members.setRole(2, 1, 'viewer')).toBe(false);
      expect(await members.standingOf(42)).toEqual({ accountId: 1, role: 'approver' });
      expect(await members.remove(2, 1)).toBeNull();
      expect(await members.remove(1, 1)).toEqual(anInvitation({ role: 'approver', userId: 42, joinedAt: T0 + 5, invitationHash: null }));
      expect(await members.standingOf(42)).toBeNull();
      expect(await members.standingOf(1)).toBeNull();
    });

    it('of parallel accepts of one invitation exactly one wins', async () => {
      const { members } = subject();
      await members.create(anInvitation());
      const n = options.concurrency ?? 20;
      const results = await Promise.all(Array.from({ length: n }, (_, i) => members.accept(1, 100 + i, T0 + i)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('property: listByAccount and standingOf agree with the invitations made and joined', async () => {
      const invitation = fc.record({ accountId: fc.integer({ min: 1, max: 3 }), email: fc.constantFrom('a@x.io', 'b@x.io', 'c@x.io'), role: fc.constantFrom(...MEMBER_ROLES), join: fc.boolean() });
      await fc.assert(fc.asyncProperty(fc.array(invitation, { maxLength: 8 }), async (plan) => {
        await withSubject(makeSubject, async ({ members }) => {
          const kept: Member[] = [];
          for (const [i, p] of plan.entries()) {
            const m = anInvitation({ id: i + 1, accountId: p.accountId, email: p.email, role: p.role });
            const fresh = !kept.some((k) => k.accountId === m.accountId && k.email === m.email);
            expect(await members.create(m)).toBe(fresh);
            if (!fresh) continue;
            const joined = p.join ? { ...m, userId: 100 + i, joinedAt: T0 + i, invitationHash: null } : m;
            if (p.join) await members.accept(m.id, 100 + i, T0 + i);
            kept.push(joined);
          }
          for (const account of [1, 2, 3]) {
            expect(await members.listByAccount(account)).toEqual(kept.filter((k) => k.accountId === account));
            expect(await members.standingOf(account)).toEqual(kept.some((k) => k.accountId === account) ? { accountId: account, role: 'owner' } : null);
          }
          for (const k of kept.filter((m) => m.userId !== null)) expect(await members.standingOf(k.userId!)).toEqual({ accountId: k.accountId, role: k.role });
        });
      }), { numRuns: options.numRuns ?? runs(50) });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
