/**
 * The built-in TRC20 USDT contract: a native implementation of the calls custody code needs (name, symbol,
 * decimals, totalSupply, balanceOf, transfer) with mainnet energy costs and a real Transfer event log.
 * Execution is split into "compute the outcome" and "apply it" so the caller can bill energy first and skip
 * the state change on OUT_OF_ENERGY.
 */
import { TRANSFER_TOPIC, USDT_ENERGY, USDT_META } from './constants.js';
import { abiDecode, abiEncode, selectorOf } from './codec.js';
import type { ChainState } from './state.js';

/** A TRON event log as gettransactioninfobyid prints it (20-byte address, no 41 prefix). */
export interface EventLog {
  address: string;
  topics: string[];
  data: string;
}

/** The outcome of one call, before energy billing. */
export interface VmOutcome {
  result: 'SUCCESS' | 'REVERT';
  /** Energy the call needs to complete. */
  energy: number;
  /** ABI-encoded return value (hex, no 0x); empty on revert. */
  output: string;
  logs: EventLog[];
  /** Applies the state change; present only for successful state-changing calls. */
  apply?: (s: ChainState) => void;
}

const SEL = {
  name: selectorOf('name()'),
  symbol: selectorOf('symbol()'),
  decimals: selectorOf('decimals()'),
  totalSupply: selectorOf('totalSupply()'),
  balanceOf: selectorOf('balanceOf(address)'),
  transfer: selectorOf('transfer(address,uint256)'),
};

const pad32 = (hex: string): string => hex.padStart(64, '0');
const revert = (): VmOutcome => ({ result: 'REVERT', energy: USDT_ENERGY.revert, output: '', logs: [] });
const view = (output: string): VmOutcome => ({ result: 'SUCCESS', energy: USDT_ENERGY.view, output, logs: [] });

/** USDT balance of a 41-hex address. */
export function usdtBalance(s: ChainState, holder: string): bigint {
  return s.usdt.get(holder) ?? 0n;
}

/**
 * Runs `data` (selector + ABI args, hex) from `owner` against the USDT contract at `contract` (41-hex).
 * Pure: nothing changes until `apply` is called.
 */
export function runUsdt(s: ChainState, contract: string, owner: string, data: string, callValue: number): VmOutcome {
  const hex = data.replace(/^0x/, '').toLowerCase();
  const selector = hex.slice(0, 8);
  const args = hex.slice(8);
  // The token is non-payable: any TRX sent along reverts, like a Solidity function without `payable`.
  if (callValue > 0) return revert();
  try {
    switch (selector) {
      case SEL.name:
        return view(abiEncode(['string'], [USDT_META.name]));
      case SEL.symbol:
        return view(abiEncode(['string'], [USDT_META.symbol]));
      case SEL.decimals:
        return view(abiEncode(['uint8'], [USDT_META.decimals]));
      case SEL.totalSupply:
        return view(abiEncode(['uint256'], [s.usdtTotalSupply]));
      case SEL.balanceOf: {
        if (args.length < 64) return revert();
        const [who] = abiDecode(['address'], args.slice(0, 64)) as [string];
        return view(pad32(usdtBalance(s, who.toLowerCase()).toString(16)));
      }
      case SEL.transfer:
        return transfer(s, contract, owner, args);
      default:
        return revert();
    }
  } catch {
    return revert();
  }
}

function transfer(s: ChainState, contract: string, from: string, args: string): VmOutcome {
  if (args.length < 128) return revert();
  const [toRaw, amountRaw] = abiDecode(['address', 'uint256'], args.slice(0, 128)) as [string, bigint];
  const to = toRaw.toLowerCase();
  const amount = BigInt(amountRaw);
  const fromBal = usdtBalance(s, from);
  if (fromBal < amount) return revert();
  // A zero balance means an empty storage slot: writing it costs the extra ~66k energy seen on mainnet.
  const toIsHolder = to === from ? fromBal > 0n : usdtBalance(s, to) > 0n;
  const energy = toIsHolder ? USDT_ENERGY.transferToHolder : USDT_ENERGY.transferToNewHolder;
  const log: EventLog = {
    address: contract.slice(2),
    topics: [TRANSFER_TOPIC, pad32(from.slice(2)), pad32(to.slice(2))],
    data: pad32(amount.toString(16)),
  };
  return {
    result: 'SUCCESS',
    energy,
    output: pad32('1'),
    logs: [log],
    apply: (st) => {
      const f = usdtBalance(st, from) - amount;
      if (f === 0n) st.usdt.delete(from);
      else st.usdt.set(from, f);
      const t = usdtBalance(st, to) + amount;
      if (t === 0n) st.usdt.delete(to);
      else st.usdt.set(to, t);
    },
  };
}

/** The ABI java-tron stores for a TRC20 (capitalised type names, as the node prints them). */
export const USDT_ABI = [
  { outputs: [{ type: 'string' }], constant: true, name: 'name', stateMutability: 'View', type: 'Function' },
  { outputs: [{ type: 'string' }], constant: true, name: 'symbol', stateMutability: 'View', type: 'Function' },
  { outputs: [{ type: 'uint8' }], constant: true, name: 'decimals', stateMutability: 'View', type: 'Function' },
  { outputs: [{ type: 'uint256' }], constant: true, name: 'totalSupply', stateMutability: 'View', type: 'Function' },
  {
    outputs: [{ type: 'uint256' }],
    constant: true,
    inputs: [{ name: 'who', type: 'address' }],
    name: 'balanceOf',
    stateMutability: 'View',
    type: 'Function',
  },
  {
    outputs: [{ type: 'bool' }],
    inputs: [
      { name: '_to', type: 'address' },
      { name: '_value', type: 'uint256' },
    ],
    name: 'transfer',
    stateMutability: 'Nonpayable',
    type: 'Function',
  },
  {
    inputs: [
      { indexed: true, name: 'from', type: 'address' },
      { indexed: true, name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    name: 'Transfer',
    type: 'Event',
  },
];
