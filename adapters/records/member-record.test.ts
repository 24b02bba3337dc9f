import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Member } from '../../core/domain/model/member.js';
import { MEMBER_ROLES } from '../../core/domain/team-roles.js';
import { fromStoredMember, toStoredMember } from './member-record.js';

const member: fc.Arbitrary<Member> = fc.record({
  id: fc.integer({ min: 1 }), accountId: fc.integer({ min: 1 }), email: fc.emailAddress(), role: fc.constantFrom(...MEMBER_ROLES),
  invitationHash: fc.option(fc.string({ minLength: 1, maxLength: 64 }), { nil: null }), invitedAt: fc.nat(),
  userId: fc.option(fc.integer({ min: 1 }), { nil: null }), joinedAt: fc.option(fc.nat(), { nil: null }),
});

describe('member record codec (issue #35, the document stores\' members)', () => {
  it('property: a member survives the stored form, through JSON as a document store keeps it', () => {
    fc.assert(fc.property(member, (m) => {
      expect(fromStoredMember(JSON.parse(JSON.stringify(toStoredMember(m))))).toEqual(m);
    }));
  });

  it('absent optional fields read as null; an unknown role is corrupted data, never a member', () => {
    const stored = toStoredMember({ id: 3, accountId: 1, email: 'a@b.example', role: 'viewer', invitationHash: 'h', invitedAt: 5, userId: null, joinedAt: null });
    const { userId: _u, joinedAt: _j, ...partial } = stored;
    expect(fromStoredMember(partial as typeof stored)).toMatchObject({ userId: null, joinedAt: null });
    expect(() => fromStoredMember({ ...stored, role: 'owner' })).toThrow(/unknown role/);
  });
});
