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
  /** Usages, decayed to the head by java-tron's Wallet.getAccount (getaccountresource's NetUsed, freeNetUsed). */
  readonly net_usage?: number;
  readonly free_net_usage?: number;
  /** Stake 1.0 (legacy) stakes and delegations: any makes the account's limits need getaccountresource. */
  readonly frozen?: readonly { readonly frozen_balance?: number }[];
  readonly delegated_frozen_balance_for_bandwidth?: number;
  readonly acquired_delegated_frozen_balance_for_bandwidth?: number;
  readonly frozenV2?: readonly { readonly type?: string; readonly amount?: number }[];
  readonly unfrozenV2?: readonly { readonly type?: string; readonly unfreeze_amount?: number; readonly unfreeze_expire_time?: number }[];
  readonly delegated_frozenV2_balance_for_bandwidth?: number;
  readonly acquired_delegated_frozenV2_balance_for_bandwidth?: number;
  readonly account_resource?: {
    readonly delegated_frozenV2_balance_for_energy?: number;
    readonly acquired_delegated_frozenV2_balance_for_energy?: number;
    readonly energy_usage?: number;
    readonly frozen_balance_for_energy?: { readonly frozen_balance?: number };
    readonly delegated_frozen_balance_for_energy?: number;
    readonly acquired_delegated_frozen_balance_for_energy?: number;
  };
}

/**
 * The account's resources from its `wallet/getaccount` alone, when it holds no stake and no delegation in or out
 * (Stake 2.0 or 1.0): then its energy and staked bandwidth limits are 0 whatever the network's totals, its free
 * bandwidth limit is the chain's getFreeNetLimit, and java-tron's getaccount reports the usages decayed to the head
 * (Wallet.getAccount runs the processors' updateUsage first), the values getaccountresource would. Null when the
 * account's limits need getaccountresource.
 */
export function accountOnlyResources(account: AccountJson, freeNetLimit: number, nowMs: number): ChainResources | null {
  const some = (v: number | undefined): boolean => (v ?? 0) > 0;
  const r = account.account_resource;
  if ((account.frozenV2 ?? []).some((f) => some(f.amount)) || (account.frozen ?? []).some((f) => some(f.frozen_balance))
    || some(account.delegated_frozenV2_balance_for_bandwidth) || some(account.acquired_delegated_frozenV2_balance_for_bandwidth)
    || some(account.delegated_frozen_balance_for_bandwidth) || some(account.acquired_delegated_frozen_balance_for_bandwidth)
    || some(r?.delegated_frozenV2_balance_for_energy) || some(r?.acquired_delegated_frozenV2_balance_for_energy)
    || some(r?.frozen_balance_for_energy?.frozen_balance) || some(r?.delegated_frozen_balance_for_energy)
    || some(r?.acquired_delegated_frozen_balance_for_energy)) return null;
  const resource: AccountResourceJson = {
    freeNetLimit, freeNetUsed: account.free_net_usage ?? 0, NetLimit: 0, NetUsed: account.net_usage ?? 0,
    EnergyLimit: 0, EnergyUsed: r?.energy_usage ?? 0,
  };
  return toChainResources(account, resource, nowMs, { delegatedTo: [], receivedFrom: [] });
}

/**
 * What `wallet/getcandelegatedmaxsize` answers for ENERGY, from the same account's `wallet/getaccount` reply, where
 * that is exact without java-tron's arithmetic; null where only the node can say (usage above 0: its answer goes
 * through a double conversion of usage to stake that is not copied here).
 * java-tron (Wallet.calcCanDelegatedEnergyMaxSize and getCanDelegatedMaxSize; FreezeV2Util.getV2EnergyUsage): the
 * owner's energy usage, updated to the head slot (EnergyProcessor.updateUsage), is converted to stake and less the
 * stake that is not Stake 2.0's own (v1, acquired) taken from getFrozenV2BalanceForEnergy (the frozenV2 entries of
 * type ENERGY), floored at 0; an answer under 1 TRX is 0. Wallet.getAccount runs the same updateUsage at the same head
 * before reporting `account_resource.energy_usage`, so one reply gives both parts from one state:
 * - usage 0: the v2 usage is max(0, 0 − …) = 0, and the answer is the ENERGY stake itself (0 under 1 TRX);
 * - no ENERGY stake: 0 − (a usage ≥ 0) floored at 0 is 0, whatever the usage;
 * - an account that does not exist (an empty reply): 0, as java-tron answers for a missing owner.
 */
export function canDelegateEnergyOf(account: AccountJson): bigint | null {
  const staked = (account.frozenV2 ?? []).filter((f) => f.type === 'ENERGY').reduce((sum, f) => sum + BigInt(f.amount ?? 0), 0n);
  if (staked === 0n) return 0n;
  if ((account.account_resource?.energy_usage ?? 0) !== 0) return null;
  return staked < 1_000_000n ? 0n : staked;
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
  readonly receipt?: { readonly result?: string; readonly energy_usage_total?: number; readonly net_fee?: number; readonly energy_fee?: number };
  /** A WithdrawBalance's reward, and unstaked TRX past its wait that a transaction withdrew (issue #36: staking booked). */
  readonly withdraw_amount?: number;
  readonly withdraw_expire_amount?: number;
}

/** Free bandwidth per address per day on TRON (spec §2: fixed 600); used when a node omits freeNetLimit. */
export const FREE_BANDWIDTH_PER_DAY = 600;

const big = (n: number | undefined): bigint => BigInt(Math.trunc(n ?? 0));
const int = (n: number | undefined): number => Math.max(0, Math.trunc(n ?? 0));

/**
 * The spec §2 resources object. `stakedSun` is everything the address staked for the resource, including the
 * part it delegated out (TronScan's "staked"); `delegatedOutSun` is that part, so `stakedSun − delegatedOutSun`
 * is what backs the address's own limit. `withdrawableSun` sums unstaking entries whose wait ended at `nowMs`
 * (chain time: the head block's timestamp, not the server clock), `unstakingSun` those still waiting.
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
  let unstaking = 0n;
  for (const u of account.unfrozenV2 ?? []) {
    if ((u.unfreeze_expire_time ?? 0) <= nowMs) withdrawable += big(u.unfreeze_amount);
    else unstaking += big(u.unfreeze_amount);
  }
  const energyLimit = int(resource.EnergyLimit);
  const energyUsed = int(resource.EnergyUsed);
  const energyAvailable = energyAvailableOf(resource);
  const freeLimit = resource.freeNetLimit === undefined ? FREE_BANDWIDTH_PER_DAY : int(resource.freeNetLimit);
  const freeUsed = int(resource.freeNetUsed);
  const stakedLimit = int(resource.NetLimit);
  const stakedUsed = int(resource.NetUsed);
  return {
    energy: {
      available: energyAvailable,
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
    unstakingSun: unstaking,
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
  // java-tron's receipt splits the fee: bandwidth burnt (net_fee), energy burnt (energy_fee); the rest of `fee` is a
  // system contract's own fee (an account creation's 1 TRX, a delegation's none).
  const fees = { netFeeSun: big(info.receipt?.net_fee), energyFeeSun: big(info.receipt?.energy_fee) };
  const receiptResult = info.receipt?.result;
  if (info.result === 'FAILED' || (receiptResult !== undefined && receiptResult !== 'SUCCESS')) {
    const reason = receiptResult ?? (decodeNodeMessage(info.resMessage) || 'FAILED');
    return { state: 'failed', blockNumber, reason, feeSun, ...fees };
  }
  return {
    state: 'confirmed',
    blockNumber,
    confirmations: Math.max(1, headNumber - blockNumber + 1),
    solidified,
    feeSun,
    ...fees,
    energyUsed: int(info.receipt?.energy_usage_total),
    ...(info.withdraw_amount ? { withdrawAmountSun: big(info.withdraw_amount) } : {}),
    ...(info.withdraw_expire_amount ? { withdrawExpireAmountSun: big(info.withdraw_expire_amount) } : {}),
  };
}

/** Energy the account can spend now: its limit (own stake and received delegations) less what it used. */
export function energyAvailableOf(resource: AccountResourceJson): number {
  return Math.max(0, int(resource.EnergyLimit) - int(resource.EnergyUsed));
}

/** Energy units one SUN of stake yields at the network's current ratio (TotalEnergyLimit / TotalEnergyWeight TRX). */
export function energyPerSun(resource: AccountResourceJson): number {
  const limit = resource.TotalEnergyLimit ?? 0;
  const weight = resource.TotalEnergyWeight ?? 0;
  if (!(limit > 0) || !(weight > 0)) return 0;
  return limit / weight / 1_000_000;
}

/** The parts of `wallet/triggerconstantcontract` (a dry run) the gateway reads. */
export interface DryRunJson {
  readonly result?: { readonly result?: boolean; readonly code?: string; readonly message?: string };
  readonly energy_used?: number;
  readonly constant_result?: readonly string[];
  readonly transaction?: { readonly ret?: readonly { readonly ret?: string }[] };
}

/** What a dry run says: the energy it used, a revert (with the reason when the contract gave one), or nothing usable. */
export type DryRun =
  | { readonly outcome: 'ok'; readonly energy: number }
  | { readonly outcome: 'revert'; readonly reason: string }
  | { readonly outcome: 'unusable' };

/** Solidity's `Error(string)` selector: a revert reason ABI-encoded in the returned data. */
const ERROR_SELECTOR = '08c379a0';

function revertReason(data: string | undefined): string | null {
  if (!data?.startsWith(ERROR_SELECTOR)) return null;
  try {
    const body = data.slice(8);
    const length = Number.parseInt(body.slice(64, 128), 16);
    const text = Buffer.from(body.slice(128, 128 + length * 2), 'hex').toString('utf8');
    return length > 0 && length < 1_000 ? text : null;
  } catch {
    return null;
  }
}

/**
 * Reads a dry run of a contract call. java-tron reports a revert as `result.result: true` with `result.message`
 * "REVERT opcode executed" (hex unless visible) and `transaction.ret[0].ret: "FAILED"`: only all three together
 * count as a revert. A call that did not fail and used energy is `ok`; anything else (a refusal, a failure other
 * than a revert, no energy figure) is `unusable`, and its energy figure must not be trusted.
 */
export function readDryRun(reply: DryRunJson): DryRun {
  const said = decodeNodeMessage(reply.result?.message);
  const ret = reply.transaction?.ret?.[0]?.ret;
  if (reply.result?.result === true && /REVERT opcode executed/i.test(said) && ret === 'FAILED') {
    return { outcome: 'revert', reason: revertReason(reply.constant_result?.[0]) ?? said };
  }
  const energy = Number(reply.energy_used ?? 0);
  const clean = reply.result?.result === true && ret !== 'FAILED' && !/REVERT/i.test(said);
  if (clean && Number.isSafeInteger(energy) && energy > 0) return { outcome: 'ok', energy };
  return { outcome: 'unusable' };
}
