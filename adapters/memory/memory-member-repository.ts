import type { Member } from '../../core/domain/model/member.js';
import type { UserId } from '../../core/domain/model/common.js';
import type { MemberRole } from '../../core/domain/team-roles.js';
import type { MemberRepository, TeamStanding } from '../../core/ports/member-repository.port.js';
import { JournaledMap } from './memory-scope.js';

/** In-memory MemberRepository: the reference for the contract suite (contracts-tests/member-repository.contract.ts). */
export class MemoryMemberRepository implements MemberRepository {
  private readonly members = new JournaledMap<number, Member>();

  async create(member: Member): Promise<boolean> {
    const taken = [...this.members.values()].some((m) => m.accountId === member.accountId && m.email === member.email);
    if (taken || this.members.has(member.id)) return false;
    this.members.set(member.id, { ...member });
    return true;
  }

  async listByAccount(accountId: UserId): Promise<readonly Member[]> {
    return [...this.members.values()].filter((m) => m.accountId === accountId).sort((a, b) => a.id - b.id).map((m) => ({ ...m }));
  }

  async findInvitation(email: string, invitationHash: string): Promise<Member | null> {
    const found = [...this.members.values()].find((m) => m.email === email && m.userId === null && m.invitationHash === invitationHash);
    return found === undefined ? null : { ...found };
  }

  async accept(id: number, userId: UserId, joinedAt: number): Promise<boolean> {
    const member = this.members.get(id);
    if (member === undefined || member.userId !== null) return false;
    this.members.set(id, { ...member, userId, joinedAt, invitationHash: null });
    return true;
  }

  async setRole(accountId: UserId, id: number, role: MemberRole): Promise<boolean> {
    const member = this.members.get(id);
    if (member === undefined || member.accountId !== accountId) return false;
    this.members.set(id, { ...member, role });
    return true;
  }

  async remove(accountId: UserId, id: number): Promise<Member | null> {
    const member = this.members.get(id);
    if (member === undefined || member.accountId !== accountId) return null;
    this.members.delete(id);
    return { ...member };
  }

  async standingOf(userId: UserId): Promise<TeamStanding | null> {
    for (const m of this.members.values()) if (m.userId === userId) return { accountId: m.accountId, role: m.role };
    for (const m of this.members.values()) if (m.accountId === userId) return { accountId: userId, role: 'owner' };
    return null;
  }
}
