/**
 * The FullNode HTTP API (`/wallet/*`) and its solidified twin (`/walletsolidity/*`). Handlers take the merged
 * query/body parameters and return java-tron-shaped JSON; the server applies `visible` formatting afterwards.
 */
import { ACTUATORS, ContractValidateError, stakeInUse } from './actuators.js';
import { SUN_PER_TRX } from './constants.js';
import { forkState } from './state.js';
import { type Chain } from './chain.js';
import { decodeSignedHex, selectorOf, toHex41, tryHex41, txIdentity, utf8Hex, type RawData } from './codec.js';
import { TxError } from './executor.js';
import { isDevnetContract, runContract } from './contracts.js';
import { USDT_ABI, type VmOutcome } from './trc20.js';
import { ROUTER_ABI } from './trx-router.js';
import * as v from './views.js';

type Json = Record<string, unknown>;
/** A route handler: params, the chain, whether it answers from the solidified state, whether visible=true. */
export type Handler = (q: Json, chain: Chain, solid: boolean, visible: boolean) => Json;

const addr = (x: unknown): string => {
  const h = tryHex41(x);
  if (!h) throw new InputError('Invalid address provided');
  return h;
};
const int = (x: unknown, dflt = 0): number => (x === undefined || x === '' ? dflt : Number(x));

/** Bad input, reported as java-tron's `{"Error": "..."}`. */
export class InputError extends Error {}

/** The account a read asks about, in the state the read sees (see Chain.readView) and that state's time. */
function account(q: Json, chain: Chain, solid: boolean, key = 'address') {
  const { state: st, time } = chain.readView(solid);
  return { st, time, a: st.accounts.get(addr(q[key])) };
}

function getBlock(q: Json, chain: Chain, solid: boolean): Json {
  const detail = q['detail'] === true || q['detail'] === 'true';
  const idOrNum = q['id_or_num'];
  let b = solid ? chain.block(chain.solidNumber) : chain.head;
  if (idOrNum !== undefined && idOrNum !== '') {
    const s = String(idOrNum);
    b = /^[0-9]+$/.test(s) ? chain.block(Number(s), solid) : chain.blocks.find((x) => x.id === s.toLowerCase());
    if (b && solid && b.number > chain.solidNumber) b = undefined;
  }
  return b ? v.blockJson(chain, b, detail) : {};
}

function triggerArgs(q: Json, chain: Chain) {
  const contract = addr(q['contract_address']);
  const owner = q['owner_address'] ? addr(q['owner_address']) : '41' + '0'.repeat(40);
  const selector = typeof q['function_selector'] === 'string' ? q['function_selector'].replace(/\s+/g, '') : '';
  const data = selector ? selectorOf(selector) + String(q['parameter'] ?? '') : String(q['data'] ?? '').replace(/^0x/, '');
  const value: Json = { data, owner_address: owner, contract_address: contract };
  if (int(q['call_value'])) value['call_value'] = int(q['call_value']);
  if (int(q['call_token_value'])) value['call_token_value'] = int(q['call_token_value']);
  if (int(q['token_id'])) value['token_id'] = int(q['token_id']);
  if (!isDevnetContract(chain.contracts, contract)) throw new TxError('CONTRACT_VALIDATE_ERROR', 'No contract or not a smart contract');
  return { contract, owner, data, value };
}

function unsignedTx(chain: Chain, raw: RawData, permissionId?: number): Json {
  if (permissionId) raw.contract[0]!.Permission_id = permissionId;
  const { txID, rawDataHex } = txIdentity({ raw_data: raw });
  return { visible: false, txID, raw_data: raw, raw_data_hex: rawDataHex };
}

function trigger(q: Json, chain: Chain, solid: boolean, kind: 'send' | 'constant' | 'estimate'): Json {
  try {
    const { contract, owner, data, value } = triggerArgs(q, chain);
    if (kind === 'send') {
      const feeLimit = int(q['fee_limit']);
      const raw = chain.buildRaw('TriggerSmartContract', value, feeLimit ? { fee_limit: feeLimit } : {});
      return { result: { result: true }, transaction: unsignedTx(chain, raw, int(q['Permission_id'])) };
    }
    const view = chain.readView(solid);
    const out = runContract(view.state, chain.contracts, contract, owner, data, int(q['call_value']), chain.params.usdtEnergyFactor, view.time)!;
    if (kind === 'estimate') {
      if (out.result !== 'SUCCESS') {
        return { result: { code: 'CONTRACT_EXE_ERROR', message: utf8Hex('REVERT opcode executed') }, energy_used: out.energy, constant_result: [''] };
      }
      return { result: { result: true }, energy_required: out.energy };
    }
    return constantReply(chain, value, out);
  } catch (e) {
    if (e instanceof TxError) return { result: { code: e.code, message: utf8Hex(e.message) } };
    throw e;
  }
}

/**
 * triggerconstantcontract's TransactionExtention as java-tron prints it (Wallet.callConstantContract): the VM
 * outcome never changes `result.result` (true) or `result.code` (SUCCESS, omitted as a proto default); a revert
 * sets `result.message` to the runtime error ("REVERT opcode executed") and the transaction's `ret[0].ret` to
 * FAILED, with the revert data (empty for Tether's bare `require`) in `constant_result`. `energy_used` includes
 * the dynamic penalty, which `energy_penalty` reports alone; empty `logs` are omitted.
 */
function constantReply(chain: Chain, value: Json, out: VmOutcome): Json {
  const failed = out.result !== 'SUCCESS';
  const tx = unsignedTx(chain, chain.buildRaw('TriggerSmartContract', value));
  return v.compact({
    result: failed ? { result: true, message: utf8Hex('REVERT opcode executed') } : { result: true },
    energy_used: out.energy,
    energy_penalty: out.penalty,
    constant_result: [out.output],
    logs: out.logs,
    transaction: { ret: [failed ? { ret: 'FAILED' } : {}], ...tx },
  });
}

function broadcastReply(chain: Chain, body: Json): Json {
  try {
    const tx = chain.broadcast(body);
    return { result: true, txid: tx.txID };
  } catch (e) {
    if (!(e instanceof TxError)) throw e;
    let txid = '';
    try {
      txid = txIdentity({ raw_data: body['raw_data'] as RawData }).txID;
    } catch {
      /* unparsable: no txid, like java-tron */
    }
    return { code: e.code, txid, message: utf8Hex(e.message) };
  }
}

/** Node-side builders (createtransaction, freezebalancev2, …): validate against the fullnode state, then build. */
function builder(type: string): Handler {
  return (q, chain) => {
    const value: Json = { ...q };
    delete value['visible'];
    delete value['Permission_id'];
    for (const k of ['owner_address', 'to_address', 'receiver_address']) if (value[k] !== undefined) value[k] = addr(value[k]);
    const st = forkState(chain.state());
    const owner = st.accounts.get(String(value['owner_address']));
    try {
      if (!owner) throw new ContractValidateError('Validate ' + type + ' error, no OwnerAccount.');
      ACTUATORS[type]!({ state: st, params: chain.params, now: chain.now, value }, owner);
    } catch (e) {
      if (e instanceof ContractValidateError) return { Error: `class org.tron.core.exception.ContractValidateException : ${e.message}` };
      throw e;
    }
    return unsignedTx(chain, chain.buildRaw(type, value), int(q['Permission_id']));
  };
}

/** Handlers by endpoint name (shared by /wallet and /walletsolidity where TRON has both). */
export const HANDLERS: Record<string, Handler> = {
  getnowblock: (q, c, solid) => getBlock({ detail: true }, c, solid),
  getblock: getBlock,
  getblockbynum: (q, c, solid) => {
    const b = c.block(int(q['num'], -1), solid);
    return b ? v.blockJson(c, b) : {};
  },
  getblockbyid: (q, c, solid) => getBlock({ id_or_num: q['value'], detail: true }, c, solid),
  getblockbylimitnext: (q, c, solid) => {
    const out: Json[] = [];
    for (let n = int(q['startNum']); n < Math.min(int(q['endNum']), int(q['startNum']) + 100); n++) {
      const b = c.block(n, solid);
      if (b) out.push(v.blockJson(c, b));
    }
    return out.length ? { block: out } : {};
  },
  getaccount: (q, c, solid) => {
    const { a, time } = account(q, c, solid);
    return a ? v.accountJson(a, time) : {};
  },
  getaccountresource: (q, c, solid) => {
    const { st, a, time } = account(q, c, solid);
    return a ? v.accountResourceJson(a, st, c.params, time) : {};
  },
  getaccountnet: (q, c, solid) => {
    const { st, a, time } = account(q, c, solid);
    return a ? v.accountNetJson(a, st, c.params, time) : { freeNetLimit: c.params.freeNetLimit, TotalNetLimit: c.params.totalNetLimit };
  },
  gettransactionbyid: (q, c, solid) => {
    const r = c.lookupTx(String(q['value'] ?? ''), solid);
    return r ? v.txJson(r) : {};
  },
  gettransactioninfobyid: (q, c, solid) => {
    const r = c.lookupTx(String(q['value'] ?? ''), solid);
    return r ? v.txInfoJson(r) : {};
  },
  gettransactioninfobyblocknum: (q, c, solid) => {
    const b = c.block(int(q['num'], -1), solid);
    return { __array: b ? b.txIds.map((id) => v.txInfoJson(c.txs.get(id)!)) : [] };
  },
  getcontract: (q, c) => {
    const at = addr(q['value']);
    if (at === c.router) {
      return {
        bytecode: '6080604052600436106100295760003560e01c8063101e8952146100',
        name: 'TrxRouter',
        origin_address: c.rentalPool,
        abi: { entrys: ROUTER_ABI },
        origin_energy_limit: 10_000_000,
        contract_address: c.router,
        consume_user_resource_percent: 100,
        code_hash: c.router.slice(2) + '0'.repeat(24),
      };
    }
    if (at !== c.usdt) return {};
    return {
      bytecode: '608060405260043610610057576000357c0100000000000000000000000000000000000000000000000000000000900463ffffffff16806306fdde031461005c',
      name: 'TetherToken',
      origin_address: c.rentalPool,
      abi: { entrys: USDT_ABI },
      origin_energy_limit: 10_000_000,
      contract_address: c.usdt,
      consume_user_resource_percent: 100,
      code_hash: c.usdt.slice(2) + '0'.repeat(24),
    };
  },
  getcontractinfo: (q, c, s, vis) => {
    const sc = HANDLERS['getcontract']!(q, c, s, vis);
    const factor = addr(q['value']) === c.usdt ? c.params.usdtEnergyFactor : 0;
    const state = { energy_usage: 0, ...v.compact({ energy_factor: factor }), update_cycle: 0 };
    return Object.keys(sc).length ? { runtimecode: sc['bytecode'], smart_contract: sc, contract_state: state } : {};
  },
  triggersmartcontract: (q, c, s) => trigger(q, c, s, 'send'),
  triggerconstantcontract: (q, c, s) => trigger(q, c, s, 'constant'),
  estimateenergy: (q, c, s) => trigger(q, c, s, 'estimate'),
  broadcasttransaction: (q, c) => broadcastReply(c, q),
  broadcasthex: (q, c) => {
    let decoded;
    try {
      decoded = decodeSignedHex(String(q['transaction'] ?? ''));
    } catch (e) {
      return { Error: `class com.google.protobuf.InvalidProtocolBufferException : ${(e as Error).message}` };
    }
    const r = broadcastReply(c, { raw_data: decoded.raw_data, signature: decoded.signature });
    const txJson = { visible: false, txID: r['txid'], raw_data: decoded.raw_data, raw_data_hex: decoded.rawDataHex, signature: decoded.signature };
    return r['result']
      ? { result: true, code: 'SUCCESS', message: '', transaction: JSON.stringify(txJson), txid: r['txid'] }
      : { result: false, code: r['code'], message: Buffer.from(String(r['message']), 'hex').toString('utf8'), txid: r['txid'] };
  },
  gettransactionfrompending: (q, c) => {
    const id = String(q['value'] ?? '').toLowerCase();
    const tx = c.pendingTxs().find((t) => t.txID === id);
    return tx ? { visible: false, txID: tx.txID, raw_data: tx.raw_data, raw_data_hex: tx.raw_data_hex, signature: tx.signature } : {};
  },
  gettransactionlistfrompending: (q, c) => ({ txId: c.pendingTxs().map((t) => t.txID) }),
  getpendingsize: (q, c) => ({ pendingSize: c.pendingCount }),
  getchainparameters: (q, c) => v.chainParametersJson(c.params),
  // Epoch ms of the next maintenance (java-tron GetNextMaintenanceTimeServlet: {"num": …}).
  getnextmaintenancetime: (q, c) => ({ num: c.nextMaintenanceTime }),
  getenergyprices: (q, c) => ({ prices: c.energyPriceHistory.map(([t, p]) => `${t}:${p}`).join(',') }),
  getbandwidthprices: (q, c) => ({ prices: `0:${c.params.transactionFee}` }),
  getdelegatedresourcev2: (q, c, solid) => {
    const from = addr(q['fromAddress']);
    const to = addr(q['toAddress']);
    const { delegations } = c.readView(solid).state;
    const list = [false, true]
      .map((lock) => delegations.get(`${from}:${to}:${lock ? 1 : 0}`))
      .filter((d) => d && (d.energy > 0 || d.bandwidth > 0))
      .map((d) => v.delegationJson(d!));
    return list.length ? { delegatedResource: list } : {};
  },
  getdelegatedresourceaccountindexv2: (q, c, solid) => {
    const who = addr(q['value']);
    const from = new Set<string>();
    const to = new Set<string>();
    for (const d of c.readView(solid).state.delegations.values()) {
      if (d.to === who) from.add(d.from);
      if (d.from === who) to.add(d.to);
    }
    return v.compact({ account: who, fromAccounts: [...from], toAccounts: [...to] });
  },
  getcandelegatedmaxsize: (q, c, solid) => {
    const { st, a, time } = account(q, c, solid, 'owner_address');
    if (!a) return {};
    const res = int(q['type']) === 1 ? 'ENERGY' : 'BANDWIDTH';
    const frozen = res === 'ENERGY' ? a.frozenEnergy : a.frozenBandwidth;
    const ctx = { state: st, params: c.params, now: time, value: {} };
    // java-tron's Wallet.getCanDelegatedMaxSize: an answer under 1 TRX (the least a delegation may be) is 0.
    const max = Math.max(0, frozen - stakeInUse(a, res, ctx));
    return v.compact({ max_size: max < SUN_PER_TRX ? 0 : max });
  },
  getcanwithdrawunfreezeamount: (q, c, solid) => {
    const { a } = account(q, c, solid, 'owner_address');
    const ts = int(q['timestamp'], c.now);
    return v.compact({ amount: a ? a.unfrozen.filter((u) => u.expireTime <= ts).reduce((n, u) => n + u.amount, 0) : 0 });
  },
  getavailableunfreezecount: (q, c, solid) => {
    const { a, time } = account(q, c, solid, 'owner_address');
    return a ? v.unfreezeCountJson(a, time) : {};
  },
  getReward: (q, c, solid) => {
    const { a, time } = account(q, c, solid);
    return v.rewardJson(a, c.params, time);
  },
  getnodeinfo: (q, c) => ({
    beginSyncNum: 0,
    block: `Num:${c.head.number},ID:${c.head.id}`,
    solidityBlock: `Num:${c.solidNumber},ID:${c.block(c.solidNumber)!.id}`,
    currentConnectCount: 0,
    activeConnectCount: 0,
    passiveConnectCount: 0,
    totalFlow: 0,
    peerInfoList: [],
    configNodeInfo: { codeVersion: '4.8.0', p2pVersion: 'tron-devnet', versionNum: '19000', dbVersion: 2 },
    machineInfo: {},
    cheatWitnessInfoMap: {},
  }),
  listwitnesses: (q, c) => ({
    witnesses: c.state().witnesses.map((w) => ({ address: w, url: 'https://devnet.invalid', isJobs: true })),
  }),
  createtransaction: builder('TransferContract'),
  freezebalancev2: builder('FreezeBalanceV2Contract'),
  unfreezebalancev2: builder('UnfreezeBalanceV2Contract'),
  withdrawexpireunfreeze: builder('WithdrawExpireUnfreezeContract'),
  delegateresource: builder('DelegateResourceContract'),
  undelegateresource: builder('UnDelegateResourceContract'),
};

/** Endpoints java-tron also serves under /walletsolidity. */
export const SOLIDITY_ENDPOINTS = new Set([
  'getnowblock', 'getblock', 'getblockbynum', 'getblockbyid', 'getblockbylimitnext', 'getaccount', 'gettransactionbyid',
  'gettransactioninfobyid', 'gettransactioninfobyblocknum', 'triggerconstantcontract', 'estimateenergy', 'getdelegatedresourcev2',
  'getdelegatedresourceaccountindexv2', 'getcandelegatedmaxsize', 'getcanwithdrawunfreezeamount', 'getavailableunfreezecount',
  'getReward', 'getaccountresource', 'getaccountnet',
]);

export { toHex41 };
