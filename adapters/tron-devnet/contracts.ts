/**
 * The devnet's deployed contracts and the dispatch of a call to the right one: the USDT TRC20 (trc20.ts) and the
 * TRX router (trx-router.ts). A call to any other address is "No contract or not a smart contract", as on a node.
 */
import type { ChainState } from './state.js';
import { runUsdt, type VmOutcome } from './trc20.js';
import { runRouter, type RouterPayment } from './trx-router.js';

/** Addresses (41-hex) of the built-in contracts. */
export interface DevnetContracts {
  readonly usdt: string;
  readonly router: string;
}

/** A call's outcome; `payments` are the router's internal TRX transfers (empty for USDT). */
export interface ContractOutcome extends VmOutcome {
  readonly payments: readonly RouterPayment[];
}

/** Whether `address` (41-hex) is one of the built-in contracts. */
export function isDevnetContract(contracts: DevnetContracts, address: string | null): boolean {
  return address === contracts.usdt || address === contracts.router;
}

/**
 * Runs `data` from `owner` with `callValue` sun against `contract` (41-hex); null when no contract lives there.
 * Pure: nothing changes until the outcome's `apply` runs.
 */
export function runContract(
  s: ChainState, contracts: DevnetContracts, contract: string, owner: string, data: string, callValue: number, usdtFactor: number, now: number,
): ContractOutcome | null {
  if (contract === contracts.usdt) return { ...runUsdt(s, contract, owner, data, callValue, usdtFactor), payments: [] };
  if (contract === contracts.router) return runRouter(s, contract, owner, data, callValue, now);
  return null;
}
