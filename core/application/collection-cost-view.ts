import { formatAmount } from '../domain/amount.js';
import { isTerminalCollectionStatus } from '../domain/collection-machine.js';
import type { CollectionTask, EnergyPath } from '../domain/model/collection-task.js';
import { NO_COST, totalCostSun } from '../domain/sweep-cost.js';

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

/** The cost view of a task: zeros before its first receipt; `estimate` null on TRX sweeps and before planning. */
export function toCollectionCostView(task: CollectionTask): CollectionCostView {
  const cost = task.cost ?? NO_COST;
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
