/**
 * Pure mappings from java-tron's HTTP JSON (visible=false: 41-hex addresses, protobuf defaults omitted) to the
 * core's chain types. Kept apart from the gateway so they can be tested without a node.
 */
import type { ChainResources, TransactionState } from '../../core/domain/model/chain.js';
import { decodeNodeMessage } from './tron-errors.js';

/** The parts of `wallet/getaccount` the gateway reads. */
export interface AccountJson {
  readonly address?: string;
  readonly balance?: number;
  readonly frozenV2?: readonly { readonly type?: string; readonly amount?: number }[];
  readonly unfrozenV2?: readonly { readonly type?: string; readonly unfreeze_amount?: number; readonly unfreeze_expire_time?: number }[];
  readonly delegated_frozenV2_balance_for_bandwidth?: number;
  readonly acquired_delegated_frozenV2_balance_for_bandwidth?: number;
  readonly account_resource?: {
    readonly delegated_frozenV2_balance_for_energy?: number;
    readonly acquired_delegated_frozenV2_balance_for_energy?: number;
  };
}

/** The parts of `wallet/getaccountresource` the gateway reads. */
export interface AccountResourceJson {
  readonly freeNetUsed?: number;
  readonly freeNetLimit?: number;
  readonly NetUsed?: number;
  readonly NetLimit?: number;
  readonly EnergyUsed?: number;
  readonly EnergyLimit?: number;
  readonly TotalEnergyLimit?: number;
  readonly TotalEnergyWeight?: number;
}

/** `wallet/gettransactioninfobyid`. */
export interface TransactionInfoJson {
  readonly id?: string;
  readonly fee?: number;
  readonly blockNumber?: number;
  readonly result?: string;
  readonly resMessage?: string;
  readonly receipt?: { readonly result?: string; readonly energy_usage_total?: number };
}

/** Free bandwidth per address per day on TRON (spec §2: fixed 600); used when a node omits freeNetLimit. */
export const FREE_BANDWIDTH_PER_DAY = 600;

const big = (n: number | undefined): bigint => BigInt(Math.trunc(n ?? 0));
const int = (n: number | undefined): number => Math.max(0, Math.trunc(n ?? 0));

/**
 * The spec §2 resources object. `stakedSun` is everything the address staked for the resource, including the
 * part it delegated out (TronScan's "staked"); `delegatedOutSun` is that part, so `stakedSun − delegatedOutSun`
 * is what backs the address's own limit. `withdrawableSun` sums unstaking entries whose wait ended at `nowMs`
 * (chain time: the head block's timestamp, not the server clock).
 */
export function toChainResources(
  account: AccountJson,
  resource: AccountResourceJson,
  nowMs: number,
  lists: { readonly delegatedTo: readonly string[]; readonly receivedFrom: readonly string[] },
): ChainResources {
  let ownEnergy = 0n;
  let ownBandwidth = 0n;
  for (const f of account.frozenV2 ?? []) {
    if (f.type === 'ENERGY') ownEnergy += big(f.amount);
    else if (f.type === undefined || f.type === 'BANDWIDTH') ownBandwidth += big(f.amount);
  }
  const energyOut = big(account.account_resource?.delegated_frozenV2_balance_for_energy);
  const bandwidthOut = big(account.delegated_frozenV2_balance_for_bandwidth);
  let withdrawable = 0n;
  for (const u of account.unfrozenV2 ?? []) {
    if ((u.unfreeze_expire_time ?? 0) <= nowMs) withdrawable += big(u.unfreeze_amount);
  }
  const energyLimit = int(resource.EnergyLimit);
  const energyUsed = int(resource.EnergyUsed);
  const freeLimit = resource.freeNetLimit === undefined ? FREE_BANDWIDTH_PER_DAY : int(resource.freeNetLimit);
  const freeUsed = int(resource.freeNetUsed);
  const stakedLimit = int(resource.NetLimit);
  const stakedUsed = int(resource.NetUsed);
  return {
    energy: {
      available: Math.max(0, energyLimit - energyUsed),
      used: energyUsed,
      limit: energyLimit,
      stakedSun: ownEnergy + energyOut,
      delegatedOutSun: energyOut,
      receivedSun: big(account.account_resource?.acquired_delegated_frozenV2_balance_for_energy),
    },
    bandwidth: {
      freeAvailable: Math.max(0, freeLimit - freeUsed),
      freeUsed,
      freeLimit,
      stakedAvailable: Math.max(0, stakedLimit - stakedUsed),
      stakedUsed,
      stakedLimit,
      stakedSun: ownBandwidth + bandwidthOut,
      delegatedOutSun: bandwidthOut,
      receivedSun: big(account.acquired_delegated_frozenV2_balance_for_bandwidth),
    },
    withdrawableSun: withdrawable,
    delegatedTo: [...lists.delegatedTo],
    receivedFrom: [...lists.receivedFrom],
  };
}

/**
 * Where an included transaction stands. A VM call that did not succeed (receipt.result OUT_OF_ENERGY, REVERT, …)
 * is `failed` even though it is in a block and charged fees; everything else in a block is `confirmed`.
 */
export function toTransactionState(
  info: TransactionInfoJson,
  headNumber: number,
  solidified: boolean,
): TransactionState {
  const blockNumber = int(info.blockNumber);
  const feeSun = big(info.fee);
  const receiptResult = info.receipt?.result;
  if (info.result === 'FAILED' || (receiptResult !== undefined && receiptResult !== 'SUCCESS')) {
    const reason = receiptResult ?? (decodeNodeMessage(info.resMessage) || 'FAILED');
    return { state: 'failed', blockNumber, reason, feeSun };
  }
  return {
    state: 'confirmed',
    blockNumber,
    confirmations: Math.max(1, headNumber - blockNumber + 1),
    solidified,
    feeSun,
    energyUsed: int(info.receipt?.energy_usage_total),
  };
}

/** Energy units one SUN of stake yields at the network's current ratio (TotalEnergyLimit / TotalEnergyWeight TRX). */
export function energyPerSun(resource: AccountResourceJson): number {
  const limit = resource.TotalEnergyLimit ?? 0;
  const weight = resource.TotalEnergyWeight ?? 0;
  if (!(limit > 0) || !(weight > 0)) return 0;
  return limit / weight / 1_000_000;
}
