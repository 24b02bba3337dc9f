/**
 * Renders state into java-tron's HTTP JSON shapes. java-tron prints protobuf messages, which omit fields at their
 * default value (0, "", false, empty lists); the renderers follow that so clients see the same presence rules.
 */
import { pendingReward } from './actuators.js';
import { MAX_UNFREEZE_ENTRIES, RESOURCE_WINDOW_MS, BLOCK_INTERVAL_MS, type ChainParams } from './constants.js';
import type { BlockRecord, Chain, TxRecord } from './chain.js';
import { energyLimit, energyUsed, freeNetUsed, netLimit, netUsed, totalEnergyWeight, totalNetWeight } from './resources.js';
import { tronPower, type Account, type ChainState, type Delegation } from './state.js';

type Json = Record<string, unknown>;

/** Drops keys whose value is a protobuf default. */
export function compact(o: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === 0 || v === '' || v === false || v === undefined || v === null) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as Json).length === 0) continue;
    out[k] = v;
  }
  return out;
}

const WINDOW_SLOTS = RESOURCE_WINDOW_MS / BLOCK_INTERVAL_MS;

/**
 * wallet/getaccount. Its usages are decayed to `now`, as java-tron's Wallet.getAccount runs the bandwidth and energy
 * processors' updateUsage before answering (the same values getaccountresource reports as freeNetUsed, NetUsed and
 * EnergyUsed); the latest-consume times stay the stored ones.
 */
export function accountJson(a: Account, now: number): Json {
  const frozenV2 = [
    compact({ amount: a.frozenBandwidth }),
    compact({ type: 'ENERGY', amount: a.frozenEnergy }),
    { type: 'TRON_POWER' },
  ];
  return compact({
    account_name: '',
    type: a.isContract ? 'Contract' : undefined,
    address: a.address,
    balance: a.balance,
    votes: a.votes.map((v) => ({ vote_address: v.address, vote_count: v.count })),
    create_time: a.createTime,
    allowance: a.allowance,
    latest_opration_time: a.latestOperationTime,
    latest_withdraw_time: a.latestWithdrawTime,
    net_usage: netUsed(a, now),
    latest_consume_time: a.latestConsumeTime,
    free_net_usage: freeNetUsed(a, now),
    latest_consume_free_time: a.latestConsumeFreeTime,
    net_window_size: WINDOW_SLOTS,
    net_window_optimized: true,
    account_resource: compact({
      energy_usage: energyUsed(a, now),
      latest_consume_time_for_energy: a.latestConsumeTimeForEnergy,
      energy_window_size: WINDOW_SLOTS,
      energy_window_optimized: true,
      delegated_frozenV2_balance_for_energy: a.delegatedEnergy,
      acquired_delegated_frozenV2_balance_for_energy: a.acquiredEnergy,
    }),
    owner_permission: {
      permission_name: 'owner',
      threshold: 1,
      keys: [{ address: a.address, weight: 1 }],
    },
    frozenV2,
    unfrozenV2: a.unfrozen.map((u) =>
      compact({ type: u.type === 'ENERGY' ? 'ENERGY' : undefined, unfreeze_amount: u.amount, unfreeze_expire_time: u.expireTime }),
    ),
    delegated_frozenV2_balance_for_bandwidth: a.delegatedBandwidth,
    acquired_delegated_frozenV2_balance_for_bandwidth: a.acquiredBandwidth,
  });
}

/** wallet/getaccountresource (usage decayed to `now`, as java-tron's resource processors update before reporting). */
export function accountResourceJson(a: Account, s: ChainState, p: ChainParams, now: number): Json {
  const tp = tronPower(a);
  return compact({
    ...netFields(a, s, p, now),
    tronPowerUsed: a.votes.reduce((n, v) => n + v.count, 0),
    tronPowerLimit: tp,
    EnergyUsed: energyUsed(a, now),
    EnergyLimit: energyLimit(a, s, p),
    TotalEnergyLimit: p.totalEnergyLimit,
    TotalEnergyWeight: totalEnergyWeight(s, p),
  });
}

/** wallet/getaccountnet. */
export function accountNetJson(a: Account, s: ChainState, p: ChainParams, now: number): Json {
  return compact(netFields(a, s, p, now));
}

/** The bandwidth fields getaccountnet and getaccountresource share. */
function netFields(a: Account, s: ChainState, p: ChainParams, now: number): Record<string, number> {
  return {
    freeNetUsed: freeNetUsed(a, now),
    freeNetLimit: p.freeNetLimit,
    NetUsed: netUsed(a, now),
    NetLimit: netLimit(a, s, p),
    TotalNetLimit: p.totalNetLimit,
    TotalNetWeight: totalNetWeight(s, p),
  };
}

/** A transaction as it appears in blocks and gettransactionbyid. */
export function txJson(r: TxRecord): Json {
  return {
    ret: [{ contractRet: r.contractRet }],
    signature: r.tx.signature,
    txID: r.tx.txID,
    raw_data: r.tx.raw_data,
    raw_data_hex: r.tx.raw_data_hex,
  };
}

/** A block; getblock with detail=false omits the transactions. */
export function blockJson(chain: Chain, b: BlockRecord, detail = true): Json {
  const out: Json = {
    blockID: b.id,
    block_header: {
      raw_data: compact({
        number: b.number,
        txTrieRoot: b.txTrieRoot,
        witness_address: b.witness,
        parentHash: b.parentHash,
        version: 31,
        timestamp: b.time,
      }),
      witness_signature: chain.witnessSignature(b),
    },
  };
  if (detail && b.txIds.length) out['transactions'] = b.txIds.map((id) => txJson(chain.txs.get(id)!));
  return out;
}

/** gettransactioninfobyid. */
export function txInfoJson(r: TxRecord): Json {
  const i = r.info;
  return compact({
    id: i.id,
    fee: i.fee,
    blockNumber: i.blockNumber,
    blockTimeStamp: i.blockTimeStamp,
    contractResult: i.contractResult,
    contract_address: i.contract_address,
    receipt: i.receipt,
    log: i.log,
    result: i.result,
    resMessage: i.resMessage,
    withdraw_amount: i.withdraw_amount,
    withdraw_expire_amount: i.withdraw_expire_amount,
    internal_transactions: i.internal_transactions,
  });
}

/** One DelegatedResource entry of getdelegatedresourcev2. */
export function delegationJson(d: Delegation): Json {
  return compact({
    from: d.from,
    to: d.to,
    frozen_balance_for_bandwidth: d.bandwidth,
    frozen_balance_for_energy: d.energy,
    expire_time_for_bandwidth: d.expireBandwidth,
    expire_time_for_energy: d.expireEnergy,
  });
}

/** getavailableunfreezecount. */
export function unfreezeCountJson(a: Account, now: number): Json {
  return compact({ count: MAX_UNFREEZE_ENTRIES - a.unfrozen.filter((u) => u.expireTime > now).length });
}

/** getReward (java-tron prints {"reward": 0} explicitly, so no compaction). */
export function rewardJson(a: Account | undefined, p: ChainParams, now: number): Json {
  return { reward: a ? pendingReward(a, p, now) : 0 };
}

/** getchainparameters in java-tron's key naming. */
export function chainParametersJson(p: ChainParams): Json {
  const entries: Array<[string, number]> = [
    ['getMaintenanceTimeInterval', p.maintenanceTimeInterval],
    ['getAccountUpgradeCost', 9_999_000_000],
    ['getCreateAccountFee', p.createAccountFee],
    ['getTransactionFee', p.transactionFee],
    ['getAssetIssueFee', 1_024_000_000],
    ['getWitnessPayPerBlock', 8_000_000],
    ['getWitnessStandbyAllowance', 115_200_000_000],
    ['getCreateNewAccountFeeInSystemContract', p.createNewAccountFeeInSystemContract],
    ['getCreateNewAccountBandwidthRate', 1],
    ['getAllowCreationOfContracts', 1],
    ['getRemoveThePowerOfTheGr', -1],
    ['getEnergyFee', p.energyFee],
    ['getExchangeCreateFee', 1_024_000_000],
    ['getMaxCpuTimeOfOneTx', 80],
    ['getAllowUpdateAccountName', 0],
    ['getAllowSameTokenName', 1],
    ['getAllowDelegateResource', 1],
    ['getTotalEnergyLimit', p.totalEnergyLimit],
    ['getAllowTvmTransferTrc10', 1],
    ['getTotalEnergyCurrentLimit', p.totalEnergyLimit],
    ['getAllowMultiSign', 1],
    ['getAllowAdaptiveEnergy', 0],
    ['getUpdateAccountPermissionFee', 100_000_000],
    ['getMultiSignFee', 1_000_000],
    ['getAllowProtoFilterNum', 0],
    ['getAllowAccountStateRoot', 0],
    ['getAllowTvmConstantinople', 1],
    ['getAllowTvmSolidity059', 1],
    ['getAllowTvmIstanbul', 1],
    ['getAllowShieldedTRC20Transaction', 1],
    ['getForbidTransferToContract', 0],
    ['getAdaptiveResourceLimitTargetRatio', 10],
    ['getAdaptiveResourceLimitMultiplier', 1000],
    ['getChangeDelegation', 1],
    ['getWitness127PayPerBlock', 128_000_000],
    ['getAllowMarketTransaction', 0],
    ['getMarketSellFee', 0],
    ['getMarketCancelFee', 0],
    ['getAllowPBFT', 0],
    ['getAllowTransactionFeePool', 0],
    ['getMaxFeeLimit', p.maxFeeLimit],
    ['getAllowOptimizeBlackHole', 1],
    ['getAllowNewResourceModel', 1],
    ['getAllowTvmFreeze', 1],
    ['getAllowTvmVote', 1],
    ['getAllowTvmLondon', 1],
    ['getAllowTvmCompatibleEvm', 0],
    ['getAllowAccountAssetOptimization', 0],
    ['getFreeNetLimit', p.freeNetLimit],
    ['getTotalNetLimit', p.totalNetLimit],
    ['getAllowHigherLimitForMaxCpuTimeOfOneTx', 1],
    ['getAllowAssetOptimization', 1],
    ['getAllowNewReward', 1],
    ['getMemoFee', 1_000_000],
    ['getAllowDelegateOptimization', 1],
    ['getUnfreezeDelayDays', p.unfreezeDelayDays],
    ['getAllowOptimizedReturnValueOfChainId', 1],
    ['getAllowDynamicEnergy', 1],
    // The cap java-tron applies to every contract's factor; the devnet's USDT factor may be raised past mainnet's.
    ['getDynamicEnergyMaxFactor', Math.max(34_000, p.usdtEnergyFactor)],
    ['getAllowTvmShangHai', 1],
    ['getAllowCancelAllUnfreezeV2', 1],
    ['getMaxDelegateLockPeriod', p.maxDelegateLockPeriod],
    ['getAllowOldRewardOpt', 1],
    ['getAllowEnergyAdjustment', 1],
    ['getMaxCreateAccountTxSize', 1000],
  ];
  return { chainParameter: entries.map(([key, value]) => (value ? { key, value } : { key })) };
}
