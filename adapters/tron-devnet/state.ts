/**
 * World state of the devnet (accounts, delegations, the USDT ledger) as layers: {@link forkState} stacks a writable
 * layer on a state in O(1) and {@link commitState} folds it back in what it changed. Transactions run on a fork so
 * that a failing one never leaves partial effects; each block is a layer, and past blocks' layers serve the
 * solidified (walletsolidity) view and reorgs.
 */
import { LayeredMap } from './layered-map.js';

/** Stake 2.0 resource kinds (protocol.ResourceCode). */
export type Resource = 'BANDWIDTH' | 'ENERGY';

/** One pending UnfreezeBalanceV2 entry. */
export interface UnfrozenEntry {
  type: Resource;
  amount: number;
  expireTime: number;
}

/** A DelegateResourceContract record from → to; locked and unlocked parts are kept apart like java-tron. */
export interface Delegation {
  from: string;
  to: string;
  lock: boolean;
  bandwidth: number;
  energy: number;
  expireBandwidth: number;
  expireEnergy: number;
}

/** An account; all amounts in sun, times in virtual ms, addresses 41-hex lowercase. */
export interface Account {
  address: string;
  balance: number;
  createTime: number;
  isContract: boolean;
  /** Own stake not delegated away (java-tron frozenV2). */
  frozenBandwidth: number;
  frozenEnergy: number;
  /** Stake delegated to others (still owned, still counts for TRON power). */
  delegatedBandwidth: number;
  delegatedEnergy: number;
  /** Stake delegated to this account by others. */
  acquiredBandwidth: number;
  acquiredEnergy: number;
  unfrozen: UnfrozenEntry[];
  netUsage: number;
  latestConsumeTime: number;
  freeNetUsage: number;
  latestConsumeFreeTime: number;
  energyUsage: number;
  latestConsumeTimeForEnergy: number;
  votes: Array<{ address: string; count: number }>;
  /** Withdrawable voting reward (sun) and the time the reward accrual was last settled. */
  allowance: number;
  rewardSettledAt: number;
  latestWithdrawTime: number;
  latestOperationTime: number;
}

/** The whole mutable state. */
export interface ChainState {
  accounts: LayeredMap<Account>;
  /** Key `${from}:${to}:${lock ? 1 : 0}`. */
  delegations: LayeredMap<Delegation>;
  /** USDT balances in base units (6 decimals), bigint because uint256. */
  usdt: LayeredMap<bigint>;
  usdtTotalSupply: bigint;
  /** Tether's isBlackListed set (41-hex): a transfer from these addresses reverts. */
  usdtBlacklist: Set<string>;
  /** Tether's `paused`: every transfer reverts while set. */
  usdtPaused: boolean;
  /**
   * TRX (may be negative) that the rest of the network has staked for energy since genesis, on top of
   * params.baseEnergyWeight: the energy_weight_drift_bps fault moves it every block. Not devnet sun.
   */
  energyWeightDrift: number;
  /** TRX supply bookkeeping for the conservation invariant: minted (genesis, faucet, rewards) and burned. */
  minted: number;
  burned: number;
  /** Witnesses (SRs) that may receive votes, 41-hex. */
  witnesses: string[];
  /** The state this one was forked from (undefined for the bottom layer). */
  parent?: ChainState;
}

/** A fresh account with proto defaults. */
export function newAccount(address: string, now: number, isContract = false): Account {
  return {
    address,
    balance: 0,
    createTime: now,
    isContract,
    frozenBandwidth: 0,
    frozenEnergy: 0,
    delegatedBandwidth: 0,
    delegatedEnergy: 0,
    acquiredBandwidth: 0,
    acquiredEnergy: 0,
    unfrozen: [],
    netUsage: 0,
    latestConsumeTime: 0,
    freeNetUsage: 0,
    latestConsumeFreeTime: 0,
    energyUsage: 0,
    latestConsumeTimeForEnergy: 0,
    votes: [],
    allowance: 0,
    rewardSettledAt: now,
    latestWithdrawTime: 0,
    latestOperationTime: now,
  };
}

function copyAccount(a: Account): Account {
  return { ...a, unfrozen: a.unfrozen.map((u) => ({ ...u })), votes: a.votes.map((v) => ({ ...v })) };
}

/** What the energy and bandwidth stake totals ({@link stakeTotals}) count of an account. */
const STAKE_MEASURES = [(a: Account) => a.frozenEnergy + a.delegatedEnergy, (a: Account) => a.frozenBandwidth + a.delegatedBandwidth];

/** An empty state. */
export function emptyState(): ChainState {
  return {
    accounts: new LayeredMap<Account>(undefined, copyAccount, STAKE_MEASURES),
    delegations: new LayeredMap<Delegation>(undefined, (d) => ({ ...d })),
    usdt: new LayeredMap<bigint>(),
    usdtTotalSupply: 0n,
    usdtBlacklist: new Set(),
    usdtPaused: false,
    energyWeightDrift: 0,
    minted: 0,
    burned: 0,
    witnesses: [],
  };
}

/**
 * A writable state on top of `s`, in O(1) (the blacklist and witness list are small and copied). It reads through
 * to `s`, so `s` must not change while the fork is in use, except for faucet mints (see Chain.fund).
 */
export function forkState(s: ChainState): ChainState {
  const fork: ChainState = {
    accounts: s.accounts.fork(),
    delegations: s.delegations.fork(),
    usdt: s.usdt.fork(),
    usdtTotalSupply: s.usdtTotalSupply,
    usdtBlacklist: new Set(s.usdtBlacklist),
    usdtPaused: s.usdtPaused,
    energyWeightDrift: s.energyWeightDrift,
    minted: s.minted,
    burned: s.burned,
    witnesses: [...s.witnesses],
  };
  // Not enumerable: a state spread or printed shows its contents, not the layers under it.
  return Object.defineProperty(fork, 'parent', { value: s, enumerable: false, configurable: true, writable: true });
}

/** A read-only view of `s` as it is now and later (reads take no private copies, so they leave `s` as it was). */
export function readOnlyView(s: ChainState): ChainState {
  const view = forkState(s);
  setWritable(view, false);
  return view;
}

/** Folds a fork's changes into the state it was forked from; the fork must not be used after. */
export function commitState(fork: ChainState): void {
  const p = fork.parent;
  if (!p) throw new Error('not a fork');
  fork.accounts.commit();
  fork.delegations.commit();
  fork.usdt.commit();
  Object.assign(p, {
    usdtTotalSupply: fork.usdtTotalSupply,
    usdtBlacklist: fork.usdtBlacklist,
    usdtPaused: fork.usdtPaused,
    energyWeightDrift: fork.energyWeightDrift,
    minted: fork.minted,
    burned: fork.burned,
    witnesses: fork.witnesses,
  });
}

/** Makes `s` the bottom layer by merging its (bottom-layer) parent into it; the parent must not be used after. */
export function absorbParent(s: ChainState): void {
  s.accounts.absorbParent();
  s.delegations.absorbParent();
  s.usdt.absorbParent();
  delete s.parent;
}

/** Read-only (a past block's state) or writable again (a reorg's fork point becoming the head). */
export function setWritable(s: ChainState, on: boolean): void {
  s.accounts.setWritable(on);
  s.delegations.setWritable(on);
  s.usdt.setWritable(on);
}

/** Sun staked (own plus delegated away) for energy and for bandwidth over all accounts, without a scan. */
export function stakeTotals(s: ChainState): { energy: number; bandwidth: number } {
  const [energy, bandwidth] = s.accounts.sums();
  return { energy: energy!, bandwidth: bandwidth! };
}

/** Key of a delegation record. */
export function delegationKey(from: string, to: string, lock: boolean): string {
  return `${from}:${to}:${lock ? 1 : 0}`;
}

/** Sun owned by an account in every form (liquid, staked, delegated away, unstaking). */
export function ownedSun(a: Account): number {
  return (
    a.balance +
    a.frozenBandwidth +
    a.frozenEnergy +
    a.delegatedBandwidth +
    a.delegatedEnergy +
    a.unfrozen.reduce((n, u) => n + u.amount, 0)
  );
}

/** Sum of {@link ownedSun} over all accounts: equals minted − burned at all times. */
export function totalOwnedSun(s: ChainState): number {
  let n = 0;
  for (const a of s.accounts.values()) n += ownedSun(a);
  return n;
}

/** TRON power (votes available) of an account, in whole TRX. */
export function tronPower(a: Account): number {
  return Math.floor((a.frozenBandwidth + a.frozenEnergy + a.delegatedBandwidth + a.delegatedEnergy) / 1_000_000);
}
