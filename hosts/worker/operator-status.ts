/**
 * What the worker tells the operator console (issue #38 item 2) through the store (OperatorStatusStore): the API and
 * the worker are separate processes, and the scanner's lag, the nodes' calls and pauses and the daily summary live
 * only in the worker. Everything here is read from what the worker already keeps: its metrics registry (the
 * scanner's lag gauge, node calls and node failures) and the block source's node pool (public `nodes()`).
 */
import type { Clock } from '../../core/ports/clock.port.js';
import type { OperatorStatusJson, OperatorStatusRecord, OperatorStatusStore } from '../../core/ports/operator-status-store.port.js';
import type { Composition } from '../composition/container.js';
import type { CustodyMetrics } from '../composition/metrics.js';
import { TOKENS } from '../composition/tokens.js';
import type { WorkerLog } from './index.js';

/** One node of the pool as its public `nodes()` reports it (adapters/tron NodeStatus), read structurally. */
export interface PoolNodeStatus {
  readonly name: string;
  readonly calls: number;
  readonly consecutiveFailures: number;
  readonly coolingUntil: number;
  readonly lastError: string | null;
}

/** Where the snapshot's figures come from. */
export interface HealthSources {
  readonly metrics: CustodyMetrics;
  /** The scanner's node pool, null when the block source has none (a test double). */
  readonly nodes: (() => readonly PoolNodeStatus[]) | null;
  /** A block's duration (CHAIN_BLOCK_MS): the lag in seconds is the lag in blocks times this. */
  readonly blockMs: number;
  /** The scanner's daily call budget per node (SCAN_NODE_DAILY_CALLS), null without one. */
  readonly dailyCallBudget: number | null;
  readonly clock: Clock;
}

/** The worker's status writes: the health snapshot (every minute) and the daily summary (each time it is produced). */
export interface OperatorStatusWriter {
  writeHealth(): Promise<void>;
  writeDailySummary(summary: OperatorStatusRecord['body']): Promise<void>;
}

/** The sum per label value of a counter in the registry (prom-client's `get()` runs its collect). */
async function counterBy(metrics: CustodyMetrics, name: string, label: string): Promise<Record<string, number>> {
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) return {};
  const totals: Record<string, number> = {};
  for (const v of (await metric.get()).values) {
    const key = String(v.labels[label] ?? '');
    totals[key] = (totals[key] ?? 0) + v.value;
  }
  return totals;
}

/** `scheme://host:port` of a node URL (never its path or credentials); the text itself when it is no URL. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(unnamed node)';
  }
}

/** The health snapshot: the scanner's lag, the node calls by purpose, and each node's calls, pause and failures. */
export async function healthSnapshot(sources: HealthSources): Promise<OperatorStatusRecord['body']> {
  const { metrics } = sources;
  const lagGauge = metrics.registry.getSingleMetric('custody_scanner_lag_blocks');
  const lagValue = lagGauge === undefined ? undefined : (await lagGauge.get()).values[0]?.value;
  const lagBlocks = lagValue === undefined ? null : lagValue;
  const failures = await counterBy(metrics, 'custody_chain_node_failures_total', 'node');
  const nodes = (sources.nodes?.() ?? []).map((n): OperatorStatusJson => {
    // The origin only: a provider's URL may carry a key in its path or credentials; the failures counter uses it too.
    const origin = originOf(n.name);
    return {
      node: origin, calls: n.calls, consecutiveFailures: n.consecutiveFailures,
      // The pool reports a pause on its own clock, 0 when none: paused or out of its budget window until then.
      paused: n.coolingUntil > 0, pausedUntil: n.coolingUntil > 0 ? n.coolingUntil : null,
      budget: sources.dailyCallBudget, budgetLeft: sources.dailyCallBudget === null ? null : Math.max(0, sources.dailyCallBudget - n.calls),
      lastError: n.lastError === null ? null : n.lastError.split(n.name).join(origin), failures: failures[origin] ?? 0,
    };
  });
  return {
    scanner: {
      lagBlocks, lagSeconds: lagBlocks === null ? null : Math.round((lagBlocks * sources.blockMs) / 1_000),
      chainMismatch: metrics.scannerChainMismatch() ?? null,
    },
    lastTickAt: metrics.lastTickAt,
    nodeCalls: await counterBy(metrics, 'custody_node_calls_total', 'purpose'),
    nodeFailures: failures,
    nodes,
  };
}

/** Writes through `store`; a failed write is one error line (the next minute writes again, nothing is lost). */
export function operatorStatusWriter(store: OperatorStatusStore, sources: HealthSources, log: WorkerLog): OperatorStatusWriter {
  const put = async (kind: 'health' | 'daily-summary', body: () => Promise<OperatorStatusRecord['body']>): Promise<void> => {
    try {
      await store.put(kind, await body(), sources.clock.now());
    } catch (error) {
      log.error({ err: error, kind }, 'operator status write failed');
    }
  };
  return {
    writeHealth: () => put('health', () => healthSnapshot(sources)),
    writeDailySummary: (summary) => put('daily-summary', async () => summary),
  };
}

/** The writer of a composed worker: the store's OperatorStatusStore, the scanner's node pool when it has one. */
export function operatorStatusOf(composition: Composition): OperatorStatusWriter {
  const c = composition.container;
  const config = c.get(TOKENS.Config);
  const blocks = c.get(TOKENS.BlockSource) as unknown as { nodes?: () => readonly PoolNodeStatus[] };
  const nodes = typeof blocks.nodes === 'function' ? () => blocks.nodes!() : null;
  return operatorStatusWriter(c.get(TOKENS.Stores).operatorStatus, {
    metrics: c.get(TOKENS.Metrics), nodes, blockMs: config.chainBlockMs > 0 ? config.chainBlockMs : 3_000, dailyCallBudget: config.scanNodeDailyCalls, clock: c.get(TOKENS.Clock),
  }, c.get(TOKENS.Logger));
}
