import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AddressLock } from '../../core/ports/address-lock.port.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import type { IdempotencyStore } from '../../core/ports/idempotency-store.port.js';
import type { CollectionTask } from '../../core/domain/model/collection-task.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { DELIVERY_STATUS, type DeliveryStatus } from '../../core/domain/model/webhook.js';
import { totalCostSun } from '../../core/domain/sweep-cost.js';

/** What a node call was for: the scanner's blocks, planning a step, following a transaction, or sending one. */
export type NodeCallPurpose = 'scan' | 'plan' | 'follow' | 'broadcast';

/**
 * The purpose of a workflow's node call, by its path: sends are broadcasts; transaction lookups, and the solidified
 * blocks read to prove a transaction dead, follow; everything else (state reads, dry runs, heads for building) plans.
 */
export function workflowCallPurpose(path: string): NodeCallPurpose {
  if (path === 'wallet/broadcasttransaction') return 'broadcast';
  if (/gettransactioninfobyid$|gettransactionfrompending$|^walletsolidity\/getblockbynum$/.test(path)) return 'follow';
  return 'plan';
}

/**
 * The Prometheus metrics of one Custody Hub process (prom-client, one registry per process so tests never share
 * counters). Every name starts with `custody_`; docs/operations.md lists them with suggested alerts. Labels take only
 * bounded values (route patterns, step and status names, error codes), never ids or addresses.
 */
export class CustodyMetrics {
  readonly registry = new Registry();
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly chainCalls: Counter<'method'>;
  private readonly chainErrors: Counter<'method' | 'kind'>;
  private readonly chainDuration: Histogram<'method'>;
  private readonly nodeFailures: Counter<'node'>;
  private readonly lockConflicts: Counter;
  private readonly idempotency: Counter<'outcome'>;
  private readonly stages: Counter<'workflow' | 'outcome'>;
  private readonly finished: Counter<'workflow' | 'status'>;
  private readonly stepDuration: Histogram<'workflow' | 'step'>;
  private readonly stuck: Counter<'workflow' | 'step'>;
  private readonly retries: Counter<'workflow' | 'step'>;
  private readonly follows: Counter<'workflow' | 'source'>;
  private readonly nodeCalls: Counter<'endpoint' | 'purpose'>;
  private readonly sweepCost: Counter;
  private readonly sweepCostEach: Histogram;
  private readonly webhookAttempts: Counter<'status'>;
  private readonly webhookDuration: Histogram<'status'>;
  private readonly webhookDead: Counter;
  private readonly tickFailures: Counter<'workflow'>;
  private readonly autoCollects: Counter<'outcome'>;
  private readonly paymentWatches: Counter<'outcome'>;
  private readonly lastTick: Gauge;
  private readonly ledgerReported: Counter<'asset_symbol'>;
  /** The discrepancies between the books and the chain standing after the last reconciliation pass (issue #36). */
  private ledgerStanding: readonly LedgerDiscrepancy[] = [];

  private readonly pendingForwardCounts = new Map<string, number | (() => number)>();
  private scannerLagWatched = false;
  /** The balance scanner's stop for another chain, once a scanner runs in this process (watchScannerChain). */
  private scannerChain: (() => string | null) | null = null;
  private tasksWatched = false;
  /** Running totals since the last daily summary and since the last hourly stuck check (hosts/worker/maintenance.ts). */
  readonly periods = { day: new PeriodTotals(), hour: new PeriodTotals() };

  /** `defaults`: also Node's process metrics (event loop lag, heap, GC), which hold observers: only where served. */
  constructor(service: string, options: { readonly defaults?: boolean } = {}) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ service });
    if (options.defaults === true) collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'custody_http_request_duration_seconds', help: 'API request latency by route pattern and status',
      labelNames: ['method', 'route', 'status'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers,
    });
    this.chainCalls = new Counter({ name: 'custody_chain_calls_total', help: 'Chain gateway calls by method', labelNames: ['method'], registers });
    this.chainErrors = new Counter({
      name: 'custody_chain_errors_total', help: 'Chain gateway errors by method and kind (the error code)', labelNames: ['method', 'kind'], registers,
    });
    this.chainDuration = new Histogram({
      name: 'custody_chain_call_duration_seconds', help: 'Chain gateway call latency', labelNames: ['method'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15], registers,
    });
    this.nodeFailures = new Counter({
      name: 'custody_chain_node_failures_total',
      help: 'Requests a TRON node failed as a node (unreachable, lost reply, HTTP 5xx/403/429), by node; the next configured node was asked when there was one',
      labelNames: ['node'], registers,
    });
    this.lockConflicts = new Counter({ name: 'custody_lock_conflicts_total', help: 'Address lock acquisitions refused (held elsewhere)', registers });
    this.idempotency = new Counter({
      name: 'custody_idempotency_total', help: 'Idempotency begins by outcome (in-progress and mismatch are conflicts)', labelNames: ['outcome'], registers,
    });
    this.stages = new Counter({ name: 'custody_workflow_stages_total', help: 'Worker stages run by workflow and outcome', labelNames: ['workflow', 'outcome'], registers });
    this.finished = new Counter({ name: 'custody_tasks_finished_total', help: 'Tasks that reached an end state, by workflow and status', labelNames: ['workflow', 'status'], registers });
    this.stepDuration = new Histogram({
      name: 'custody_task_step_duration_seconds', help: 'Duration of each completed step of a finished collection', labelNames: ['workflow', 'step'],
      buckets: [1, 3, 10, 30, 60, 120, 300, 900, 3600], registers,
    });
    this.stuck = new Counter({ name: 'custody_workflow_stuck_total', help: '"workflow stuck" reports (once per WORKFLOW_STUCK_AFTER_S per task)', labelNames: ['workflow', 'step'], registers });
    this.follows = new Counter({
      name: 'custody_workflow_follows_total',
      help: 'Looks at a sent transaction, by source: blocks (the receipts of the blocks the scanner read) or node (a direct lookup, the fallback)',
      labelNames: ['workflow', 'source'], registers,
    });
    this.nodeCalls = new Counter({
      name: 'custody_node_calls_total',
      help: 'Requests sent to TRON nodes, by endpoint path and purpose (scan, plan, follow, broadcast)',
      labelNames: ['endpoint', 'purpose'], registers,
    });
    this.retries = new Counter({ name: 'custody_workflow_retries_total', help: 'Stages that failed and will retry', labelNames: ['workflow', 'step'], registers });
    this.sweepCost = new Counter({ name: 'custody_sweep_cost_sun_total', help: 'What finished collections cost (burnt, fees, rental), SUN', registers });
    this.sweepCostEach = new Histogram({
      name: 'custody_sweep_cost_trx', help: 'Cost of one finished collection, TRX', buckets: [0.1, 0.5, 1, 2, 5, 10, 15, 20, 30, 50], registers,
    });
    this.webhookAttempts = new Counter({ name: 'custody_webhook_attempts_total', help: 'Webhook delivery attempts by resulting status', labelNames: ['status'], registers });
    this.webhookDuration = new Histogram({
      name: 'custody_webhook_attempt_duration_seconds', help: 'Webhook attempt latency by resulting status', labelNames: ['status'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15], registers,
    });
    this.webhookDead = new Counter({ name: 'custody_webhook_dead_total', help: 'Deliveries that went DEAD (all attempts failed)', registers });
    this.autoCollects = new Counter({
      name: 'custody_auto_collect_total',
      help: 'Automatic collection triggers judged, by outcome (waiting: the cheapest plan costs more than max_fee_sun)',
      labelNames: ['outcome'], registers,
    });
    this.paymentWatches = new Counter({
      name: 'custody_payment_requests_total',
      help: 'Payment requests judged by the worker, by outcome (judged: status or watch changed; started: its collection made)',
      labelNames: ['outcome'], registers,
    });
    const pending = this.pendingForwardCounts;
    new Gauge({
      name: 'custody_forwards_pending',
      help: 'Automatic forwards that wait, by kind: payment (a paid request whose collection was refused for want of energy; retried with backoff) '
        + 'and auto_collect (a trigger resting: no energy source, or its plan above max_fee_sun), as the last worker pass saw them',
      labelNames: ['kind'], registers,
      collect() {
        for (const [kind, count] of pending) this.set({ kind }, typeof count === 'number' ? count : count());
      },
    });
    this.tickFailures = new Counter({ name: 'custody_worker_pass_failures_total', help: 'Worker passes that failed (store or node outage, bug)', labelNames: ['workflow'], registers });
    this.lastTick = new Gauge({ name: 'custody_worker_last_tick_timestamp_seconds', help: 'When the worker loop last completed a tick', registers });
    const standing = (): readonly LedgerDiscrepancy[] => this.ledgerStanding;
    new Gauge({
      name: 'custody_ledger_discrepancies',
      help: 'Custodial address and asset lines whose chain balance differs from the books by more than pending deposits and stake explain, '
        + 'standing after the last reconciliation pass (seen by two passes in a row), by asset; 0 when the books match',
      labelNames: ['asset_symbol'], registers,
      collect() {
        this.reset();
        const counts = new Map<string, number>([['TRX', 0], ['USDT', 0]]);
        for (const d of standing()) counts.set(d.assetSymbol, (counts.get(d.assetSymbol) ?? 0) + 1);
        for (const [asset_symbol, n] of counts) this.set({ asset_symbol }, n);
      },
    });
    this.ledgerReported = new Counter({
      name: 'custody_ledger_discrepancies_reported_total',
      help: 'Discrepancies between the books and the chain reported (once per address, asset and amount), by asset', labelNames: ['asset_symbol'], registers,
    });
  }

  /** Exposes the balance scanner's lag (head − cursor at its level, in blocks) as a gauge read at each scrape. */
  watchScannerLag(lag: () => number | null): void {
    if (this.scannerLagWatched) return;
    this.scannerLagWatched = true;
    new Gauge({
      name: 'custody_scanner_lag_blocks', help: 'Blocks between the chain head (at the scan level) and the scanner cursor',
      registers: [this.registry],
      collect() { const value = lag(); if (value !== null) this.set(value); },
    });
  }

  /**
   * Follows the balance scanner's check of the chain (issue #34): its stops for a node on another chain than the
   * store's cursor are counted (custody_scanner_chain_mismatches_total, by reason), and the stop is what
   * {@link scannerChainMismatch} answers for readiness and `/healthz`.
   */
  watchScannerChain(status: () => { readonly chainMismatch: string | null; readonly chainMismatches: number }): void {
    if (this.scannerChain !== null) return;
    this.scannerChain = () => status().chainMismatch;
    let counted = 0;
    new Counter({
      name: 'custody_scanner_chain_mismatches_total',
      help: 'Times the balance scanner stopped because the node follows another chain than the one the store was scanning, by reason '
        + '(genesis: another genesis block; behind: a head below the cursor and every block kept; fork: no common block among a full window)',
      labelNames: ['reason'], registers: [this.registry],
      collect() {
        const now = status();
        if (now.chainMismatch !== null && now.chainMismatches > counted) this.inc({ reason: now.chainMismatch }, now.chainMismatches - counted);
        counted = now.chainMismatches;
      },
    });
  }

  /**
   * Why this process's balance scanner stopped (the node follows another chain than the store's cursor), null while
   * it runs, undefined when no scanner runs in this process.
   */
  scannerChainMismatch(): string | null | undefined {
    return this.scannerChain === null ? undefined : this.scannerChain();
  }

  /**
   * Exposes the collection tasks in each status now as a gauge read at each scrape (every status, 0 when none). A
   * store failure leaves the gauge without samples for that scrape instead of failing /metrics.
   */
  watchTasksByStatus(count: () => Promise<ReadonlyMap<number, number>>): void {
    if (this.tasksWatched) return;
    this.tasksWatched = true;
    new Gauge({
      name: 'custody_tasks', help: 'Collection tasks in each status now (a scrape-time count from the store)',
      labelNames: ['workflow', 'status'], registers: [this.registry],
      async collect() {
        this.reset();
        const counts = await count().catch(() => null);
        if (counts === null) return;
        for (const status of new Set([...COLLECTION_NAMES.keys(), ...counts.keys()])) {
          this.set({ workflow: 'collection', status: collectionStatusName(status) }, counts.get(status) ?? 0);
        }
      },
    });
  }

  /** One API request (route = the pattern, `unmatched` for 404/405). */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  stage(workflow: string, outcome: string): void { this.stages.inc({ workflow, outcome }); }
  /** One automatic collection trigger judged (issue #24 item 4): started, waiting (fee cap), busy, skipped kinds. */
  autoCollect(outcome: string): void { this.autoCollects.inc({ outcome }); }
  /** One watched payment request judged (issue #25): judged, started, skipped, busy, raced (unchanged is not counted). */
  paymentWatched(outcome: string): void { this.paymentWatches.inc({ outcome }); }

  /**
   * The custody_forwards_pending gauge of `kind` (issue #34): a count the worker's pass reports, or a function read at
   * each scrape (the automatic collector's resting triggers).
   */
  forwardsPending(kind: 'payment' | 'auto_collect', count: number | (() => number)): void { this.pendingForwardCounts.set(kind, count); }
  workflowStuck(workflow: string, step: string): void {
    this.stuck.inc({ workflow, step });
    for (const p of Object.values(this.periods)) p.stuck += 1;
  }
  workflowRetry(workflow: string, step: string): void { this.retries.inc({ workflow, step }); }
  /** A workflow looked at a sent transaction: from the scanner's blocks, or by asking a node (issue #27). */
  followed(workflow: string, source: string): void { this.follows.inc({ workflow, source }); }
  /** One request sent to a node (the path, e.g. `wallet/getaccount`; a bounded set) and what it was for. */
  nodeCall(endpoint: string, purpose: NodeCallPurpose): void { this.nodeCalls.inc({ endpoint, purpose }); }
  passFailed(workflow: string): void { this.tickFailures.inc({ workflow }); }
  ticked(nowMs: number): void {
    this.lastTickAt = nowMs;
    this.lastTick.set(nowMs / 1_000);
  }

  /** When the worker loop last completed a tick (ms since the epoch); null before the first. */
  lastTickAt: number | null = null;
  taskFinished(workflow: string, status: string): void { this.finished.inc({ workflow, status }); }

  /** A collection that reached DONE or FAILED: its end status, each completed step's duration and what it cost. */
  collectionFinished(task: CollectionTask): void {
    this.taskFinished('collection', collectionStatusName(task.status));
    for (const p of Object.values(this.periods)) {
      p.collections += 1;
      if (task.status === COLLECTION_STATUS.FAILED) p.failedCollections += 1;
      if (task.cost !== undefined) p.costSun += totalCostSun(task.cost);
    }
    for (const step of task.steps) {
      if (step.completedAt !== null) {
        this.stepDuration.observe({ workflow: 'collection', step: collectionStatusName(step.status) }, Math.max(0, step.completedAt - step.startedAt) / 1_000);
      }
    }
    if (task.cost !== undefined) {
      const sun = totalCostSun(task.cost);
      this.sweepCost.inc(Number(sun));
      this.sweepCostEach.observe(Number(sun) / 1e6);
    }
  }

  /**
   * A reconciliation pass (issue #36): the discrepancies standing after it (the gauge) and those it reported now
   * (the counter and the daily summary's `ledgerDiscrepancies`; the summary also lists what stands).
   */
  ledgerReconciled(standing: readonly LedgerDiscrepancy[], reported: readonly LedgerDiscrepancy[]): void {
    this.ledgerStanding = standing;
    for (const d of reported) this.ledgerReported.inc({ asset_symbol: d.assetSymbol });
    for (const p of Object.values(this.periods)) p.ledgerDiscrepancies += reported.length;
  }

  /**
   * A collection's booking this process wrote (issue #36): the daily summary's `ledgerSweeps` and `ledgerFeesSun` are
   * read from the booked entries (the fee accounts: the chain fees and the energy rental paid off chain), beside
   * `costSun` from the tasks' cost records.
   */
  sweepBooked(entries: readonly { readonly account: { readonly kind: string }; readonly amount: bigint }[]): void {
    const fees = entries.filter((e) => e.account.kind.startsWith('fee_')).reduce((sum, e) => sum + e.amount, 0n);
    for (const p of Object.values(this.periods)) {
      p.ledgerSweeps += 1;
      p.ledgerFeesSun += fees;
    }
  }

  /** The discrepancies standing after the last reconciliation pass in this process. */
  ledgerDiscrepancies(): readonly LedgerDiscrepancy[] {
    return this.ledgerStanding;
  }

  webhookAttempt(status: DeliveryStatus, durationMs: number): void {
    const name = deliveryStatusName(status);
    this.webhookAttempts.inc({ status: name });
    this.webhookDuration.observe({ status: name }, durationMs / 1_000);
    if (status === DELIVERY_STATUS.DEAD) {
      this.webhookDead.inc();
      for (const p of Object.values(this.periods)) p.deadWebhooks += 1;
    }
  }

  /** A request a node failed as a node; `node` is its origin (scheme, host and port: no path, no credentials). */
  chainNodeFailure(node: string): void {
    this.nodeFailures.inc({ node });
  }

  /** The chain gateway with every call counted and timed, and its failures counted by error code. */
  meterChain(chain: ChainGateway): ChainGateway {
    return new Proxy(chain, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        return (...args: unknown[]) => {
          this.chainCalls.inc({ method: property });
          const end = this.chainDuration.startTimer({ method: property });
          const failed = (error: unknown): never => {
            this.chainErrors.inc({ method: property, kind: errorKind(error) });
            throw error;
          };
          try {
            const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
            return result instanceof Promise ? result.then((r) => { end(); return r; }, (e: unknown) => { end(); return failed(e); }) : (end(), result);
          } catch (error) {
            end();
            return failed(error);
          }
        };
      },
    });
  }

  /** The address lock with refused acquisitions counted (another holder: a conflict); still an instance of its class. */
  meterLock(lock: AddressLock): AddressLock {
    return intercept(lock, 'acquire', (acquire) => async (key: string, ttlMs: number) => {
      const grant = await acquire(key, ttlMs);
      if (grant === null) this.lockConflicts.inc();
      return grant;
    });
  }

  /** The idempotency store with each begin counted by outcome; still an instance of its class. */
  meterIdempotency(store: IdempotencyStore): IdempotencyStore {
    return intercept(store, 'begin', (begin) => async (...args: Parameters<IdempotencyStore['begin']>) => {
      const result = await begin(...args);
      this.idempotency.inc({ outcome: result.outcome });
      return result;
    });
  }

  /** The text Prometheus scrapes. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}

/** A discrepancy between the books and the chain as the metrics and the daily summary keep it (no user data beyond the address). */
export interface LedgerDiscrepancy {
  readonly networkCode: string;
  readonly address: string;
  readonly assetSymbol: string;
  /** What nothing explains, in the asset's smallest unit. */
  readonly unexplained: bigint;
  /** TRX: what nothing explains of the stake (issue #36), chain minus books, staked and unstaking; absent or 0n: none. */
  readonly stakeUnexplained?: { readonly staked: bigint; readonly unstaking: bigint };
}

/** Totals of one reporting period in this process; `take` returns them and starts the next period. */
export class PeriodTotals {
  collections = 0;
  failedCollections = 0;
  costSun = 0n;
  stuck = 0;
  deadWebhooks = 0;
  /** Discrepancies between the books and the chain reported (issue #36). */
  ledgerDiscrepancies = 0;
  /** Collections booked in the ledger by this process, and the chain fees those bookings hold (issue #36). */
  ledgerSweeps = 0;
  ledgerFeesSun = 0n;

  take(): {
    collections: number; failedCollections: number; costSun: string; stuck: number; deadWebhooks: number; ledgerDiscrepancies: number;
    ledgerSweeps: number; ledgerFeesSun: string;
  } {
    const totals = {
      collections: this.collections, failedCollections: this.failedCollections, costSun: this.costSun.toString(),
      stuck: this.stuck, deadWebhooks: this.deadWebhooks, ledgerDiscrepancies: this.ledgerDiscrepancies,
      ledgerSweeps: this.ledgerSweeps, ledgerFeesSun: this.ledgerFeesSun.toString(),
    };
    this.collections = this.failedCollections = this.stuck = this.deadWebhooks = this.ledgerDiscrepancies = this.ledgerSweeps = 0;
    this.costSun = 0n;
    this.ledgerFeesSun = 0n;
    return totals;
  }
}

/**
 * `target` with one method replaced by `wrap(original)`: a Proxy, so `instanceof` and every other member stay the
 * adapter's own (methods are bound to the adapter, whose private fields a proxy receiver could not reach).
 */
function intercept<T extends object, K extends keyof T & string>(target: T, method: K, wrap: (original: T[K]) => T[K]): T {
  const wrapped = wrap((target[method] as (...args: unknown[]) => unknown).bind(target) as T[K]);
  return new Proxy(target, {
    get(t, property) {
      if (property === method) return wrapped;
      const value: unknown = Reflect.get(t, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(t) : value;
    },
  });
}

/** An error's code (the catalogue's, e.g. BIZ-… or CHAIN-…) when it has one, else its class name. */
function errorKind(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_-]{1,64}$/.test(code)) return code;
  return error instanceof Error ? error.name : 'unknown';
}

const COLLECTION_NAMES = new Map<number, string>(Object.entries(COLLECTION_STATUS).map(([name, value]) => [value, name]));
const DELIVERY_NAMES = new Map<number, string>(Object.entries(DELIVERY_STATUS).map(([name, value]) => [value, name]));

function collectionStatusName(status: number): string {
  return COLLECTION_NAMES.get(status) ?? String(status);
}

function deliveryStatusName(status: number): string {
  return DELIVERY_NAMES.get(status) ?? String(status);
}
