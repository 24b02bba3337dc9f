import { getTasks, validate } from 'node-cron';
import { describe, expect, it } from 'vitest';
import { COLLECTION_STATUS, type CollectionTask } from '../../core/domain/model/collection-task.js';
import { NO_COST } from '../../core/domain/sweep-cost.js';
import { DELIVERY_STATUS } from '../../core/domain/model/webhook.js';
import { CustodyMetrics } from '../composition/metrics.js';
import { MAINTENANCE_SCHEDULES, runDailySummary, runExpireUnverifiedAccounts, runStuckCheck, startMaintenance } from './maintenance.js';

function recorder(): { lines: { level: string; fields: object; message: string }[]; log: { info: (f: object, m: string) => void; warn: (f: object, m: string) => void; error: (f: object, m: string) => void } } {
  const lines: { level: string; fields: object; message: string }[] = [];
  const at = (level: string) => (fields: object, message: string): void => { lines.push({ level, fields, message }); };
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('worker maintenance (node-cron)', () => {
  it('schedules valid UTC cron expressions, starts and stops', async () => {
    for (const expression of Object.values(MAINTENANCE_SCHEDULES)) expect(validate(expression)).toBe(true);
    const { log } = recorder();
    const jobs = startMaintenance(new CustodyMetrics('custody-worker'), log, { expireUnverifiedAccounts: async () => 0 });
    const names = ['daily-summary', 'stuck-check', 'expire-unverified-accounts'];
    const running = () => [...getTasks().values()].filter((t) => names.includes(t.name ?? '')).map((t) => [t.name, t.getStatus()]);
    expect(running()).toEqual(names.map((name) => [name, 'idle']));
    await jobs.stop();
    expect(running()).toEqual([]);
  });

  it('with the operator status writer (issue #38 item 2): a health snapshot at the start and every minute; the standing discrepancies go with the summary', async () => {
    const { log } = recorder();
    const written: string[] = [];
    const summaries: object[] = [];
    const status = { writeHealth: async () => { written.push('health'); }, writeDailySummary: async (body: object) => { summaries.push(body); } };
    const jobs = startMaintenance(new CustodyMetrics('custody-worker'), log, { expireUnverifiedAccounts: async () => 0 }, status);
    expect(MAINTENANCE_SCHEDULES.operatorHealth).toBe('* * * * *');
    expect([...getTasks().values()].filter((t) => t.name === 'operator-health').map((t) => t.getStatus())).toEqual(['idle']);
    expect(written).toEqual(['health']);
    await jobs.stop();
    expect([...getTasks().values()].filter((t) => t.name === 'operator-health')).toEqual([]);
    const metrics = new CustodyMetrics('custody-worker');
    const d = { networkCode: 'TRON', address: 'TSub', assetSymbol: 'TRX', unexplained: 1_500_000n };
    metrics.ledgerReconciled([d], [d]);
    await runDailySummary(metrics, log, status);
    expect(summaries).toEqual([expect.objectContaining({
      period: 'day', ledgerDiscrepancies: 1, standingDiscrepancies: [{ networkCode: 'TRON', address: 'TSub', assetSymbol: 'TRX', unexplained: '1500000' }],
    })]);
  });

  it('the daily summary reports the period\'s collections, cost, stuck reports and DEAD webhooks, then starts over', () => {
    const metrics = new CustodyMetrics('custody-worker');
    const task = (status: number, burnt: bigint): CollectionTask => ({
      status, steps: [], cost: { ...NO_COST, bandwidthSun: burnt },
    }) as unknown as CollectionTask;
    metrics.collectionFinished(task(COLLECTION_STATUS.DONE, 345_000n));
    metrics.collectionFinished(task(COLLECTION_STATUS.FAILED, 0n));
    metrics.workflowStuck('collection', 'COLLECTING');
    metrics.webhookAttempt(DELIVERY_STATUS.DEAD, 15_000);
    const { lines, log } = recorder();
    runStuckCheck(metrics, log);
    runDailySummary(metrics, log);
    runDailySummary(metrics, log);
    runStuckCheck(metrics, log);
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['warn', 'workflows reported stuck in the last hour: see the "workflow stuck" lines'], ['info', 'daily summary'], ['info', 'daily summary'],
    ]);
    expect(lines[1]!.fields).toMatchObject({ collections: 2, failedCollections: 1, costSun: '345000', stuck: 1, deadWebhooks: 1 });
    expect(lines[2]!.fields).toMatchObject({ collections: 0, costSun: '0', stuck: 0 });
  });

  it('the daily summary counts the ledger discrepancies reported in the period and lists those still standing (issue #36)', () => {
    const metrics = new CustodyMetrics('custody-worker');
    const d = { networkCode: 'TRON', address: 'TSub', assetSymbol: 'TRX', unexplained: 1_500_000n };
    // A stake that differs from the books with the liquid balance matching (issue #36): its parts are listed.
    const s = { networkCode: 'TRON', address: 'TMain', assetSymbol: 'TRX', unexplained: 0n, stakeUnexplained: { staked: 30_000_000n, unstaking: 0n } };
    metrics.ledgerReconciled([d], [d]);
    metrics.ledgerReconciled([d, s], [s]);
    // A sweep booked by this process: its fees as the books hold them.
    metrics.sweepBooked([
      { account: { kind: 'custodial' }, amount: -1_345_000n }, { account: { kind: 'fee_bandwidth' }, amount: 345_000n },
      { account: { kind: 'fee_trx_burned' }, amount: 1_000_000n },
    ]);
    const { lines, log } = recorder();
    runDailySummary(metrics, log);
    metrics.ledgerReconciled([], []);
    runDailySummary(metrics, log);
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['info', 'daily summary'], ['warn', 'ledger discrepancies against the chain stand: see GET /api/ledger/reconciliation'], ['info', 'daily summary'],
    ]);
    expect(lines[0]!.fields).toMatchObject({ ledgerDiscrepancies: 2, ledgerSweeps: 1, ledgerFeesSun: '1345000' });
    expect(lines[1]!.fields).toEqual({
      period: 'day', ledger_discrepancies: [{ network_code: 'TRON', address: 'TSub', asset_symbol: 'TRX', unexplained: '1500000' },
        { network_code: 'TRON', address: 'TMain', asset_symbol: 'TRX', unexplained: '0', staked_unexplained: '30000000', unstaking_unexplained: '0' }],
    });
    expect(lines[2]!.fields).toMatchObject({ ledgerDiscrepancies: 0, ledgerSweeps: 0, ledgerFeesSun: '0' });
  });

  it('the account expiry logs how many went (nothing when none) and turns a store failure into one error line', async () => {
    const { lines, log } = recorder();
    const counts = [2, 0];
    await runExpireUnverifiedAccounts({ expireUnverifiedAccounts: async () => counts.shift()! }, log);
    await runExpireUnverifiedAccounts({ expireUnverifiedAccounts: async () => counts.shift()! }, log);
    await runExpireUnverifiedAccounts({ expireUnverifiedAccounts: async () => { throw new Error('store down'); } }, log);
    expect(lines.map((l) => [l.level, l.message, l.fields])).toEqual([
      ['info', 'unverified accounts expired', { deleted: 2 }],
      ['error', 'unverified account expiry failed', { err: expect.any(Error) }],
    ]);
  });
});
