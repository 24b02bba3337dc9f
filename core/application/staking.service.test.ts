import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestCore, startTestDevnet, type TestCore } from '../../adapters/memory/testing/memory-test-core.js';
import type { Devnet } from '../../adapters/tron-devnet/index.js';
import { failureOf, userWithWallets, type UserWithWallets } from './testing/user-journeys.js';

let devnet: Devnet;
beforeAll(async () => { devnet = await startTestDevnet(); });
afterAll(async () => { await devnet.close(); });

const PENDING = 1;

describe('staking commands (session token)', () => {
  let core: TestCore;
  let user: UserWithWallets;
  beforeEach(async () => {
    core = buildTestCore(devnet);
    user = await userWithWallets(core.app, core.readCode, 'staker@example.com', 0);
  });
  const trx = async () => (await core.app.wallets.balances(user.userId, user.main)).items.find((i) => i.symbol === 'TRX')!;

  it('stake queues a STAKE command holding the SUN as TRX balance_locked; the address is then locked', async () => {
    const { app } = core;
    const accepted = await app.staking.stake(user.userId, user.main, { resource: 'ENERGY', amount: '5000000' });
    expect(accepted).toEqual({ command_no: expect.any(String), status: PENDING });
    expect(await app.commands.get(user.userId, accepted.command_no)).toMatchObject({ type: 4, status: PENDING });
    expect((await trx()).balance_locked).toBe('5000000');
    expect(await failureOf(app.staking.withdrawReward(user.userId, user.main))).toEqual({ code: 'BIZ-COMMAND-LOCKED' });
  });

  it('unstake, withdraw-unstaked, vote and withdraw-reward queue their command types without holding funds', async () => {
    const { app } = core;
    const witness = devnet.info().witnesses[0]!;
    const cases: [() => Promise<{ command_no: string }>, number][] = [
      [() => app.staking.unstake(user.userId, user.main, { resource: 'BANDWIDTH', amount: '1000000' }), 5],
      [() => app.staking.withdrawUnstaked(user.userId, user.main), 6],
      [() => app.staking.vote(user.userId, user.main, { votes: [{ witness, count: 3 }] }), 7],
      [() => app.staking.withdrawReward(user.userId, user.main), 8],
    ];
    for (const [submit, type] of cases) {
      const { command_no } = await submit();
      expect(await app.commands.get(user.userId, command_no)).toMatchObject({ type, status: PENDING });
      expect((await trx()).balance_locked).toBe('0');
      await app.admin.cancelCommand(command_no);
    }
  });

  it('validates resource, amount and votes with their codes', async () => {
    const { app } = core;
    const witness = devnet.info().witnesses[0]!;
    expect(await failureOf(app.staking.stake(user.userId, user.main, { resource: 'CPU', amount: '1' }))).toEqual({ code: 'VALIDATION-ERROR' });
    expect(await failureOf(app.staking.stake(user.userId, user.main, { resource: 'ENERGY' }))).toEqual({ code: 'VALIDATION-ERROR' });
    expect(await failureOf(app.staking.stake(user.userId, user.main, { resource: 'ENERGY', amount: '0' }))).toEqual({ code: 'BIZ-AMOUNT-INVALID' });
    for (const votes of [[], [{ witness: 'nope', count: 1 }], [{ witness, count: 0 }], [{ witness, count: 1 }, { witness, count: 2 }],
      Array.from({ length: 31 }, () => ({ witness, count: 1 }))]) {
      expect(await failureOf(app.staking.vote(user.userId, user.main, { votes }))).toEqual({ code: 'VALIDATION-ERROR' });
    }
    expect((await app.commands.list(user.userId, {})).pagination.total).toBe(0);
  });

  it('another user\'s address is 404; a deny-listed user 403 with a REJECTED record', async () => {
    const { app, readCode } = core;
    const other = await userWithWallets(app, readCode, 'other-staker@example.com', 0);
    expect(await failureOf(app.staking.stake(other.userId, user.main, { resource: 'ENERGY', amount: '1' })))
      .toEqual({ code: 'BIZ-WALLET-ADDRESS-NOT-FOUND' });
    await app.admin.denyRisk({ kind: 'user', value: String(user.userId) });
    expect(await failureOf(app.staking.stake(user.userId, user.main, { resource: 'ENERGY', amount: '1' })))
      .toEqual({ code: 'RISK-REVIEW-BLOCKED' });
    expect((await app.commands.list(user.userId, {})).items).toMatchObject([{ type: 4, status: 5, error_code: 'RISK-REVIEW-BLOCKED' }]);
  });
});
