import { DomainError, validationError } from '../domain/errors.js';
import type { UserId } from '../domain/model/common.js';
import type { Member } from '../domain/model/member.js';
import { isMemberRole, MEMBER_ROLES, mayManage, type MemberRole, type TeamRole } from '../domain/team-roles.js';
import { formatIsoTime } from '../domain/time.js';
import type { MemberRepository, TeamStanding } from '../ports/member-repository.port.js';
import type { PendingPolicyChange } from '../domain/model/withdrawal-policy.js';
import { pendingChangesOf } from '../domain/policy-change.js';
import { invitationExpiresAt, inviteLoosens, roleChangeLoosens } from '../domain/team-changes.js';
import { actingMember } from './acting-member.js';
import { requestTeamChange, settledPolicy } from './policy-changes.js';
import { changeView, type PolicyChangeView } from './withdrawal-policies.service.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, parseIdParam, requireString } from './input.js';
import type { RegisteredView } from './views.js';

/** A member as GET /members shows it (issue #35 item 1). */
export interface MemberView {
  readonly member_id: number;
  readonly email: string;
  readonly role: MemberRole;
  /** `invited` until the invitee registers with the code, then `active`. */
  readonly status: 'invited' | 'active';
  readonly user_id: number | null;
  readonly invited_at: string;
  readonly joined_at: string | null;
  /** Extension (issue #35): when the invitation code stops working; null once joined. */
  readonly invitation_expires_at: string | null;
}

/**
 * The 202 of an invitation or a role change that loosens (issue #35 item 3): the pending change, and the member as it
 * stands now (invited and not yet able to join; or with the role it had).
 */
export interface MemberChangeRequestedView extends PolicyChangeView {
  readonly member: MemberView;
}

/** The ports the team use cases touch; `members` absent (a store without teams): TEAMS-UNAVAILABLE. */
export type MembersDeps = Pick<ResolvedDeps, 'accounts' | 'sessions' | 'hasher' | 'mailer' | 'clock' | 'ids' | 'auditLog' | 'uow' | 'settings'>
  & Partial<Pick<ResolvedDeps, 'members' | 'withdrawalPolicies'>>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Crockford's base32, as the reset codes: 12 symbols, 60 bits, typed from a mail. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 12;

function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

function toMemberView(m: Member, policyChangeDelayMs: number): MemberView {
  return {
    member_id: m.id, email: m.email, role: m.role, status: m.userId === null ? 'invited' : 'active', user_id: m.userId,
    invited_at: formatIsoTime(m.invitedAt), joined_at: m.joinedAt === null ? null : formatIsoTime(m.joinedAt),
    invitation_expires_at: m.userId === null ? formatIsoTime(invitationExpiresAt(m.invitedAt, m.role, policyChangeDelayMs)) : null,
  };
}

function parseRole(fields: Readonly<Record<string, unknown>>): MemberRole {
  const role = fields['role'];
  if (!isMemberRole(role)) throw validationError('role', `must be one of ${MEMBER_ROLES.join(', ')}`);
  return role;
}

/**
 * Teams (issue #35 item 1): the owner (or an admin, for the roles below admin) invites by e-mail, lists, changes a
 * role and removes; an invitee joins by registering with the mailed code. Every change is audited, naming the member
 * who made it (AuditTrail reads the acting member).
 */
export class MembersUseCases {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: MembersDeps) {
    this.audit = new AuditTrail(deps);
  }

  /** Where a session's user stands (null: a solo account's owner, or no team at all). */
  standingOf(userId: UserId): Promise<TeamStanding | null> {
    return this.deps.members?.standingOf(userId) ?? Promise.resolve(null);
  }

  /** The members, after every due team change is carried out (a role raised whose delay has passed shows raised). */
  async list(accountId: UserId): Promise<{ readonly items: readonly MemberView[] }> {
    const repo = this.repo();
    await this.settle(accountId);
    return { items: (await repo.listByAccount(accountId)).map((m) => this.view(m)) };
  }

  /**
   * body {email, role}: mails an invitation code; 201 with the member (status invited). A member with money rights
   * (admin, approver, operator) is a loosening (issue #35 item 3): the invitation and its pending change are stored
   * together and the answer is the pending change with the member; the code works once the change takes effect
   * (approved by another admin, or after POLICY_CHANGE_DELAY_H), and a cancel withdraws the invitation.
   */
  async invite(accountId: UserId, body: unknown): Promise<MemberView | MemberChangeRequestedView> {
    const repo = this.repo();
    const fields = fieldsOf(body);
    const email = requireString(fields, 'email', 254).toLowerCase();
    if (!EMAIL.test(email)) throw validationError('email', 'must be an e-mail address');
    const role = parseRole(fields);
    if (!mayManage(this.actorRole(), role)) throw new DomainError('TEAM-ROLE-FORBIDDEN', { message: `your role may not invite a member as ${role}` });
    const owner = await this.deps.accounts.findById(accountId);
    const existing = await this.deps.accounts.findByEmail(email);
    // A member logs in with an account of their own made by accepting; one e-mail, one login.
    if (owner === null || owner.email === email || (existing !== null && existing.verified)) throw new DomainError('MEMBER-EXISTS');
    const code = [...this.deps.ids.randomBytes(CODE_LENGTH)].map((b) => CODE_ALPHABET[b & 31]).join('');
    const member: Member = {
      id: await this.deps.ids.nextInt('member'), accountId, email, role, invitationHash: this.deps.hasher.hashToken(code),
      invitedAt: this.deps.clock.now(), userId: null, joinedAt: null,
    };
    const invited = { userId: accountId, action: 'member.invited' as const, actor: { kind: 'user' as const, id: null }, detail: { member_id: member.id, email, role } };
    if (inviteLoosens(role)) {
      const change = await requestTeamChange(this.changeDeps(), accountId, () => ({ kind: 'member_invited', memberId: member.id, email, role }), async () => {
        if (!(await repo.create(member))) throw new DomainError('MEMBER-EXISTS');
        return [invited];
      });
      await this.deps.mailer.sendInvitationCode(email, code, { accountEmail: owner.email, role });
      return { ...changeView(change), member: this.view(member) };
    }
    const created = await this.audit.recordWith(() => repo.create(member), (ok) => (ok ? invited : []));
    if (!created) throw new DomainError('MEMBER-EXISTS');
    await this.deps.mailer.sendInvitationCode(email, code, { accountEmail: owner.email, role });
    return this.view(member);
  }

  /**
   * body {role}: the new role of member `memberId`. A role that may do something the old one could not is a loosening
   * (issue #35 item 3): it becomes a pending change and the answer is that change with the member as it stands; a
   * lowering is immediate.
   */
  async changeRole(accountId: UserId, memberId: string, body: unknown): Promise<MemberView | MemberChangeRequestedView> {
    const repo = this.repo();
    const role = parseRole(fieldsOf(body));
    const member = await this.memberOf(accountId, memberId);
    const actor = this.actorRole();
    if (!mayManage(actor, member.role) || !mayManage(actor, role)) throw new DomainError('TEAM-ROLE-FORBIDDEN', { message: 'your role may not give or take this role' });
    if (roleChangeLoosens(member.role, role)) {
      const change = await requestTeamChange(this.changeDeps(), accountId, () => ({
        kind: 'role_raised', memberId: member.id, email: member.email, from: member.role, to: role,
      }));
      return { ...changeView(change), member: this.view(member) };
    }
    await this.audit.recordWith(() => repo.setRole(accountId, member.id, role), () => ({
      userId: accountId, action: 'member.role_changed', actor: { kind: 'user', id: null },
      detail: { member_id: member.id, email: member.email, from: member.role, to: role },
    }));
    return this.view({ ...member, role });
  }

  /** Removes member `memberId` and ends every session of theirs. */
  async remove(accountId: UserId, memberId: string): Promise<MemberView> {
    const repo = this.repo();
    const member = await this.memberOf(accountId, memberId);
    if (!mayManage(this.actorRole(), member.role)) throw new DomainError('TEAM-ROLE-FORBIDDEN', { message: 'your role may not remove this member' });
    const removed = await this.audit.recordWith(async () => {
      const gone = await repo.remove(accountId, member.id);
      if (gone?.userId != null) await this.deps.sessions.revokeAllOfUser(gone.userId, this.deps.clock.now());
      return gone;
    }, (gone) => (gone === null ? [] : {
      userId: accountId, action: 'member.removed', actor: { kind: 'user', id: null }, detail: { member_id: member.id, email: member.email, role: member.role },
    }));
    if (removed === null) throw new DomainError('MEMBER-NOT-FOUND');
    return this.view(removed);
  }

  /**
   * Accepts an invitation (POST /auth/register with invitation_code): a verified account of the invitee's own (the
   * code came to the invited address, so it proves the e-mail) joined to the team, in one atomic scope with the
   * account's audit entry. A wrong, used or removed code is INVITATION-INVALID; an e-mail that has an account is MEMBER-EXISTS.
   */
  async accept(email: string, passwordHash: string, code: string): Promise<RegisteredView> {
    const repo = this.repo();
    const member = await repo.findInvitation(email, this.deps.hasher.hashToken(normalizeCode(code)));
    if (member === null) throw new DomainError('INVITATION-INVALID');
    // An invitation expires (issue #35): refused exactly as a wrong code.
    if (this.deps.clock.now() >= invitationExpiresAt(member.invitedAt, member.role, this.deps.settings.policyChangeDelayMs)) {
      throw new DomainError('INVITATION-INVALID');
    }
    // A member with money rights joins once their invitation's pending change has taken effect (issue #35 item 3).
    const waiting = await this.pendingInvitation(member);
    if (waiting !== null) {
      throw new DomainError('INVITATION-AWAITING-APPROVAL', { message: `the invitation takes effect at ${formatIsoTime(waiting.effectiveAt)} unless an admin cancels it first` });
    }
    if ((await this.deps.accounts.findByEmail(email))?.verified === true) throw new DomainError('MEMBER-EXISTS');
    const id = await this.deps.ids.nextInt('user');
    const now = this.deps.clock.now();
    await this.audit.recordWith(async () => {
      if (!(await repo.accept(member.id, id, now))) throw new DomainError('INVITATION-INVALID');
      if (!(await this.deps.accounts.create({
        id, email, passwordHash, verified: true, verificationCodeHash: null, verificationExpiresAt: null, verificationAttempts: 0, createdAt: now, version: 1,
      }))) throw new DomainError('MEMBER-EXISTS');
    }, () => ({
      userId: member.accountId, action: 'member.joined', actor: { kind: 'user', id: String(id) },
      detail: { member_id: member.id, email, role: member.role },
    }));
    return { user_id: id, email };
  }

  /** The pending change an invitation waits for, if any (due changes are carried out first). */
  private async pendingInvitation(member: Member): Promise<PendingPolicyChange | null> {
    const policy = await this.settle(member.accountId);
    const waiting = policy === null ? undefined
      : pendingChangesOf(policy).find((c) => c.team?.kind === 'member_invited' && c.team.memberId === member.id);
    return waiting ?? null;
  }

  /** Carries out the account's due changes, team ones included (policy-changes.ts); null without a policy store. */
  private async settle(accountId: UserId) {
    const { withdrawalPolicies } = this.deps;
    return withdrawalPolicies === undefined ? null : settledPolicy({ ...this.deps, withdrawalPolicies }, accountId);
  }

  private changeDeps() {
    const { withdrawalPolicies } = this.deps;
    if (withdrawalPolicies === undefined) throw new DomainError('TEAMS-UNAVAILABLE');
    return { ...this.deps, withdrawalPolicies };
  }

  private view(member: Member): MemberView {
    return toMemberView(member, this.deps.settings.policyChangeDelayMs);
  }

  private repo(): MemberRepository {
    if (this.deps.members === undefined) throw new DomainError('TEAMS-UNAVAILABLE');
    return this.deps.members;
  }

  /** The acting member's role; a session without one is the account's owner. */
  private actorRole(): TeamRole {
    return actingMember()?.role ?? 'owner';
  }

  private async memberOf(accountId: UserId, raw: string): Promise<Member> {
    const id = parseIdParam(raw, 'memberId');
    const member = id === null ? undefined : (await this.repo().listByAccount(accountId)).find((m) => m.id === id);
    if (member === undefined) throw new DomainError('MEMBER-NOT-FOUND');
    return member;
  }
}
