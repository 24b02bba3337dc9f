/**
 * The built-in TRX router: a minimal payable contract that pays TRX out from inside the VM, the way exchange hot
 * wallets, payment splitters and DEX swaps do. `forward(address)` sends the call's value to one address;
 * `split(address,address)` sends half to each (the second gets the odd sun). Every payment is an internal
 * transaction (note "call"), which java-tron reports in `internal_transactions` of gettransactioninfo* when the node
 * runs with `vm.saveInternalTx = true`; the top-level transaction itself names only the router.
 * Energy figures are devnet approximations (a CALL with value, plus TVM's new-account surcharge).
 */
import { abiDecode, selectorOf, sha256Hex, utf8Hex } from './codec.js';
import type { ChainState } from './state.js';
import { newAccount } from './state.js';
import type { VmOutcome } from './trc20.js';

/** An internal transaction as java-tron prints it in TransactionInfo.internal_transactions (before visible conversion). */
export interface InternalTxJson {
  hash: string;
  caller_address: string;
  transferTo_address: string;
  callValueInfo: Array<{ callValue?: number }>;
  note: string;
  rejected?: boolean;
}

/** A payment the router makes: `to` (41-hex) receives `amount` sun from the router. */
export interface RouterPayment {
  to: string;
  amount: number;
}

/** Energy of the router's calls (approximations, see the file comment). */
export const ROUTER_ENERGY = {
  /** Selector dispatch, argument decoding, the value checks. */
  base: 2_100,
  /** One CALL with value to an existing account. */
  perPayment: 9_000,
  /** TVM's surcharge when a CALL with value creates the receiving account. */
  newAccount: 25_000,
  revert: 600,
} as const;

const SEL = {
  forward: selectorOf('forward(address)'),
  split: selectorOf('split(address,address)'),
};

const NOTE_CALL = utf8Hex('call');

/** Outcome of a router call: a VmOutcome plus the payments it would make (applied only on success). */
export interface RouterOutcome extends VmOutcome {
  payments: RouterPayment[];
}

const revert = (): RouterOutcome => ({ result: 'REVERT', energy: ROUTER_ENERGY.revert, penalty: 0, output: '', logs: [], payments: [] });

/**
 * Runs `data` from `owner` with `callValue` sun against the router at `router` (41-hex). Pure: `apply` moves the
 * call value from the owner to the router and the payments from the router to their receivers (creating accounts
 * that do not exist yet, as a TVM transfer does).
 */
export function runRouter(s: ChainState, router: string, owner: string, data: string, callValue: number, now: number): RouterOutcome {
  const hex = data.replace(/^0x/, '').toLowerCase();
  const selector = hex.slice(0, 8);
  const args = hex.slice(8);
  let targets: string[];
  try {
    if (selector === SEL.forward && args.length >= 64) targets = [(abiDecode(['address'], args.slice(0, 64))[0] as string).toLowerCase()];
    else if (selector === SEL.split && args.length >= 128) targets = (abiDecode(['address', 'address'], args.slice(0, 128)) as string[]).map((a) => a.toLowerCase());
    else return revert();
  } catch {
    return revert();
  }
  if (callValue <= 0) return revert();
  // A payment to a contract (USDT, the router itself) would hit a non-payable fallback: revert, like Solidity.
  if (targets.some((t) => s.accounts.get(t)?.isContract === true)) return revert();
  const payments: RouterPayment[] = targets.length === 1
    ? [{ to: targets[0]!, amount: callValue }]
    : [{ to: targets[0]!, amount: Math.floor(callValue / 2) }, { to: targets[1]!, amount: callValue - Math.floor(callValue / 2) }];
  const fresh = new Set(payments.filter((p) => p.amount > 0 && !s.accounts.has(p.to)).map((p) => p.to));
  const energy = ROUTER_ENERGY.base + ROUTER_ENERGY.perPayment * payments.length + ROUTER_ENERGY.newAccount * fresh.size;
  return {
    result: 'SUCCESS',
    energy,
    penalty: 0,
    output: '',
    logs: [],
    payments,
    apply: (st) => {
      const from = st.accounts.get(owner)!;
      const self = st.accounts.get(router)!;
      from.balance -= callValue;
      self.balance += callValue;
      for (const p of payments) {
        const to = st.accounts.get(p.to) ?? newAccount(p.to, now);
        st.accounts.set(p.to, to);
        self.balance -= p.amount;
        to.balance += p.amount;
      }
    },
  };
}

/** The `internal_transactions` entries of a router call in transaction `txid`; `rejected` when the call failed. */
export function internalTransactions(txid: string, router: string, payments: readonly RouterPayment[], rejected: boolean): InternalTxJson[] {
  return payments.map((p, i) => ({
    hash: sha256Hex(`${txid}:internal:${i}`),
    caller_address: router,
    transferTo_address: p.to,
    // java-tron prints a zero callValue as an empty CallValueInfo ({}), as protobuf omits default fields.
    callValueInfo: [p.amount > 0 ? { callValue: p.amount } : {}],
    note: NOTE_CALL,
    ...(rejected ? { rejected: true } : {}),
  }));
}

/** The ABI java-tron would store for the router (capitalised type names, as the node prints them). */
export const ROUTER_ABI = [
  { inputs: [{ name: 'to', type: 'address' }], name: 'forward', stateMutability: 'Payable', type: 'Function', payable: true },
  {
    inputs: [{ name: 'a', type: 'address' }, { name: 'b', type: 'address' }],
    name: 'split',
    stateMutability: 'Payable',
    type: 'Function',
    payable: true,
  },
];
