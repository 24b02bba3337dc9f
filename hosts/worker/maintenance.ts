import { schedule, validate, type ScheduledTask } from 'node-cron';
import type { CustodyMetrics } from '../composition/metrics.js';
import type { WorkerLog } from './index.js';

/**
 * The worker's periodic maintenance on node-cron (UTC), beside its tight loops (the executors every second, webhooks
 * every second, the scanner every 3 s; docs/architecture.md). What is not here and why: idempotency records expire by
 * themselves (MongoDB TTL index `purge_ttl`; the memory store sweeps on begin), and the accounts code has no expiry
 * of unverified accounts yet. Each process reports its own totals; sum them across workers in Prometheus.
 */
export const MAINTENANCE_SCHEDULES = {
  /** Yesterday's collections, their cost, stuck reports and DEAD webhooks, one line at 00:00 UTC. */
  dailySummary: '0 0 * * *',
  /** Stuck workflows reported in the last hour, one warning line when any (the runner logs each as it happens). */
  stuckCheck: '0 * * * *',
} as const;

/** Writes the daily summary line and starts the next day's totals. */
export function runDailySummary(metrics: CustodyMetrics, log: WorkerLog): void {
  log.info({ period: 'day', ...metrics.periods.day.take() }, 'daily summary');
}

/** Warns when workflows were reported stuck in the last hour (docs/operations.md, "A stuck task"). */
export function runStuckCheck(metrics: CustodyMetrics, log: WorkerLog): void {
  const { stuck } = metrics.periods.hour.take();
  if (stuck > 0) log.warn({ period: 'hour', stuck }, 'workflows reported stuck in the last hour: see the "workflow stuck" lines');
}

/** Starts the cron jobs; `stop` ends them. */
export function startMaintenance(metrics: CustodyMetrics, log: WorkerLog): { stop(): Promise<void> } {
  for (const expression of Object.values(MAINTENANCE_SCHEDULES)) if (!validate(expression)) throw new Error(`invalid cron expression ${expression}`);
  const tasks: ScheduledTask[] = [
    schedule(MAINTENANCE_SCHEDULES.dailySummary, () => runDailySummary(metrics, log), { timezone: 'UTC', noOverlap: true, name: 'daily-summary' }),
    schedule(MAINTENANCE_SCHEDULES.stuckCheck, () => runStuckCheck(metrics, log), { timezone: 'UTC', noOverlap: true, name: 'stuck-check' }),
  ];
  return {
    async stop() {
      for (const task of tasks) await task.stop();
    },
  };
}
