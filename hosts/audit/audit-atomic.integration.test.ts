/**
 * Issue #26, decision 144: on PostgreSQL an audited action and its audit entry land together or not at all. Every
 * action the API records is run through the real use cases on the real store with the audit append failing (a store
 * that dies at that moment: the connection lost, the process killed): the account's rows are exactly as before and
 * the log holds no new entry. Run again with the append working, the action lands with its entry and the chain
 * verifies. With the entry written after the action (the code before decision 144) every case here fails: the action
 * stands without its entry. audit-crash.integration.test.ts shows the same with a SIGKILLed process.
 */
import { Secret } from 'otpauth';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeAtomicScopeContract } from '../../contracts-tests/atomic-scope.contract.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import type { Application } from '../../core/application/index.js';
import { verifyStoredAuditChain } from '../../core/application/audit-verifier.js';
import { subscribeAll, signUp, TEST_PASSWORD } from '../../core/application/testing/user-journeys.js';
import { approvalSecretFingerprint } from '../../core/domain/approval.js';
import { StoreError } from '../../core/domain/errors.js';
import type { AuditAction } from '../../core/domain/model/audit.js';
import { stepAt } from '../../core/domain/two-factor-rules.js';
import { ManualClock, type RecordingMailer } from '../../adapters/memory/index.js';
import { AesGcmKeyCipher, OtpauthTotpGenerator } from '../../adapters/node/index.js';
import { createDevnetChainGateway } from '../../adapters/tron/index.js';
import { CommandExecutor } from '../../core/application/worker/command-executor.js';
import { createAssetRegistry } from '../../core/domain/assets.js';
import { COMMAND_STATUS } from '../../core/domain/model/command.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { createPostgresAdapters } from '../../adapters/postgres/index.js';
import { buildPgTestApplication, hookedAuditLog } from './pg-test-application.js';
import { usePgTestStore } from '../../adapters/postgres/testing/pg-test-store.js';

const totp = new OtpauthTotpGenerator();
const TABLES = ['sessions', 'api_tokens', 'developer_configs', 'withdrawal_policies', 'allow_list_entries', 'commands', 'subscriptions'] as const;

/** What an action needs of the world it runs in. */
interface World {
  readonly app: Application;
  readonly clock: ManualClock;
  readonly mailer: RecordingMailer;
  readonly userId: number;
  readonly email: string;
  readonly main: string;
  /** The account's TOTP secret, once `setUpTwoFactor` ran. */
  secret: Uint8Array | null;
}

const gate = async (): Promise<void> => undefined;
const DAY = 24 * 3_600_000;

async function setUpTwoFactor(w: World): Promise<void> {
  const { otpauth_uri } = await w.app.twoFactor.setup(w.userId);
  w.secret = Secret.fromBase32(new URL(otpauth_uri).searchParams.get('secret')!).bytes;
}

/** A current code the account has not used yet: the clock moves one step first. */
function freshCode(w: World): string {
  w.clock.advance(30_000);
  return totp.codeAt(w.secret!, stepAt(w.clock.now()));
}

/** Every audited action of the API (decision 132's list), its setup, and the entries it must land with. */
const ACTIONS: readonly {
  readonly name: string;
  readonly entries: readonly AuditAction[];
  readonly prepare?: (w: World) => Promise<void>;
  readonly run: (w: World) => Promise<unknown>;
}[] = [
  { name: 'login', entries: ['auth.login'], run: (w) => w.app.accounts.login({ email: w.email, password: TEST_PASSWORD }) },
  {
    name: 'password reset', entries: ['auth.password_reset'],
    prepare: async (w) => {
      await w.app.accounts.requestPasswordReset({ email: w.email });
    },
    run: (w) => w.app.accounts.confirmPasswordReset({
      email: w.email, code: w.mailer.lastCodeFor(w.email, 'password-reset'), new_password: 'another horse battery staple',
    }),
  },
  { name: '2FA setup', entries: ['auth.2fa_setup'], run: (w) => setUpTwoFactor(w) },
  {
    name: '2FA enable', entries: ['auth.2fa_enabled'], prepare: (w) => setUpTwoFactor(w),
    run: (w) => w.app.twoFactor.enable(w.userId, { password: TEST_PASSWORD, code: freshCode(w) }, gate),
  },
  {
    // A solo owner's 2FA off is a pending change (issue #35 item 3): the code's use and the request land together.
    name: '2FA disable (a pending change)', entries: ['policy.change_requested'],
    prepare: async (w) => {
      await setUpTwoFactor(w);
      await w.app.twoFactor.enable(w.userId, { password: TEST_PASSWORD, code: freshCode(w) }, gate);
    },
    run: (w) => w.app.twoFactor.disable(w.userId, { password: TEST_PASSWORD, code: freshCode(w) }, gate),
  },
  {
    // Issue #35 item 4: a reset with 2FA on requests turning it off; the reset, its hold and the request land together.
    name: 'password reset with 2FA on (a pending change)', entries: ['policy.change_requested', 'auth.password_reset'],
    prepare: async (w) => {
      await setUpTwoFactor(w);
      await w.app.twoFactor.enable(w.userId, { password: TEST_PASSWORD, code: freshCode(w) }, gate);
      await w.app.accounts.requestPasswordReset({ email: w.email });
    },
    run: (w) => w.app.accounts.confirmPasswordReset({
      email: w.email, code: w.mailer.lastCodeFor(w.email, 'password-reset'), new_password: 'another horse battery staple',
    }),
  },
  { name: 'API token created', entries: ['api_token.created'], run: (w) => w.app.apiTokens.create(w.userId, { name: 'ci' }) },
  {
    name: 'API token revoked', entries: ['api_token.revoked'],
    prepare: async (w) => {
      await w.app.apiTokens.create(w.userId, { name: 'old' });
    },
    run: async (w) => w.app.apiTokens.revoke(w.userId, String((await w.app.apiTokens.list(w.userId)).items[0]!.id)),
  },
  {
    name: 'webhook URL and secret changed', entries: ['webhook.url_changed', 'webhook.secret_changed'],
    run: (w) => w.app.subscriptions.putConfig(w.userId, {
      service_code: 'developer', config: { webhook_url: 'https://hooks.example.com/in', webhook_secret: 'a'.repeat(32) },
    }),
  },
  {
    name: 'configuration changed (issue #35 item 8)', entries: ['config.changed'],
    run: (w) => w.app.subscriptions.putConfig(w.userId, {
      service_code: 'developer', config: { display_name: 'Shop', auto_collect: { TRX: { min_amount: '5000000', max_fee_sun: '1000000' } } },
    }),
  },
  {
    name: 'plan switched (issue #35 item 8)', entries: ['subscription.activated'],
    run: (w) => w.app.subscriptions.activate(w.userId, { service_code: 'sub_address', plan_code: 'pro' }),
  },
  {
    name: 'staking requested (issue #35 item 8)', entries: ['staking.requested'],
    run: (w) => w.app.staking.stake(w.userId, w.main, { resource: 'ENERGY', amount: '1000000' }),
  },
  {
    name: 'webhook URL reviewed (admin)', entries: ['webhook.url_reviewed'],
    prepare: async (w) => {
      await w.app.subscriptions.putConfig(w.userId, {
        service_code: 'developer', config: { webhook_url: 'https://hooks.example.com/in', webhook_secret: 'a'.repeat(32) },
      });
    },
    run: (w) => w.app.admin.approveWebhook(String(w.userId), { url: 'https://hooks.example.com/in' }),
  },
  {
    name: 'withdrawal policy changed', entries: ['policy.changed'],
    run: (w) => w.app.withdrawalPolicies.putPolicy(w.userId, { allow_list_only: true, limits: { TRX: { max_count_1h: 3 } } }),
  },
  {
    name: 'approval URL reviewed (admin)', entries: ['policy.changed'],
    prepare: async (w) => {
      // A new approver is a loosening (issue #35 item 3): it takes effect a day later, at the next read of the policy.
      await w.app.withdrawalPolicies.putPolicy(w.userId, { approval_url: 'https://hooks.example.com/approve', approval_secret: 'b'.repeat(32) });
      w.clock.advance(DAY);
      await w.app.withdrawalPolicies.getPolicy(w.userId);
    },
    run: (w) => w.app.withdrawalPolicies.approveApprovalUrl(String(w.userId), {
      url: 'https://hooks.example.com/approve', secret_fingerprint: approvalSecretFingerprint('b'.repeat(32)),
    }),
  },
  {
    name: 'withdrawal policy loosened (a pending change)', entries: ['policy.changed', 'policy.change_requested'],
    prepare: async (w) => {
      await w.app.withdrawalPolicies.putPolicy(w.userId, { allow_list_only: true, limits: { TRX: { max_count_1h: 3 } } });
    },
    run: (w) => w.app.withdrawalPolicies.putPolicy(w.userId, { allow_list_only: false, limits: { TRX: { max_count_1h: 2 } } }),
  },
  {
    name: 'pending policy change taking effect at the first read after its delay', entries: ['policy.change_applied'],
    prepare: async (w) => {
      await w.app.withdrawalPolicies.putPolicy(w.userId, { allow_list_only: true });
      await w.app.withdrawalPolicies.putPolicy(w.userId, { allow_list_only: false });
      w.clock.advance(DAY);
    },
    run: (w) => w.app.withdrawalPolicies.getPolicy(w.userId),
  },
  {
    name: 'pending policy change cancelled', entries: ['policy.change_cancelled'],
    prepare: async (w) => {
      await w.app.withdrawalPolicies.putPolicy(w.userId, { allow_list_only: true });
      await w.app.withdrawalPolicies.putPolicy(w.userId, { allow_list_only: false }); // version 2: change '2'
    },
    run: (w) => w.app.withdrawalPolicies.cancelChange(w.userId, '2'),
  },
  {
    name: 'allow-list entry added', entries: ['policy.allow_list_added'],
    run: (w) => w.app.withdrawalPolicies.addAllowListEntry(w.userId, { address: w.main, label: 'own' }),
  },
  {
    name: 'allow-list entry removed', entries: ['policy.allow_list_removed'],
    prepare: async (w) => {
      await w.app.withdrawalPolicies.addAllowListEntry(w.userId, { address: w.main, label: 'own' });
    },
    run: (w) => w.app.withdrawalPolicies.removeAllowListEntry(w.userId, w.main),
  },
  {
    name: 'withdrawal requested (with a velocity limit)', entries: ['withdrawal.requested'],
    prepare: async (w) => {
      await w.app.withdrawalPolicies.putPolicy(w.userId, { limits: { TRX: { max_count_1h: 5, max_amount_24h: '100000000' } } });
    },
    run: (w) => w.app.transfers.create(w.userId, {
      from_address: w.main, to_address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', asset_symbol: 'TRX', amount: '1000000',
    }),
  },
];

describeWithPostgres('PostgreSQL: every audited action lands with its audit entry or not at all (decision 144)', (serverUrl) => {
  const open = usePgTestStore(serverUrl, 'audit_atomic');
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'audit-atomic' });
  });
  afterAll(async () => {
    await devnet.close();
  });

  /** The application on the store, with an audit log whose appends fail while `failing.on` is set. */
  function build(failing: { on: boolean }) {
    return buildPgTestApplication(open().connection, devnet, (log) => hookedAuditLog(log, {
      beforeAppend: () => {
        if (failing.on) throw new StoreError('SERVICE-UNAVAILABLE', 'PostgreSQL audit append failed (injected)', { transient: true });
      },
    }));
  }

  /** Every row of the account in the tables the actions write, as JSON text. */
  async function rowsOf(userId: number): Promise<string> {
    const { pool } = open().connection;
    const parts = [JSON.stringify((await pool.query('SELECT to_jsonb(a) AS row FROM accounts a WHERE id = $1', [userId])).rows)];
    for (const table of TABLES) {
      const { rows } = await pool.query(`SELECT to_jsonb(t) AS row FROM ${table} t WHERE user_id = $1 ORDER BY to_jsonb(t)::text`, [userId]);
      parts.push(JSON.stringify(rows));
    }
    return parts.join('\n');
  }

  describeAtomicScopeContract('postgres', async () => {
    await open().clear();
    const clock = new ManualClock();
    return { ...createPostgresAdapters({ connection: open().connection, clock }), clock };
  }, { isolation: 'snapshot' });

  it('a withdrawal the worker ends (REJECTED by risk control): the end and withdrawal.rejected land together, or neither does (issue #35 item 8)', async () => {
    await open().clear();
    const failing = { on: false };
    const { app, mailer, stores, clock } = build(failing);
    const user = await signUp(app, (e) => mailer.lastCodeFor(e), 'worker-outcome@example.com');
    await subscribeAll(app, user.userId);
    const main = (await app.wallets.create(user.userId, { network_code: 'TRON', address_type: 1 })).address;
    const to = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
    const { command_no: commandNo } = await app.transfers.create(user.userId, { from_address: main, to_address: to, asset_symbol: 'TRX', amount: '1000000' });
    await stores.risk.deny({ kind: 'address', value: to, reason: 'sanctioned' });
    const auditLog = hookedAuditLog(stores.auditLog, {
      beforeAppend: () => {
        if (failing.on) throw new StoreError('SERVICE-UNAVAILABLE', 'PostgreSQL audit append failed (injected)', { transient: true });
      },
    });
    const executor = new CommandExecutor({
      ...stores, auditLog, clock, chain: createDevnetChainGateway(devnet), assets: createAssetRegistry({ usdtContract: devnet.usdtAddress }),
      cipher: AesGcmKeyCipher.fromConfig(Buffer.alloc(32, 7).toString('base64')),
    }, { retryBaseMs: 1, retryMaxMs: 1 }, { funding: false });
    const headBefore = (await stores.auditLog.head(user.userId))!.seq;

    failing.on = true;
    await executor.runDue().catch(() => undefined);
    expect((await stores.commands.get(commandNo))!.status, 'the end may not stand without its entry').toBe(COMMAND_STATUS.PENDING);
    expect((await stores.auditLog.head(user.userId))!.seq).toBe(headBefore);

    failing.on = false;
    for (let i = 0; i < 5 && (await stores.commands.get(commandNo))!.status === COMMAND_STATUS.PENDING; i += 1) {
      clock.advance(60_000);
      await executor.runDue();
    }
    expect((await stores.commands.get(commandNo))!.status).toBe(COMMAND_STATUS.REJECTED);
    const added = await stores.auditLog.readChain(user.userId, headBefore, 10);
    expect(added.map((e) => [e.action, e.actor.kind, e.detail['command_no'], e.detail['error_code']]))
      .toEqual([['withdrawal.rejected', 'system', commandNo, 'RISK-REVIEW-BLOCKED']]);
    expect((await verifyStoredAuditChain(stores.auditLog, user.userId)).ok).toBe(true);
  });

  for (const action of ACTIONS) {
    it(`${action.name}: the action and ${action.entries.join(' + ')} land together, or neither does`, async () => {
      await open().clear();
      const failing = { on: false };
      const { app, clock, mailer, stores } = build(failing);
      const email = `${action.name.replace(/\W+/g, '-')}@example.com`;
      const user = await signUp(app, (e) => mailer.lastCodeFor(e), email);
      await subscribeAll(app, user.userId);
      const main = (await app.wallets.create(user.userId, { network_code: 'TRON', address_type: 1 })).address;
      const w: World = { app, clock, mailer, userId: user.userId, email, main, secret: null };
      await action.prepare?.(w);
      const before = await rowsOf(w.userId);
      const headBefore = (await stores.auditLog.head(w.userId))!.seq;

      failing.on = true;
      const stepBefore = clock.now();
      await expect(action.run(w)).rejects.toBeInstanceOf(StoreError);
      expect(await rowsOf(w.userId), 'nothing of the action may stand without its entry').toBe(before);
      expect((await stores.auditLog.head(w.userId))!.seq).toBe(headBefore);

      failing.on = false;
      // A 2FA code spent by the failed try was rolled back with it; the retry takes the next step anyway.
      if (clock.now() === stepBefore) clock.advance(1);
      await action.run(w);
      expect(await rowsOf(w.userId), 'the action landed').not.toBe(before);
      const added = await stores.auditLog.readChain(w.userId, headBefore, 10);
      expect(added.map((e) => e.action)).toEqual(action.entries);
      expect((await verifyStoredAuditChain(stores.auditLog, w.userId)).ok).toBe(true);
    });
  }
});
