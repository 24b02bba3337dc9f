import { formatAmount } from '../domain/amount.js';
import { isTerminalCollectionStatus } from '../domain/collection-machine.js';
import type { CollectionTask, EnergyPath } from '../domain/model/collection-task.js';
import { NO_COST, totalCostSun } from '../domain/sweep-cost.js';
import type { Ledger } from '../ports/ledger.port.js';
import { COLLECTION_CAUSE, collectionBookingTime } from './ledger-bookings.js';

/**
 * The fees a collection's booking holds (issue #36): `fee_bandwidth`, `fee_trx_burned` (energy and activation) and
 * `fee_energy_rental` (the rental price, paid off chain from the provider's prepaid balance).
 */
export interface BookedCollectionFees {
  readonly bandwidthSun: bigint;
  readonly burntSun: bigint;
  readonly rentalSun: bigint;
}

/** The fees of the task's booking in the ledger, null while it is not booked (not finished, or waiting for receipts). */
export async function bookedCollectionFees(ledger: Pick<Ledger, 'entries'>, task: CollectionTask): Promise<BookedCollectionFees | null> {
  const at = collectionBookingTime(task);
  if (at === null) return null;
  const { items } = await ledger.entries(task.userId, { causeType: COLLECTION_CAUSE, from: at, to: at }, { offset: 0, limit: 1_000 });
  const own = items.filter((e) => e.cause.id === task.taskNo);
  if (own.length === 0) return null;
  const sum = (kind: string) => own.filter((e) => e.account.kind === kind).reduce((total, e) => total + e.amount, 0n);
  return { bandwidthSun: sum('fee_bandwidth'), burntSun: sum('fee_trx_burned'), rentalSun: sum('fee_energy_rental') };
}

/** What a collection actually cost, in SUN integer strings (the extension route GET /collections/{taskNo}/costs). */
export interface CollectionCostView {
  readonly task_no: string;
  readonly asset_symbol: string;
  /** The energy source used, else the one the plan chose; `none`: the sub-address had the energy; null: no plan. */
  readonly energy_path: EnergyPath | 'none' | null;
  /** The rental provider of the rental path, else null. */
  readonly provider: string | null;
  /** No receipt can change the cost any more: the task is DONE or FAILED and any post-failure reclaim is done. */
  readonly final: boolean;
  readonly cost: {
    /** bandwidth_burned + energy_burned + activation + rental (TRX lent and returned cost nothing). */
    readonly total_sun: string;
    readonly bandwidth_burned_sun: string;
    readonly energy_burned_sun: string;
    /** The chain's own fees beyond bandwidth and energy (an account's creation). */
    readonly activation_sun: string;
    readonly rental_sun: string;
    readonly lent_sun: string;
    readonly returned_sun: string;
    /** The transactions whose receipts are counted, in the order they were read. */
    readonly txids: readonly string[];
  };
  /** The plan decided at PENDING (TRC20 only): its expected cost and every source it priced; null without a plan. */
  readonly estimate: {
    readonly total_sun: string;
    readonly options: readonly {
      readonly path: EnergyPath | 'none';
      readonly provider: string | null;
      readonly cost_sun: string;
      readonly refusal: string | null;
    }[];
  } | null;
}

/**
 * The cost view of a task: zeros before its first receipt; `estimate` null on TRX sweeps and before planning. Once the
 * task is booked (`booked`, issue #36), the fees are the ledger's: bandwidth is its `fee_bandwidth`, energy its
 * `fee_trx_burned` less the activation (the one split the ledger does not keep), the rental its `fee_energy_rental`;
 * TRX lent and returned and the txids stay the cost record's.
 */
export function toCollectionCostView(task: CollectionTask, booked: BookedCollectionFees | null = null): CollectionCostView {
  const recorded = task.cost ?? NO_COST;
  const cost = booked === null ? recorded : {
    ...recorded, bandwidthSun: booked.bandwidthSun, rentalSun: booked.rentalSun,
    energySun: booked.burntSun > recorded.activationSun ? booked.burntSun - recorded.activationSun : 0n,
  };
  const plan = task.plan;
  const reclaimPending = task.reclaim !== undefined && task.reclaim.status !== 'done';
  return {
    task_no: task.taskNo,
    asset_symbol: task.assetSymbol,
    energy_path: task.energyPath ?? plan?.path ?? null,
    provider: plan?.provider ?? null,
    final: isTerminalCollectionStatus(task.status) && !reclaimPending,
    cost: {
      total_sun: formatAmount(totalCostSun(cost)),
      bandwidth_burned_sun: formatAmount(cost.bandwidthSun),
      energy_burned_sun: formatAmount(cost.energySun),
      activation_sun: formatAmount(cost.activationSun),
      rental_sun: formatAmount(cost.rentalSun),
      lent_sun: formatAmount(cost.lentSun),
      returned_sun: formatAmount(cost.returnedSun),
      txids: [...cost.txids],
    },
    estimate: plan === undefined ? null : {
      total_sun: formatAmount(plan.estimatedCostSun),
      options: plan.options.map((o) => ({ path: o.path, provider: o.provider, cost_sun: formatAmount(o.costSun), refusal: o.refusal })),
    },
  };
}
