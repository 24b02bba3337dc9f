import type { OperatorStatusJson, OperatorStatusKind, OperatorStatusStore } from '../../../core/ports/operator-status-store.port.js';
import { defineRoute, type RouteDef } from '../route.js';
import { s } from '../openapi-schemas.js';

/**
 * A health snapshot older than this is shown as stale: the worker writes one every minute, so three missed minutes
 * mean no worker is writing (stopped, or cut off from the store).
 */
export const HEALTH_STALE_AFTER_S = 180;

/** The record's keys in snake_case, as on the wire (the worker writes camelCase); values are kept. */
function snake(value: OperatorStatusJson): OperatorStatusJson {
  if (Array.isArray(value)) return value.map(snake);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(v)]));
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');

/** What the API tells of one kind: when it was written, its age on the API's clock, and the record itself. */
async function latest(store: OperatorStatusStore, kind: OperatorStatusKind, now: number): Promise<{ written_at: string | null; age_seconds: number | null; body: OperatorStatusJson }> {
  const record = await store.get(kind);
  if (record === null) return { written_at: null, age_seconds: null, body: null };
  return { written_at: iso(record.at), age_seconds: Math.max(0, Math.floor((now - record.at) / 1_000)), body: snake(record.body) };
}

const written = { written_at: s.nullable(s.str('ISO 8601 with offset: when the worker wrote it; null before its first write')), age_seconds: s.nullable(s.int('seconds since, on the API\'s clock')) };

/** The operator's view of the worker (issue #38 item 2): what the worker wrote to the store (OperatorStatusStore). */
export function operatorStatusRoutes(store: OperatorStatusStore, now: () => number): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/admin/health', auth: 'admin',
      docs: {
        operationId: 'getWorkerHealth',
        summary: 'The worker\'s node and scanner health: scanner lag, node calls, paused nodes, rate limits (extension, issue #38)', tag: 'Admin',
        description: 'The snapshot a worker writes every minute: the balance scanner\'s lag (blocks, and seconds at the block time), the node '
          + 'calls it made by purpose since it started, and each scanner node with its calls in the budget window, budget left, pause '
          + '(a Retry-After or back-off after a failure, or a spent budget), failures (HTTP 429/403 refusals among them) and last error. '
          + '`status` is `stale` when the snapshot is older than 180 s (no worker writing), `none` before the first.',
        data: s.obj({
          status: s.enumOf(['fresh', 'stale', 'none']), stale_after_seconds: s.int(), ...written,
          snapshot: s.nullable(s.obj({
            scanner: s.obj({ lag_blocks: s.nullable(s.int()), lag_seconds: s.nullable(s.int()), chain_mismatch: s.nullable(s.str('why the scanner stopped for a node on another chain')) }),
            last_tick_at: s.nullable(s.int('epoch ms of the worker\'s last completed pass')),
            node_calls: s.map(s.int()), node_failures: s.map(s.int()),
            nodes: s.arr(s.obj({
              node: s.str('the node\'s origin (scheme, host, port)'), calls: s.int(), consecutive_failures: s.int(), paused: s.bool(),
              paused_until: s.nullable(s.int('epoch ms')), budget: s.nullable(s.int('calls per day (TRON_NODE_DAILY_CALLS)')),
              budget_left: s.nullable(s.int()), last_error: s.nullable(s.str()), failures: s.int(),
            })),
          })),
        }),
        example: {
          status: 'fresh', stale_after_seconds: HEALTH_STALE_AFTER_S, written_at: '2026-05-25T10:00:00+00:00', age_seconds: 12,
          snapshot: {
            scanner: { lag_blocks: 2, lag_seconds: 6, chain_mismatch: null }, last_tick_at: 1_779_703_199_000,
            node_calls: { scan: 4_210, plan: 120, follow: 35, broadcast: 9 }, node_failures: { 'https://api.trongrid.io': 3 },
            nodes: [{
              node: 'https://api.trongrid.io', calls: 4_210, consecutive_failures: 1, paused: true, paused_until: 1_779_703_260_000,
              budget: 100_000, budget_left: 95_790, last_error: 'wallet/getnowblock: node answered HTTP 429', failures: 3,
            }],
          },
        },
      },
      handle: async () => {
        const { body, ...when } = await latest(store, 'health', now());
        const status = when.age_seconds === null ? 'none' : when.age_seconds > HEALTH_STALE_AFTER_S ? 'stale' : 'fresh';
        return { status, stale_after_seconds: HEALTH_STALE_AFTER_S, ...when, snapshot: body };
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/admin/daily-summary', auth: 'admin',
      docs: {
        operationId: 'getDailySummary',
        summary: 'The latest daily summary the worker produced (extension, issue #38)', tag: 'Admin',
        description: 'The figures of the worker\'s 00:00 UTC "daily summary" log line for the day before: collections, failed ones, '
          + 'their cost, stuck reports, DEAD webhooks, ledger discrepancies reported, the collections booked and their fees; and the '
          + 'discrepancies between the books and the chain still standing. Totals of the process that wrote it (one worker).',
        data: s.obj({
          ...written,
          summary: s.nullable(s.obj({
            period: s.str(), collections: s.int(), failed_collections: s.int(), cost_sun: s.amount(), stuck: s.int(), dead_webhooks: s.int(),
            ledger_discrepancies: s.int(), ledger_sweeps: s.int(), ledger_fees_sun: s.amount(),
            standing_discrepancies: s.arr(s.obj({
              network_code: s.str(), address: s.str(), asset_symbol: s.str(), unexplained: s.amount(),
              // Issue #36: a TRX line whose stake differs from the books' staked and unstaking accounts (chain minus books).
              staked_unexplained: { type: 'string', pattern: '^-?[0-9]+$', description: 'TRX only, when the stake differs: staked on chain minus in the books' },
              unstaking_unexplained: { type: 'string', pattern: '^-?[0-9]+$', description: 'TRX only, when the stake differs: unstaking on chain minus in the books' },
            }, ['staked_unexplained', 'unstaking_unexplained'])),
          })),
        }),
        example: {
          written_at: '2026-05-25T00:00:00+00:00', age_seconds: 36_000,
          summary: {
            period: 'day', collections: 41, failed_collections: 1, cost_sun: '53400000', stuck: 0, dead_webhooks: 2, ledger_discrepancies: 0,
            ledger_sweeps: 41, ledger_fees_sun: '53400000', standing_discrepancies: [],
          },
        },
      },
      handle: async () => {
        const { body, ...when } = await latest(store, 'daily-summary', now());
        return { ...when, summary: body };
      },
    }),
  ];
}
