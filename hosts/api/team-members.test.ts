/**
 * Teams (issue #35 items 1 and 2) on the memory store through the HTTP API: invitations and their codes, what an
 * admin may and may not do with members, removal ending the member's sessions, the requester never deciding their
 * own withdrawal, a denial rejecting it through the worker, and an operator cancelling only their own.
 */
import { Secret } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtpauthTotpGenerator } from '../../adapters/node/index.js';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { stepAt, TOTP_PERIOD_MS } from '../../core/domain/two-factor-rules.js';
import { TOKENS } from '../composition/tokens.js';
import { driveUntil } from '../worker/worker-drive.js';
import { expectDocumented, fails, ok, TEST_PASSWORD, userWithWallets } from './api-test-fixtures.js';
import { startHarness, type ApiHarness } from './test-harness.js';

const TRX = 1_000_000n;
const DELAY_MS = 3_600_000;
let h: ApiHarness;
const totp = new OtpauthTotpGenerator();

beforeAll(async () => {
  // An hour's delay: a member with money rights joins once their invitation's pending change takes effect.
  h = await startHarness({ env: { POLICY_CHANGE_DELAY_H: '1' } });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** Turns 2FA on; returns a code source (each code a new time step). */
async function enrol(session: string): Promise<() => string> {
  const setup = ok(await h.call('POST', '/api/auth/2fa/setup', { token: session }));
  const secret = Secret.fromBase32(new URL(setup.otpauth_uri as string).searchParams.get('secret')!).bytes;
  h.clock.advance(TOTP_PERIOD_MS);
  ok(await h.call('POST', '/api/auth/2fa/enable', { token: session, body: { password: TEST_PASSWORD, code: totp.codeAt(secret, stepAt(h.clock.now())) } }));
  // Turning 2FA on holds new destinations for POLICY_CHANGE_DELAY_H (issue #35): the tests withdraw past it.
  h.clock.advance(DELAY_MS);
  return () => {
    h.clock.advance(TOTP_PERIOD_MS);
    return totp.codeAt(secret, stepAt(h.clock.now()));
  };
}

async function join(session: string, role: string): Promise<{ memberId: number; userId: number; session: string; email: string }> {
  const email = `${role}-${Math.random().toString(36).slice(2, 8)}@team.example`;
  const answer = await h.call('POST', '/api/members', { token: session, body: { email, role } });
  // A member with money rights is a pending change (issue #35 item 3): it takes effect after the delay.
  const invited = role === 'viewer' ? ok(answer, 201) : ok(answer, 202).member;
  if (role !== 'viewer') h.clock.advance(DELAY_MS);
  const joined = ok(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD, invitation_code: h.mailer.lastCodeFor(email, 'invitation') } }), 201);
  const login = ok(await h.call('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } }));
  return { memberId: invited.member_id as number, userId: joined.user_id as number, session: login.session_token as string, email };
}

describe('team members (issue #35 item 1)', () => {
  it('a password reset with 2FA on: an operator\'s 2FA goes off only after the delay (a pending change); a viewer\'s at once', async () => {
    const owner = await userWithWallets(h);
    const reset = async (email: string) => {
      ok(await h.call('POST', '/api/auth/password-reset/request', { body: { email } }), 202);
      ok(await h.call('POST', '/api/auth/password-reset/confirm', { body: { email, code: h.mailer.lastCodeFor(email, 'password-reset'), new_password: 'a new long password' } }));
    };
    const login = (email: string) => h.call('POST', '/api/auth/login', { body: { email, password: 'a new long password' } });
    await enrol(owner.session);
    const operator = await join(owner.session, 'operator');
    await enrol(operator.session);
    await reset(operator.email);
    fails(await login(operator.email), 401, 'AUTH-TOTP-REQUIRED');
    const changes = ok(await h.call('GET', '/api/policies/changes', { token: owner.session })).items as { loosens: string[] }[];
    expect(changes.map((c) => c.loosens)).toContainEqual([`users.${operator.userId}.two_factor`]);
    h.clock.advance(DELAY_MS);
    ok(await login(operator.email));
    const viewer = await join(owner.session, 'viewer');
    await enrol(viewer.session);
    await reset(viewer.email);
    ok(await login(viewer.email));
  });

  it('an invitation: documented, its code joins once, a wrong code or a taken e-mail refused; an admin manages only the roles below admin', async () => {
    const owner = await userWithWallets(h);
    fails(await h.call('POST', '/api/members', { token: owner.session, body: { email: owner.email, role: 'viewer' } }), 409, 'MEMBER-EXISTS');
    fails(await h.call('POST', '/api/members', { token: owner.session, body: { email: 'x@team.example', role: 'owner' } }), 422, 'VALIDATION-ERROR');
    fails(await h.call('POST', '/api/auth/register', { body: { email: 'nobody@team.example', password: TEST_PASSWORD, invitation_code: 'ABCDEFGHJKMN' } }), 422, 'INVITATION-INVALID');
    const ownerCode = await enrol(owner.session);
    const admin = await join(owner.session, 'admin');
    expectDocumented(h, 'GET', '/api/members', ok(await h.call('GET', '/api/members', { token: owner.session })));
    await enrol(admin.session);
    fails(await h.call('POST', '/api/members', { token: admin.session, body: { email: 'a2@team.example', role: 'admin' } }), 403, 'TEAM-ROLE-FORBIDDEN');
    const viewer = await join(admin.session, 'viewer');
    fails(await h.call('PATCH', `/api/members/${viewer.memberId}`, { token: admin.session, body: { role: 'admin' } }), 403, 'TEAM-ROLE-FORBIDDEN');
    fails(await h.call('PATCH', `/api/members/${admin.memberId}`, { token: admin.session, body: { role: 'viewer' } }), 403, 'TEAM-ROLE-FORBIDDEN');
    // A role that may do more waits (issue #35 item 3): 202, the member keeps its role until the change takes effect.
    const raising = ok(await h.call('PATCH', `/api/members/${viewer.memberId}`, { token: admin.session, body: { role: 'operator' } }), 202);
    expect(raising).toMatchObject({ loosens: [`members.${viewer.memberId}.role`], member: { role: 'viewer' }, changes: { member: { from: 'viewer', to: 'operator' } } });
    fails(await h.call('POST', '/api/commands/999/cancel', { token: viewer.session }), 403, 'TEAM-ROLE-FORBIDDEN');
    h.clock.advance(DELAY_MS);
    const raised = ok(await h.call('GET', '/api/members', { token: admin.session })).items.find((m: { member_id: number }) => m.member_id === viewer.memberId);
    expect(raised).toMatchObject({ role: 'operator', status: 'active', user_id: viewer.userId });
    // Lowering is immediate.
    expectDocumented(h, 'PATCH', '/api/members/:memberId', ok(await h.call('PATCH', `/api/members/${viewer.memberId}`, { token: admin.session, body: { role: 'viewer' } })));
    h.clock.advance(DELAY_MS);
    ok(await h.call('PATCH', `/api/members/${viewer.memberId}`, { token: admin.session, body: { role: 'operator' } }), 202);
    h.clock.advance(DELAY_MS);
    ok(await h.call('GET', '/api/members', { token: admin.session }));
    // The viewer's session now acts as an operator; removed, it ends.
    fails(await h.call('POST', '/api/commands/999/cancel', { token: viewer.session }), 404, 'BIZ-COMMAND-NOT-FOUND');
    ok(await h.call('DELETE', `/api/members/${viewer.memberId}`, { token: owner.session }));
    fails(await h.call('GET', '/api/members', { token: viewer.session }), 401, 'UNAUTHENTICATED');
    fails(await h.call('DELETE', `/api/members/${viewer.memberId}`, { token: owner.session }), 404, 'MEMBER-NOT-FOUND');
    // The owner's own audit trail names who did what.
    const log = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: owner.session, headers: { 'x-totp-code': ownerCode() } }));
    const changes = (log.items as { action: string; actor: { kind: string; id: string | null }; detail: Record<string, unknown> }[])
      .filter((e) => e.action === 'member.role_changed').map((e) => [e.actor.kind, e.actor.id, e.detail['to'], e.detail['change_id'] !== undefined]);
    // Newest first: each raise carried out by the system when its change took effect, the lowering by the admin at once.
    expect(changes).toEqual([['system', null, 'operator', true], ['user', String(admin.userId), 'viewer', false], ['system', null, 'operator', true]]);
  });
});

describe('approvals by people (issue #35 item 2)', () => {
  it('the requester never decides their own withdrawal; a denial rejects it through the worker; an operator cancels only their own', async () => {
    const owner = await userWithWallets(h, 'pro');
    ok(await h.call('PUT', '/api/policies/withdrawal', { token: owner.session, body: { limits: { TRX: { approval_threshold: String(TRX) } } } }));
    const ownerCode = await enrol(owner.session);
    const operator = await join(owner.session, 'operator');
    const other = await join(owner.session, 'operator');
    const admin = await join(owner.session, 'admin');
    const adminCode = await enrol(admin.session);
    const to = h.devnet.info().witnesses[2]!;
    h.devnet.fund(owner.sub, 20n * TRX);
    h.devnet.mine(1);
    const transfer = async (session: string, key: string, code?: string) => ok(await h.call('POST', '/api/transfers', {
      token: session, headers: { 'idempotency-key': key, ...(code === undefined ? {} : { 'x-totp-code': code }) },
      body: { from_address: owner.sub, to_address: to, asset_symbol: 'TRX', amount: String(2n * TRX) },
    }), 201).command_no as string;

    // The owner requests: the owner may not approve it, an admin may.
    const byOwner = await transfer(owner.session, 'owner-1', ownerCode());
    fails(await h.call('POST', `/api/commands/${byOwner}/approve`, { token: owner.session, headers: { 'x-totp-code': ownerCode() } }), 403, 'APPROVAL-OWN-WITHDRAWAL');
    ok(await h.call('POST', `/api/commands/${byOwner}/cancel`, { token: owner.session }));

    // An operator requests; another operator may not cancel it; the admin denies; the worker rejects it, nothing sent.
    const byOperator = await transfer(operator.session, 'operator-1');
    fails(await h.call('POST', `/api/commands/${byOperator}/cancel`, { token: other.session }), 403, 'TEAM-ROLE-FORBIDDEN');
    const denied = ok(await h.call('POST', `/api/commands/${byOperator}/deny`, { token: admin.session, headers: { 'x-totp-code': adminCode() } }));
    expectDocumented(h, 'POST', '/api/commands/:commandNo/deny', denied);
    const core = h.container.get(TOKENS.CoreDeps);
    const executor = new CommandExecutor({ ...core }, {}, { retryMs: 30_000 });
    await driveUntil(h, [executor], async () => (await core.commands.get(byOperator))!.status !== COMMAND_STATUS.PENDING, { maxRounds: 20 });
    const rejected = (await core.commands.get(byOperator))!;
    expect({ status: rejected.status, error: rejected.errorCode, state: rejected.approval?.state, by: rejected.approval?.decidedBy })
      .toEqual({ status: COMMAND_STATUS.REJECTED, error: 'APPROVAL-DENIED', state: 'denied', by: admin.userId });
    expect(rejected.transaction).toBeNull();
    expect(await core.chain.getTrxBalance(to)).toBe(0n);
  });
});

describe('a pending policy change with two admins (issue #35 item 3)', () => {
  it('the admin who asked cannot approve it; the other admin (the owner) does, and it takes effect at once', async () => {
    const owner = await userWithWallets(h);
    ok(await h.call('PUT', '/api/policies/withdrawal', { token: owner.session, body: { limits: { TRX: { max_amount_24h: '2000000' } } } }));
    const ownerCode = await enrol(owner.session);
    const admin = await join(owner.session, 'admin');
    const adminCode = await enrol(admin.session);
    const viewer = await join(owner.session, 'viewer');
    const change = ok(await h.call('PUT', '/api/policies/withdrawal', {
      token: admin.session, headers: { 'x-totp-code': adminCode() }, body: { limits: { TRX: { max_amount_24h: '9000000' } } },
    }), 202);
    // Every member with money or control rights is mailed at once; a viewer is not.
    expect(h.mailer.policyChangesSent.filter((m) => m.notice.changeId === change.change_id && [owner.email, admin.email, viewer.email].includes(m.email)).map((m) => m.email).sort())
      .toEqual([owner.email, admin.email].sort());
    fails(await h.call('POST', `/api/policies/changes/${change.change_id}/approve`, { token: admin.session, headers: { 'x-totp-code': adminCode() } }), 403, 'POLICY-CHANGE-OWN-REQUEST');
    const approved = ok(await h.call('POST', `/api/policies/changes/${change.change_id}/approve`, { token: owner.session, headers: { 'x-totp-code': ownerCode() } }));
    expectDocumented(h, 'POST', '/api/policies/changes/:changeId/approve', approved);
    expect(approved).toMatchObject({ change_id: change.change_id, status: 'approved' });
    expect(ok(await h.call('GET', '/api/policies/withdrawal', { token: owner.session })).limits).toMatchObject({ TRX: { max_amount_24h: '9000000' } });
    expect(ok(await h.call('GET', '/api/policies/changes', { token: owner.session })).items).toEqual([]);
    const log = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: owner.session }));
    const applied = (log.items as { action: string; actor: { id: string | null }; detail: Record<string, unknown> }[]).find((e) => e.action === 'policy.change_applied')!;
    expect({ actor: applied.actor.id, by: applied.detail['requested_by'] }).toEqual({ actor: String(owner.userId), by: admin.userId });
  });
});

describe('a member\'s password reset (issue #35 items 1 and 3)', () => {
  it('holds the team account\'s withdrawals to new destinations, which the member acts on', async () => {
    const owner = await userWithWallets(h);
    await enrol(owner.session);
    const operator = await join(owner.session, 'operator');
    expect(ok(await h.call('GET', '/api/policies/withdrawal', { token: owner.session })).new_destinations_held_until).toBeNull();
    ok(await h.call('POST', '/api/auth/password-reset/request', { body: { email: operator.email } }), 202);
    ok(await h.call('POST', '/api/auth/password-reset/confirm', {
      body: { email: operator.email, code: h.mailer.lastCodeFor(operator.email, 'password-reset'), new_password: 'another long passphrase' },
    }));
    expect(ok(await h.call('GET', '/api/policies/withdrawal', { token: owner.session })).new_destinations_held_until).not.toBeNull();
  });
});

describe('team changes that loosen wait like a policy loosening (issue #35 item 3); invitations expire', () => {
  it('a member with money rights is a pending change: listed, mailed, not joinable until it takes effect, withdrawn by a cancel; a viewer is immediate and every code expires', async () => {
    const owner = await userWithWallets(h);
    await enrol(owner.session);
    const stamp = Math.random().toString(36).slice(2, 8);
    // A viewer: at once, its code valid 7 days.
    const viewerEmail = `viewer-${stamp}@team.example`;
    const viewer = ok(await h.call('POST', '/api/members', { token: owner.session, body: { email: viewerEmail, role: 'viewer' } }), 201);
    expect(Date.parse(viewer.invitation_expires_at) - Date.parse(viewer.invited_at)).toBe(7 * 24 * 3_600_000);
    const viewerCode = h.mailer.lastCodeFor(viewerEmail, 'invitation')!;

    // An operator: 202 with the pending change, listed and mailed to the owner; the code waits.
    const opEmail = `operator-${stamp}@team.example`;
    const pending = ok(await h.call('POST', '/api/members', { token: owner.session, body: { email: opEmail, role: 'operator' } }), 202);
    expectDocumented(h, 'POST', '/api/members', pending);
    expect(pending).toMatchObject({ status: 'pending', loosens: [`members.${pending.member.member_id}.invited`], member: { role: 'operator', status: 'invited' } });
    expect(Date.parse(pending.member.invitation_expires_at) - Date.parse(pending.member.invited_at)).toBe(7 * 24 * 3_600_000 + DELAY_MS);
    expect(ok(await h.call('GET', '/api/policies/changes', { token: owner.session })).items.map((c: { change_id: string }) => c.change_id)).toEqual([pending.change_id]);
    expect(h.mailer.policyChangesSent.filter((m) => m.notice.changeId === pending.change_id && m.email === owner.email)).toHaveLength(1);
    const opCode = h.mailer.lastCodeFor(opEmail, 'invitation')!;
    const register = (email: string, code: string) => h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD, invitation_code: code } });
    fails(await register(opEmail, opCode), 409, 'INVITATION-AWAITING-APPROVAL');
    // Cancelled: the invitation is withdrawn with it.
    ok(await h.call('POST', `/api/policies/changes/${pending.change_id}/cancel`, { token: owner.session }));
    fails(await register(opEmail, opCode), 422, 'INVITATION-INVALID');
    expect(ok(await h.call('GET', '/api/members', { token: owner.session })).items.map((m: { email: string }) => m.email)).toEqual([viewerEmail]);

    // An approver: after the delay the code works.
    const apEmail = `approver-${stamp}@team.example`;
    ok(await h.call('POST', '/api/members', { token: owner.session, body: { email: apEmail, role: 'approver' } }), 202);
    const apCode = h.mailer.lastCodeFor(apEmail, 'invitation')!;
    fails(await register(apEmail, apCode), 409, 'INVITATION-AWAITING-APPROVAL');
    h.clock.advance(DELAY_MS);
    ok(await register(apEmail, apCode), 201);

    // Seven days after its invitation the viewer's code is refused as a wrong one.
    h.clock.advance(7 * 24 * 3_600_000 - DELAY_MS);
    fails(await register(viewerEmail, viewerCode), 422, 'INVITATION-INVALID');
  });

  it('a team member\'s 2FA going off waits: 202, still on until the delay, cancellable; then off, sessions ended, new destinations held; a viewer\'s is at once', async () => {
    const owner = await userWithWallets(h);
    await enrol(owner.session);
    const approver = await join(owner.session, 'approver');
    const approverCode = await enrol(approver.session);
    const disable = (session: string, code: string) => h.call('POST', '/api/auth/2fa/disable', { token: session, body: { password: TEST_PASSWORD, code } });
    const first = ok(await disable(approver.session, approverCode()), 202);
    expectDocumented(h, 'POST', '/api/auth/2fa/disable', first);
    expect(first).toMatchObject({ loosens: [`users.${approver.userId}.two_factor`], changes: { two_factor: { user_id: approver.userId, enabled: false } } });
    // Still on: login needs a code, and the session stays.
    fails(await h.call('POST', '/api/auth/login', { body: { email: approver.email, password: TEST_PASSWORD } }), 401, 'AUTH-TOTP-REQUIRED');
    ok(await h.call('POST', `/api/policies/changes/${first.change_id}/cancel`, { token: owner.session }));
    h.clock.advance(DELAY_MS);
    fails(await h.call('POST', '/api/auth/login', { body: { email: approver.email, password: TEST_PASSWORD } }), 401, 'AUTH-TOTP-REQUIRED');

    ok(await disable(approver.session, approverCode()), 202);
    h.clock.advance(DELAY_MS);
    const policy = ok(await h.call('GET', '/api/policies/changes', { token: owner.session }));
    expect(policy.items).toEqual([]);
    fails(await h.call('GET', '/api/members', { token: approver.session }), 401, 'UNAUTHENTICATED');
    ok(await h.call('POST', '/api/auth/login', { body: { email: approver.email, password: TEST_PASSWORD } }));
    expect(ok(await h.call('GET', '/api/policies/withdrawal', { token: owner.session })).new_destinations_held_until).not.toBeNull();

    // A viewer's 2FA is its own: off at once, with the 200 answer.
    const viewer = await join(owner.session, 'viewer');
    const viewerCode = await enrol(viewer.session);
    expect(ok(await disable(viewer.session, viewerCode()))).toMatchObject({ enabled: false });
  });

  it('a member\'s sign-ins and second-factor changes appear in the account\'s log too, naming the member (issue #35 item 8)', async () => {
    const owner = await userWithWallets(h);
    await enrol(owner.session);
    const approver = await join(owner.session, 'approver');
    await enrol(approver.session);
    fails(await h.call('POST', '/api/auth/login', { body: { email: approver.email, password: 'wrong password 123' } }), 401, 'AUTH-INVALID-CREDENTIALS');
    const log = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: owner.session }));
    const theirs = (log.items as { action: string; actor: { id: string | null }; detail: Record<string, unknown> }[])
      .filter((e) => e.actor.id === String(approver.userId) && e.action.startsWith('auth.'));
    expect(theirs.map((e) => [e.action, e.detail['member_role']]).reverse()).toEqual([
      ['auth.login', 'approver'], ['auth.2fa_setup', 'approver'], ['auth.2fa_enabled', 'approver'], ['auth.login_failed', 'approver'],
    ]);
  });

  it('with two admins another admin approves a team change at once: an invitation joins, a 2FA disable takes effect; nobody approves their own', async () => {
    const owner = await userWithWallets(h);
    const ownerCode = await enrol(owner.session);
    const admin = await join(owner.session, 'admin');
    const adminCode = await enrol(admin.session);
    const email = `approved-${Math.random().toString(36).slice(2, 8)}@team.example`;
    const invited = ok(await h.call('POST', '/api/members', { token: admin.session, body: { email, role: 'operator' } }), 202);
    fails(await h.call('POST', `/api/policies/changes/${invited.change_id}/approve`, { token: admin.session, headers: { 'x-totp-code': adminCode() } }), 403, 'POLICY-CHANGE-OWN-REQUEST');
    expect(ok(await h.call('POST', `/api/policies/changes/${invited.change_id}/approve`, { token: owner.session, headers: { 'x-totp-code': ownerCode() } })))
      .toMatchObject({ status: 'approved', changes: { member: { email, role: 'operator' } } });
    ok(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD, invitation_code: h.mailer.lastCodeFor(email, 'invitation') } }), 201);

    const off = ok(await h.call('POST', '/api/auth/2fa/disable', { token: admin.session, body: { password: TEST_PASSWORD, code: adminCode() } }), 202);
    ok(await h.call('POST', `/api/policies/changes/${off.change_id}/approve`, { token: owner.session, headers: { 'x-totp-code': ownerCode() } }));
    fails(await h.call('GET', '/api/members', { token: admin.session }), 401, 'UNAUTHENTICATED');
    ok(await h.call('POST', '/api/auth/login', { body: { email: admin.email, password: TEST_PASSWORD } }));
  });
});
