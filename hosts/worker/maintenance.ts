import { schedule, validate, type ScheduledTask } from 'node-cron';
import type { CustodyMetrics, LedgerDiscrepancy } from '../composition/metrics.js';
import type { WorkerLog } from './index.js';
import type { OperatorStatusWriter } from './operator-status.js';

/**
 * The worker's periodic maintenance on node-cron (UTC), beside its tight loops (the executors every second, webhooks
 * every second, the scanner every 3 s; docs/architecture.md). What is not here and why: idempotency records expire by
 * themselves (MongoDB TTL index `purge_ttl`; the memory store sweeps on begin). Each process reports its own totals;
 * sum them across workers in Prometheus. The account expiry is idempotent: workers running it at once delete each
 * account once between them.
 */
export const MAINTENANCE_SCHEDULES = {
  /**
   * Yesterday's collections, their cost, stuck reports, DEAD webhooks and ledger discrepancies reported, one line at
   * 00:00 UTC; a second (warning) line lists the discrepancies between the books and the chain still standing.
   */
  dailySummary: '0 0 * * *',
  /** Stuck workflows reported in the last hour, one warning line when any (the runner logs each as it happens). */
  stuckCheck: '0 * * * *',
  /** Accounts left unverified for 24 h are deleted, their e-mail free again (issue #14; docs/decisions.md 62). */
  expireUnverifiedAccounts: '30 * * * *',
  /** The health snapshot the operator console shows (issue #38 item 2), written to the store every minute. */
  operatorHealth: '* * * * *',
} as const;

/** The use cases the maintenance jobs run (the worker's core application). */
export interface MaintenanceUseCases {
  expireUnverifiedAccounts(): Promise<number>;
}

/** Deletes the accounts left unverified past their 24 h; one line when any went, one error line when the store fails. */
export async function runExpireUnverifiedAccounts(accounts: MaintenanceUseCases, log: WorkerLog): Promise<void> {
  try {
    const deleted = await accounts.expireUnverifiedAccounts();
    if (deleted > 0) log.info({ deleted }, 'unverified accounts expired');
  } catch (error) {
    // The next hour retries; nothing is lost by waiting.
    log.error({ err: error }, 'unverified account expiry failed');
  }
}

/**
 * Writes the daily summary line and starts the next day's totals; with `status`, the same figures (and the
 * discrepancies standing) go to the store for the operator console (issue #38 item 2); the promise ends with that write.
 */
export function runDailySummary(metrics: CustodyMetrics, log: WorkerLog, status?: OperatorStatusWriter): Promise<void> {
  const totals = metrics.periods.day.take();
  log.info({ period: 'day', ...totals }, 'daily summary');
  // The books against the chain (issue #36): every discrepancy still standing, never corrected by the service.
  const standing = metrics.ledgerDiscrepancies();
  if (standing.length > 0) {
    log.warn({
      period: 'day', ledger_discrepancies: standing.map((d) => ({
        network_code: d.networkCode, address: d.address, asset_symbol: d.assetSymbol, unexplained: d.unexplained.toString(),
        ...stakeParts(d, 'staked_unexplained', 'unstaking_unexplained'),
      })),
    }, 'ledger discrepancies against the chain stand: see GET /api/ledger/reconciliation');
  }
  return status === undefined ? Promise.resolve() : status.writeDailySummary({
    period: 'day', ...totals,
    standingDiscrepancies: standing.map((d) => ({
      networkCode: d.networkCode, address: d.address, assetSymbol: d.assetSymbol, unexplained: d.unexplained.toString(),
      ...stakeParts(d, 'stakedUnexplained', 'unstakingUnexplained'),
    })),
  });
}

/** A standing discrepancy's stake parts (issue #36), named as its line's other fields, only when the stake differs. */
function stakeParts(d: LedgerDiscrepancy, staked: string, unstaking: string): Record<string, string> {
  const s = d.stakeUnexplained;
  return s === undefined || (s.staked === 0n && s.unstaking === 0n) ? {} : { [staked]: s.staked.toString(), [unstaking]: s.unstaking.toString() };
}

/** Warns when workflows were reported stuck in the last hour (docs/operations.md, "A stuck task"). */
export function runStuckCheck(metrics: CustodyMetrics, log: WorkerLog): void {
  const { stuck } = metrics.periods.hour.take();
  if (stuck > 0) log.warn({ period: 'hour', stuck }, 'workflows reported stuck in the last hour: see the "workflow stuck" lines');
}

/** Starts the cron jobs; `stop` ends them and takes them out of node-cron's registry. */
export function startMaintenance(
  metrics: CustodyMetrics, log: WorkerLog, accounts: MaintenanceUseCases, status?: OperatorStatusWriter,
): { stop(): Promise<void> } {
  for (const expression of Object.values(MAINTENANCE_SCHEDULES)) if (!validate(expression)) throw new Error(`invalid cron expression ${expression}`);
  const tasks: ScheduledTask[] = [
    schedule(MAINTENANCE_SCHEDULES.dailySummary, () => runDailySummary(metrics, log, status), { timezone: 'UTC', noOverlap: true, name: 'daily-summary' }),
    schedule(MAINTENANCE_SCHEDULES.stuckCheck, () => runStuckCheck(metrics, log), { timezone: 'UTC', noOverlap: true, name: 'stuck-check' }),
    schedule(MAINTENANCE_SCHEDULES.expireUnverifiedAccounts, () => runExpireUnverifiedAccounts(accounts, log), {
      timezone: 'UTC', noOverlap: true, name: 'expire-unverified-accounts',
    }),
  ];
  if (status !== undefined) {
    tasks.push(schedule(MAINTENANCE_SCHEDULES.operatorHealth, () => status.writeHealth(), { timezone: 'UTC', noOverlap: true, name: 'operator-health' }));
    // The first snapshot now, not a minute after the start.
    void status.writeHealth();
  }
  return {
    async stop() {
      for (const task of tasks) await task.destroy();
    },
  };
}
