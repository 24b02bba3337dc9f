/**
 * POST /transfers' fee check (plannedWithdrawalFeeCheck, issue #34 item 3) refuses only what the chain says cannot be
 * funded: a node that fails while it plans never refuses the request (the worker plans again when the command starts),
 * while a refusal of the plan itself still reaches the caller.
 */
import { describe, expect, it } from 'vitest';
import { DomainError, InfrastructureError } from '../../domain/errors.js';
import type { Asset } from '../../domain/model/asset.js';
import type { StepDeps } from './collection-steps.js';
import { plannedWithdrawalFeeCheck } from './withdrawal-funding-plan.js';

const USDT: Asset = { symbol: 'USDT', kind: 'trc20', decimals: 6, contractAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' } as unknown as Asset;
const request = {
  wallet: { userId: 7, networkCode: 'TRON', address: 'TSubAddress', addressType: 2 },
  asset: USDT, to: 'TPayer', amount: 10_000_000n, reference: 'check',
} as unknown as Parameters<ReturnType<typeof plannedWithdrawalFeeCheck>>[0];

/** Deps whose main address exists and whose node answers every call with `failure`. */
function depsFailingWith(failure: Error): StepDeps {
  const chain = new Proxy({}, { get: () => async () => { throw failure; } });
  return {
    chain, wallets: { findMain: async () => ({ address: 'TMainAddress' }) }, clock: { now: () => 0 },
  } as unknown as StepDeps;
}

describe('the withdrawal fee check', () => {
  it('lets the request through when the node fails while it plans', async () => {
    const check = plannedWithdrawalFeeCheck(depsFailingWith(new InfrastructureError('CHAIN-BALANCE-QUERY-FAILED', 'node down', { transient: true })), { burnEnabled: false });
    await expect(check(request)).resolves.toBeUndefined();
  });

  it('passes a domain refusal on', async () => {
    const check = plannedWithdrawalFeeCheck(depsFailingWith(new DomainError('BIZ-FEES-UNFUNDABLE', { message: 'no way to fund' })), { burnEnabled: false });
    await expect(check(request)).rejects.toMatchObject({ code: 'BIZ-FEES-UNFUNDABLE' });
  });
});
