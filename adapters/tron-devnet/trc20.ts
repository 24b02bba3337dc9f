/**
 * The built-in TRC20 USDT contract: a native implementation of the calls custody code needs (name, symbol,
 * decimals, totalSupply, balanceOf, transfer, and Tether's paused / isBlackListed / getBlackListStatus views) with
 * mainnet energy costs under the dynamic energy factor and a real Transfer event log. Like Tether's TetherToken,
 * `transfer` reverts while the token is paused (whenNotPaused) and when the sender is blacklisted.
 * Execution is split into "compute the outcome" and "apply it" so the caller can bill energy first and skip
 * the state change on OUT_OF_ENERGY.
 */
import { TRANSFER_TOPIC, USDT_META, USDT_PROFILES } from './constants.js';
import { abiDecode, abiEncode, selectorOf } from './codec.js';
import { profileEnergy } from './dynamic-energy.js';
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
  /** Energy the call needs to complete (dynamic penalty included). */
  energy: number;
  /** The dynamic-energy part of `energy` (triggerconstantcontract's energy_penalty). */
  penalty: number;
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
  paused: selectorOf('paused()'),
  isBlackListed: selectorOf('isBlackListed(address)'),
  getBlackListStatus: selectorOf('getBlackListStatus(address)'),
};

const pad32 = (hex: string): string => hex.padStart(64, '0');
const bool = (b: boolean): string => pad32(b ? '1' : '0');

/** The contract, bound to a state and a dynamic energy factor. */
interface Ctx {
  s: ChainState;
  factor: number;
}

const cost = (c: Ctx, profile: keyof typeof USDT_PROFILES) => profileEnergy(USDT_PROFILES[profile], c.factor);
const revert = (c: Ctx, profile: 'revert' | 'revertPaused' | 'revertBlacklisted' = 'revert'): VmOutcome => ({ result: 'REVERT', ...cost(c, profile), output: '', logs: [] });
const view = (c: Ctx, output: string): VmOutcome => ({ result: 'SUCCESS', ...cost(c, 'view'), output, logs: [] });

/** USDT balance of a 41-hex address. */
export function usdtBalance(s: ChainState, holder: string): bigint {
  return s.usdt.get(holder) ?? 0n;
}

/**
 * Runs `data` (selector + ABI args, hex) from `owner` against the USDT contract at `contract` (41-hex), with the
 * contract's dynamic energy `factor` (see dynamic-energy.ts). Pure: nothing changes until `apply` is called.
 */
export function runUsdt(s: ChainState, contract: string, owner: string, data: string, callValue: number, factor: number): VmOutcome {
  const c: Ctx = { s, factor };
  const hex = data.replace(/^0x/, '').toLowerCase();
  const selector = hex.slice(0, 8);
  const args = hex.slice(8);
  // The token is non-payable: any TRX sent along reverts, like a Solidity function without `payable`.
  if (callValue > 0) return revert(c);
  try {
    switch (selector) {
      case SEL.name:
        return view(c, abiEncode(['string'], [USDT_META.name]));
      case SEL.symbol:
        return view(c, abiEncode(['string'], [USDT_META.symbol]));
      case SEL.decimals:
        return view(c, abiEncode(['uint8'], [USDT_META.decimals]));
      case SEL.totalSupply:
        return view(c, abiEncode(['uint256'], [s.usdtTotalSupply]));
      case SEL.paused:
        return view(c, bool(s.usdtPaused));
      case SEL.balanceOf:
        return addressView(c, args, (who) => pad32(usdtBalance(s, who).toString(16)));
      case SEL.isBlackListed:
      case SEL.getBlackListStatus:
        return addressView(c, args, (who) => bool(s.usdtBlacklist.has(who)));
      case SEL.transfer:
        return transfer(c, contract, owner, args);
      default:
        return revert(c);
    }
  } catch {
    return revert(c);
  }
}

function addressView(c: Ctx, args: string, answer: (who41: string) => string): VmOutcome {
  if (args.length < 64) return revert(c);
  const [who] = abiDecode(['address'], args.slice(0, 64)) as [string];
  return view(c, answer(who.toLowerCase()));
}

function transfer(c: Ctx, contract: string, from: string, args: string): VmOutcome {
  const s = c.s;
  // TetherToken.transfer: `whenNotPaused`, then `require(!isBlackListed[msg.sender])`, then the balance update.
  if (s.usdtPaused) return revert(c, 'revertPaused');
  if (s.usdtBlacklist.has(from)) return revert(c, 'revertBlacklisted');
  if (args.length < 128) return revert(c);
  const [toRaw, amountRaw] = abiDecode(['address', 'uint256'], args.slice(0, 128)) as [string, bigint];
  const to = toRaw.toLowerCase();
  const amount = BigInt(amountRaw);
  const fromBal = usdtBalance(s, from);
  if (fromBal < amount) return revert(c);
  // A zero balance means an empty storage slot: writing it costs the extra ~66k energy seen on mainnet.
  const toIsHolder = to === from ? fromBal > 0n : usdtBalance(s, to) > 0n;
  const energy = cost(c, toIsHolder ? 'transferToHolder' : 'transferToNewHolder');
  const log: EventLog = {
    address: contract.slice(2),
    topics: [TRANSFER_TOPIC, pad32(from.slice(2)), pad32(to.slice(2))],
    data: pad32(amount.toString(16)),
  };
  return {
    result: 'SUCCESS',
    ...energy,
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
  { outputs: [{ type: 'bool' }], constant: true, name: 'paused', stateMutability: 'View', type: 'Function' },
  {
    outputs: [{ type: 'bool' }],
    constant: true,
    inputs: [{ type: 'address' }],
    name: 'isBlackListed',
    stateMutability: 'View',
    type: 'Function',
  },
  {
    outputs: [{ type: 'bool' }],
    constant: true,
    inputs: [{ name: '_maker', type: 'address' }],
    name: 'getBlackListStatus',
    stateMutability: 'View',
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
