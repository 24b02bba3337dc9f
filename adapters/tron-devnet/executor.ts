/**
 * Executes one signed transaction against a state, following java-tron's Manager.processTransaction order:
 * owner lookup → bandwidth → actuator validate → execute (system contracts) or energy-billed VM call.
 * Throws {@link TxError} for anything that rejects the transaction (the state must then be discarded);
 * VM failures (REVERT, OUT_OF_ENERGY) are not errors: they produce a FAILED receipt and charge fees.
 */
import { ACTUATORS, ContractValidateError, createsAccount, ownerMissingMessage, ownerOf, type ExecResult } from './actuators.js';
import type { ChainParams } from './constants.js';
import { tryHex41, utf8Hex, type RawData } from './codec.js';
import { BandwidthError, chargeBandwidth, energyLeft, useEnergy, type NetCharge } from './resources.js';
import type { Account, ChainState } from './state.js';
import { runContract, type DevnetContracts } from './contracts.js';
import type { EventLog } from './trc20.js';
import { internalTransactions, type InternalTxJson } from './trx-router.js';

/** A broadcast rejection: `code` is a java-tron api.Return.response_code name. */
export class TxError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A verified, normalized signed transaction (addresses in raw_data are 41-hex). */
export interface SignedTx {
  txID: string;
  raw_data: RawData;
  raw_data_hex: string;
  signature: string[];
  /** Bandwidth bytes (serialized size + 64). */
  bytes: number;
  type: string;
  owner: string;
}

/** TransactionInfo as gettransactioninfobyid prints it (before visible conversion). */
export interface TxInfo {
  id: string;
  fee?: number;
  blockNumber: number;
  blockTimeStamp: number;
  contractResult: string[];
  contract_address?: string;
  receipt: Record<string, number | string>;
  log?: EventLog[];
  /** Internal transactions of a contract call (the router's TRX payments), as a node with vm.saveInternalTx prints them. */
  internal_transactions?: InternalTxJson[];
  result?: 'FAILED';
  resMessage?: string;
  withdraw_amount?: number;
  withdraw_expire_amount?: number;
}

/** Result of executing: the block's `ret[0].contractRet` and the info (blockNumber filled in by the caller). */
export interface Executed {
  contractRet: string;
  info: Omit<TxInfo, 'blockNumber' | 'blockTimeStamp'>;
}

/** Executes `tx` on `s` (mutating it). */
export function executeTx(s: ChainState, p: ChainParams, tx: SignedTx, now: number, contracts: DevnetContracts): Executed {
  const c = tx.raw_data.contract[0]!;
  const value = c.parameter.value;
  const owner = s.accounts.get(tx.owner);
  if (!owner) throw new TxError('CONTRACT_VALIDATE_ERROR', `Contract validate error : ${ownerMissingMessage(c.type, tx.owner)}`);
  let net: NetCharge;
  try {
    net = chargeBandwidth(owner, tx.bytes, createsAccount(c.type, value, s), s, p, now);
  } catch (e) {
    if (e instanceof BandwidthError) throw new TxError('BANDWITH_ERROR', 'Account resource insufficient error.');
    throw e;
  }
  owner.latestOperationTime = now;
  const receipt: Record<string, number | string> = {};
  if (net.netUsage) receipt['net_usage'] = net.netUsage;
  if (net.netFee) receipt['net_fee'] = net.netFee;
  if (c.type === 'TriggerSmartContract') return runVm(s, p, tx, owner, now, contracts, net, receipt);
  const actuator = ACTUATORS[c.type];
  if (!actuator) throw new TxError('CONTRACT_VALIDATE_ERROR', `Contract validate error : ${c.type} is not supported by the devnet`);
  let exec: ExecResult;
  try {
    exec = actuator({ state: s, params: p, now, value }, owner);
  } catch (e) {
    if (e instanceof ContractValidateError) throw new TxError('CONTRACT_VALIDATE_ERROR', `Contract validate error : ${e.message}`);
    throw e;
  }
  const fee = net.netFee + (exec.fee ?? 0);
  const info: Executed['info'] = { id: tx.txID, contractResult: [''], receipt };
  if (fee) info.fee = fee;
  if (exec.withdrawAmount) info.withdraw_amount = exec.withdrawAmount;
  if (exec.withdrawExpireAmount) info.withdraw_expire_amount = exec.withdrawExpireAmount;
  return { contractRet: 'SUCCESS', info };
}

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0) || 0);

function runVm(
  s: ChainState,
  p: ChainParams,
  tx: SignedTx,
  owner: Account,
  now: number,
  contracts: DevnetContracts,
  net: NetCharge,
  receipt: Record<string, number | string>,
): Executed {
  const value = tx.raw_data.contract[0]!.parameter.value;
  const contract = tryHex41(value['contract_address']);
  const fail = (m: string): never => {
    throw new TxError('CONTRACT_VALIDATE_ERROR', `Contract validate error : ${m}`);
  };
  const feeLimit = num(tx.raw_data.fee_limit);
  if (feeLimit < 0 || feeLimit > p.maxFeeLimit) fail(`feeLimit must be >= 0 and <= ${p.maxFeeLimit}`);
  const callValue = num(value['call_value']);
  if (owner.balance < callValue) fail('Validate InternalTransfer error, balance is not sufficient.');
  const outcome = contract === null ? null : runContract(s, contracts, contract, tx.owner, String(value['data'] ?? ''), callValue, p.usdtEnergyFactor, now);
  if (outcome === null) return fail('No contract or not a smart contract');
  // VMActuator.getAccountEnergyLimitWithFixRatio: stake energy + what the balance can buy, capped by fee_limit.
  const price = p.energyFee;
  const left = energyLeft(owner, s, p, now);
  const limit = Math.min(left + Math.floor(Math.max(owner.balance - callValue, 0) / price), Math.floor(feeLimit / price));
  const outOfEnergy = outcome.energy > limit;
  const used = outOfEnergy ? limit : outcome.energy;
  const fromStake = Math.min(used, left);
  const energyFee = (used - fromStake) * price;
  useEnergy(owner, fromStake, now);
  owner.balance -= energyFee;
  s.burned += energyFee;
  const ret = outOfEnergy ? 'OUT_OF_ENERGY' : outcome.result;
  if (ret === 'SUCCESS') outcome.apply?.(s);
  if (fromStake) receipt['energy_usage'] = fromStake;
  if (energyFee) receipt['energy_fee'] = energyFee;
  if (used) receipt['energy_usage_total'] = used;
  receipt['result'] = ret;
  const info: Executed['info'] = {
    id: tx.txID,
    contractResult: [ret === 'SUCCESS' ? outcome.output : ''],
    contract_address: contract!,
    receipt,
  };
  const fee = net.netFee + energyFee;
  if (fee) info.fee = fee;
  if (ret === 'SUCCESS' && outcome.logs.length) info.log = outcome.logs;
  // java-tron keeps the internal transactions of a failed call too, each marked rejected.
  if (outcome.payments.length) info.internal_transactions = internalTransactions(tx.txID, contract!, outcome.payments, ret !== 'SUCCESS');
  if (ret !== 'SUCCESS') {
    info.result = 'FAILED';
    info.resMessage = utf8Hex(
      outOfEnergy
        ? `Not enough energy for 'SSTORE' operation executing: curInvokeEnergyLimit[${limit}], curOpEnergy[${outcome.energy - limit}], usedEnergy[${limit}]`
        : 'REVERT opcode executed',
    );
  }
  return { contractRet: ret, info };
}

/** Re-export for callers that only need the owner parser. */
export { ownerOf };
