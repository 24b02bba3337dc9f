/**
 * World state of the devnet (accounts, delegations, the USDT ledger) and its cheap deep copy. Blocks are applied
 * to a copy so that a failing transaction never leaves partial effects, and per-block copies serve the
 * solidified (walletsolidity) view.
 */

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
  accounts: Map<string, Account>;
  /** Key `${from}:${to}:${lock ? 1 : 0}`. */
  delegations: Map<string, Delegation>;
  /** USDT balances in base units (6 decimals), bigint because uint256. */
  usdt: Map<string, bigint>;
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

/** An empty state. */
export function emptyState(): ChainState {
  return {
    accounts: new Map(),
    delegations: new Map(),
    usdt: new Map(),
    usdtTotalSupply: 0n,
    usdtBlacklist: new Set(),
    usdtPaused: false,
    energyWeightDrift: 0,
    minted: 0,
    burned: 0,
    witnesses: [],
  };
}

/** Deep copy; accounts are small flat records so a per-field copy is cheap. */
export function cloneState(s: ChainState): ChainState {
  const accounts = new Map<string, Account>();
  for (const [k, a] of s.accounts) {
    accounts.set(k, { ...a, unfrozen: a.unfrozen.map((u) => ({ ...u })), votes: a.votes.map((v) => ({ ...v })) });
  }
  const delegations = new Map<string, Delegation>();
  for (const [k, d] of s.delegations) delegations.set(k, { ...d });
  return {
    accounts,
    delegations,
    usdt: new Map(s.usdt),
    usdtTotalSupply: s.usdtTotalSupply,
    usdtBlacklist: new Set(s.usdtBlacklist),
    usdtPaused: s.usdtPaused,
    energyWeightDrift: s.energyWeightDrift,
    minted: s.minted,
    burned: s.burned,
    witnesses: [...s.witnesses],
  };
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
