/**
 * Teams and approvals by people (issue #35 items 1 and 2) end to end on PostgreSQL: the composed API on the store,
 * the command executor on the same store and the devnet through real tronweb. An owner invites an operator and an
 * approver, each joins with the mailed code and logs in with their own password; the operator requests a withdrawal
 * above the approval threshold (no approval_url is set: people are the approvers), cannot approve it, the approver
 * approves it with a step-up code, and the worker pays it once. The audit log names both members.
 */
import { randomBytes } from 'node:crypto';
import { Secret } from 'otpauth';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OtpauthTotpGenerator } from '../../adapters/node/index.js';
import { connectPostgres, type PostgresConnection } from '../../adapters/postgres/index.js';
import { createTestDatabase, type PostgresTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { stepAt, TOTP_PERIOD_MS } from '../../core/domain/two-factor-rules.js';
import { TOKENS } from '../composition/tokens.js';
import { driveUntil } from '../worker/worker-drive.js';
import { fails, ok, TEST_PASSWORD, userWithWallets, type TestUser } from './api-test-fixtures.js';
import { startHarness, type ApiHarness } from './test-harness.js';

const TRX = 1_000_000n;

describeWithPostgres('teams on PostgreSQL: an operator requests, an approver approves, paid once (issue #35)', (serverUrl) => {
  let database: PostgresTestDatabase;
  let connection: PostgresConnection;
  let h: ApiHarness;
  const totp = new OtpauthTotpGenerator();

  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, 'teams');
    connection = await connectPostgres(database.url, { migrate: true });
    h = await startHarness({ postgres: connection, env: {
      STORE: 'postgres', DATABASE_URL: database.url, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), POLICY_CHANGE_DELAY_H: '1',
    } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await connection?.close();
    await database?.drop();
  });

  /** Turns 2FA on for the session's own user; returns a function giving a fresh code (each a new time step). */
  async function enrol(session: string): Promise<() => string> {
    const setup = ok(await h.call('POST', '/api/auth/2fa/setup', { token: session }));
    const secret = Secret.fromBase32(new URL(setup.otpauth_uri as string).searchParams.get('secret')!).bytes;
    ok(await h.call('POST', '/api/auth/2fa/enable', { token: session, body: { password: TEST_PASSWORD, code: totp.codeAt(secret, stepAt(h.clock.now())) } }));
    return () => {
      h.clock.advance(TOTP_PERIOD_MS);
      return totp.codeAt(secret, stepAt(h.clock.now()));
    };
  }

  /** Invites `email` as `role` and joins with the mailed code; returns the member's id and session. */
  async function join(owner: TestUser, email: string, role: string, code?: string): Promise<{ memberId: number; userId: number; session: string }> {
    // A member with money rights is a pending change (issue #35 item 3), stored on the policy row: it waits the delay.
    const change = ok(await h.call('POST', '/api/members', { token: owner.session, body: { email, role }, ...(code === undefined ? {} : { headers: { 'x-totp-code': code } }) }), 202);
    const invited = change.member;
    expect(invited).toMatchObject({ email, role, status: 'invited', user_id: null });
    expect(ok(await h.call('GET', '/api/policies/changes', { token: owner.session })).items.map((c: { change_id: string }) => c.change_id)).toContain(change.change_id);
    const invitation = h.mailer.lastCodeFor(email, 'invitation')!;
    fails(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD, invitation_code: invitation } }), 409, 'INVITATION-AWAITING-APPROVAL');
    h.clock.advance(3_600_000);
    const joined = ok(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD, invitation_code: invitation } }), 201);
    fails(await h.call('POST', '/api/auth/register', { body: { email, password: TEST_PASSWORD, invitation_code: invitation } }), 422, 'INVITATION-INVALID');
    const login = ok(await h.call('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } }));
    return { memberId: invited.member_id as number, userId: joined.user_id as number, session: login.session_token as string };
  }

  it('two members: the operator cannot approve its own withdrawal, the approver does, it is paid once, the audit log names both', { timeout: 120_000 }, async () => {
    const owner = await userWithWallets(h, 'pro');
    const from = owner.sub;
    const to = h.devnet.info().witnesses[2]!;
    h.devnet.fund(from, 20n * TRX);
    h.devnet.mine(1);
    // A solo owner sets a threshold (a tightening: at once); with no approval_url, a withdrawal above it cannot be asked.
    ok(await h.call('PUT', '/api/policies/withdrawal', { token: owner.session, body: { limits: { TRX: { approval_threshold: String(TRX) } } } }));

    const operator = await join(owner, 'operator@team.example', 'operator');
    // Now the account has members: the owner needs 2FA for anything but reads.
    fails(await h.call('POST', '/api/members', { token: owner.session, body: { email: 'approver@team.example', role: 'approver' } }), 403, 'TEAM-2FA-REQUIRED');
    const ownerCode = await enrol(owner.session);
    const approver = await join(owner, 'approver@team.example', 'approver', ownerCode());
    const members = ok(await h.call('GET', '/api/members', { token: owner.session }));
    expect(members.items.map((m: { role: string; status: string }) => [m.role, m.status])).toEqual([['operator', 'active'], ['approver', 'active']]);

    // The operator acts on the account's wallets; it may not change the policy.
    fails(await h.call('PUT', '/api/policies/withdrawal', { token: operator.session, body: { limits: {} } }), 403, 'TEAM-ROLE-FORBIDDEN');
    const accepted = ok(await h.call('POST', '/api/transfers', {
      token: operator.session, headers: { 'idempotency-key': 'team-withdrawal-1' },
      body: { from_address: from, to_address: to, asset_symbol: 'TRX', amount: String(3n * TRX) },
    }), 201);
    const commandNo = accepted.command_no as string;
    expect(ok(await h.call('GET', `/api/commands/${commandNo}`, { token: owner.apiToken })).approval).toMatchObject({ state: 'awaiting' });

    const awaiting = ok(await h.call('GET', '/api/approvals', { token: approver.session }));
    expect(awaiting.items.map((c: { command_no: string; approval: { requested_by: number } }) => [c.command_no, c.approval.requested_by])).toEqual([[commandNo, operator.userId]]);
    // The operator may not approve (its role), nor may an approver without 2FA; the approver with 2FA and a code does.
    fails(await h.call('POST', `/api/commands/${commandNo}/approve`, { token: operator.session }), 403, 'TEAM-ROLE-FORBIDDEN');
    fails(await h.call('POST', `/api/commands/${commandNo}/approve`, { token: approver.session }), 403, 'TEAM-2FA-REQUIRED');
    const approverCode = await enrol(approver.session);
    fails(await h.call('POST', `/api/commands/${commandNo}/approve`, { token: approver.session }), 403, 'AUTH-STEP-UP-REQUIRED');
    const approved = ok(await h.call('POST', `/api/commands/${commandNo}/approve`, { token: approver.session, headers: { 'x-totp-code': approverCode() } }));
    expect(approved.approval).toMatchObject({ state: 'approved', requested_by: operator.userId, decided_by: approver.userId });
    fails(await h.call('POST', `/api/commands/${commandNo}/deny`, { token: owner.session, headers: { 'x-totp-code': ownerCode() } }), 409, 'APPROVAL-NOT-AWAITING');

    const core = h.container.get(TOKENS.CoreDeps);
    const executor = new CommandExecutor({ ...core }, {}, { retryMs: 30_000 });
    const ended = async () => (await core.commands.get(commandNo))!.status === COMMAND_STATUS.SUCCESS;
    await driveUntil(h, [executor], ended, { maxRounds: 60 });
    h.devnet.mine(1);
    expect(await core.chain.getTrxBalance(to)).toBe(3n * TRX);
    // Run on: nothing more is sent.
    for (let i = 0; i < 3; i++) await executor.runDue();
    h.devnet.mine(1);
    expect(await core.chain.getTrxBalance(to)).toBe(3n * TRX);

    const log = ok(await h.call('GET', '/api/audit-log?per_page=100', { token: owner.session }));
    const entries = log.items as { action: string; actor: { kind: string; id: string | null }; detail: Record<string, unknown> }[];
    const requested = entries.find((e) => e.action === 'withdrawal.requested' && e.detail['command_no'] === commandNo)!;
    const decided = entries.find((e) => e.action === 'withdrawal.approved' && e.detail['command_no'] === commandNo)!;
    expect(requested.actor).toEqual({ kind: 'user', id: String(operator.userId) });
    expect(decided.actor).toEqual({ kind: 'user', id: String(approver.userId) });
    expect(decided.detail).toMatchObject({ requested_by: operator.userId, decided_by: approver.userId });
    expect(entries.filter((e) => e.action === 'member.joined').map((e) => e.actor.id).sort()).toEqual([String(operator.userId), String(approver.userId)].sort());
  });
});
