/**
 * System-contract actuators (TransferContract and Stake 2.0 / voting contracts). Each validates with java-tron's
 * wording (the text after "Contract validate error : " in a broadcast reply) and then executes on the state.
 */
import { BLOCK_INTERVAL_MS, DEFAULT_LOCK_PERIOD_BLOCKS, MAX_UNFREEZE_ENTRIES, MAX_VOTE_NUMBER, SUN_PER_TRX, type ChainParams } from './constants.js';
import { toBase58, tryHex41 } from './codec.js';
import { energyUsed, netUsed, totalEnergyWeight, totalNetWeight } from './resources.js';
import { delegationKey, newAccount, tronPower, type Account, type ChainState, type Delegation, type Resource } from './state.js';

/** A validation failure; the message is java-tron's text. */
export class ContractValidateError extends Error {}

/** What an execution reports into TransactionInfo. */
export interface ExecResult {
  /** Sun burned by the actuator itself (account creation fee in a system contract). */
  fee?: number;
  withdrawAmount?: number;
  withdrawExpireAmount?: number;
}

/** Everything an actuator needs. */
export interface ActuatorCtx {
  state: ChainState;
  params: ChainParams;
  now: number;
  value: Record<string, unknown>;
}

const fail = (msg: string): never => {
  throw new ContractValidateError(msg);
};
const YEAR_MS = 365 * 86_400_000;
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : 0);
const resourceOf = (v: unknown): Resource | null =>
  v === undefined || v === 'BANDWIDTH' || v === 0 ? 'BANDWIDTH' : v === 'ENERGY' || v === 1 ? 'ENERGY' : null;
const readable = (hex: string): string => toBase58(hex);

/** Owner of a contract value (41-hex) or null when malformed. */
export function ownerOf(value: Record<string, unknown>): string | null {
  return tryHex41(value['owner_address']);
}

/** Whether executing this contract creates a new account (changes the bandwidth rule). */
export function createsAccount(type: string, value: Record<string, unknown>, s: ChainState): boolean {
  if (type !== 'TransferContract') return false;
  const to = tryHex41(value['to_address']);
  return to !== null && !s.accounts.has(to);
}

/** Message java-tron uses when the owner account is missing, per contract type. */
export function ownerMissingMessage(type: string, owner: string): string {
  if (type === 'TransferContract') return 'Validate TransferContract error, no OwnerAccount.';
  if (type === 'TriggerSmartContract') return `Validate InternalTransfer error, no OwnerAccount.`;
  if (type === 'UnfreezeBalanceV2Contract' || type === 'UnDelegateResourceContract') {
    return `Account[${readable(owner)}] does not exist`;
  }
  return `Account[${readable(owner)}] not exists`;
}

/** Credits voting rewards accrued since the last settlement (simple APR model, see constants). */
export function settleReward(a: Account, p: ChainParams, now: number): void {
  const votes = a.votes.reduce((n, v) => n + v.count, 0);
  if (now > a.rewardSettledAt && votes > 0) {
    a.allowance += Math.floor((votes * SUN_PER_TRX * p.voteRewardApr * (now - a.rewardSettledAt)) / YEAR_MS);
  }
  a.rewardSettledAt = Math.max(a.rewardSettledAt, now);
}

/** Reward withdrawable at `now` without mutating (getReward). */
export function pendingReward(a: Account, p: ChainParams, now: number): number {
  const copy = { ...a };
  settleReward(copy, p, now);
  return copy.allowance;
}

function transfer(ctx: ActuatorCtx, owner: Account): ExecResult {
  const { state: s, params: p, value } = ctx;
  const to = tryHex41(value['to_address']) ?? fail('Invalid toAddress!');
  const amount = num(value['amount']);
  if (to === owner.address) fail('Cannot transfer TRX to yourself.');
  if (!(amount > 0)) fail('Amount must be greater than 0.');
  const target = s.accounts.get(to);
  const fee = target ? 0 : p.createNewAccountFeeInSystemContract;
  if (owner.balance < amount + fee) fail('Validate TransferContract error, balance is not sufficient.');
  if (target && target.balance + amount > Number.MAX_SAFE_INTEGER) fail('long overflow');
  const recipient = target ?? newAccount(to, ctx.now);
  if (!target) s.accounts.set(to, recipient);
  owner.balance -= amount + fee;
  recipient.balance += amount;
  s.burned += fee;
  return fee ? { fee } : {};
}

function freeze(ctx: ActuatorCtx, owner: Account): ExecResult {
  const amount = num(ctx.value['frozen_balance']);
  const res = resourceOf(ctx.value['resource']) ?? fail('ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY、TRON_POWER]');
  if (amount <= 0) fail('frozenBalance must be positive');
  if (amount < SUN_PER_TRX) fail('frozenBalance must be greater than or equal to 1 TRX');
  if (amount > owner.balance) fail('frozenBalance must be less than or equal to accountBalance');
  owner.balance -= amount;
  if (res === 'ENERGY') owner.frozenEnergy += amount;
  else owner.frozenBandwidth += amount;
  return {};
}

function withdrawExpired(owner: Account, now: number): number {
  const expired = owner.unfrozen.filter((u) => u.expireTime <= now);
  owner.unfrozen = owner.unfrozen.filter((u) => u.expireTime > now);
  const amount = expired.reduce((n, u) => n + u.amount, 0);
  owner.balance += amount;
  return amount;
}

function unfreeze(ctx: ActuatorCtx, owner: Account): ExecResult {
  const { params: p, now } = ctx;
  const res = resourceOf(ctx.value['resource']) ?? fail('ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY、TRON_POWER]');
  const amount = num(ctx.value['unfreeze_balance']);
  const frozen = res === 'ENERGY' ? owner.frozenEnergy : owner.frozenBandwidth;
  if (frozen <= 0) fail(res === 'ENERGY' ? 'no frozenBalance(Energy)' : 'no frozenBalance(BANDWIDTH)');
  if (amount <= 0 || amount > frozen) fail(`Invalid unfreeze_balance, [${amount}] is error`);
  if (owner.unfrozen.filter((u) => u.expireTime > now).length >= MAX_UNFREEZE_ENTRIES) {
    fail('Invalid unfreeze operation, unfreezing times is over limit');
  }
  const withdrawn = withdrawExpired(owner, now);
  if (res === 'ENERGY') owner.frozenEnergy -= amount;
  else owner.frozenBandwidth -= amount;
  owner.unfrozen.push({ type: res, amount, expireTime: now + p.unfreezeDelayDays * 86_400_000 });
  // java-tron clears the votes when the remaining TRON power no longer covers them.
  if (owner.votes.reduce((n, v) => n + v.count, 0) > tronPower(owner)) {
    settleReward(owner, p, now);
    owner.votes = [];
  }
  return withdrawn ? { withdrawExpireAmount: withdrawn } : {};
}

function withdrawExpireUnfreeze(ctx: ActuatorCtx, owner: Account): ExecResult {
  if (!owner.unfrozen.some((u) => u.expireTime <= ctx.now)) fail('no unFreeze balance to withdraw ');
  return { withdrawExpireAmount: withdrawExpired(owner, ctx.now) };
}

function cancelAllUnfreeze(ctx: ActuatorCtx, owner: Account): ExecResult {
  if (owner.unfrozen.length === 0) fail('No unfreezeV2 list to cancel');
  const withdrawn = withdrawExpired(owner, ctx.now);
  for (const u of owner.unfrozen) {
    if (u.type === 'ENERGY') owner.frozenEnergy += u.amount;
    else owner.frozenBandwidth += u.amount;
  }
  owner.unfrozen = [];
  return withdrawn ? { withdrawExpireAmount: withdrawn } : {};
}

/**
 * Sun of stake "in use" by consumed resources (java-tron's v2 usage check before delegating). ENERGY as java-tron's
 * DelegateResourceActuator and Wallet.calcCanDelegatedEnergyMaxSize count it: the usage (decayed to now) as stake,
 * less the stake received from others (FreezeV2Util.getV2EnergyUsage; the devnet has no Stake 1.0), floored at 0.
 */
export function stakeInUse(owner: Account, res: Resource, ctx: ActuatorCtx): number {
  const { state: s, params: p, now } = ctx;
  if (res === 'ENERGY') {
    const usage = Math.floor(energyUsed(owner, now) * SUN_PER_TRX * (totalEnergyWeight(s, p) / p.totalEnergyLimit));
    return Math.max(0, usage - owner.acquiredEnergy);
  }
  return Math.floor(netUsed(owner, now) * SUN_PER_TRX * (totalNetWeight(s, p) / p.totalNetLimit));
}

function receiverOf(ctx: ActuatorCtx, owner: Account): Account {
  const to = tryHex41(ctx.value['receiver_address']) ?? fail('Invalid receiverAddress');
  if (to === owner.address) fail('receiverAddress must not be the same as ownerAddress');
  return ctx.state.accounts.get(to) ?? fail(`Account[${readable(to)}] not exists`);
}

function delegate(ctx: ActuatorCtx, owner: Account): ExecResult {
  const { state: s, params: p, now, value } = ctx;
  const res = resourceOf(value['resource']) ?? fail('ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]');
  const amount = num(value['balance']);
  if (amount < SUN_PER_TRX) fail('delegateBalance must be greater than or equal to 1 TRX');
  const frozen = res === 'ENERGY' ? owner.frozenEnergy : owner.frozenBandwidth;
  if (frozen - stakeInUse(owner, res, ctx) < amount) {
    fail(`delegateBalance must be less than or equal to available ${res === 'ENERGY' ? 'FreezeEnergyV2' : 'FreezeBandwidthV2'} balance`);
  }
  const receiver = receiverOf(ctx, owner);
  if (receiver.isContract) fail('Do not allow delegate resources to contract addresses');
  const lock = value['lock'] === true;
  let period = num(value['lock_period']);
  if (lock && (period < 0 || period > p.maxDelegateLockPeriod)) {
    fail(`The lock period of delegate resource cannot be less than 0 and cannot exceed ${p.maxDelegateLockPeriod}!`);
  }
  if (lock && period === 0) period = DEFAULT_LOCK_PERIOD_BLOCKS;
  const key = delegationKey(owner.address, receiver.address, lock);
  const rec: Delegation = s.delegations.get(key) ?? {
    from: owner.address, to: receiver.address, lock, bandwidth: 0, energy: 0, expireBandwidth: 0, expireEnergy: 0,
  };
  const expire = lock ? now + period * BLOCK_INTERVAL_MS : 0;
  const prevExpire = res === 'ENERGY' ? rec.expireEnergy : rec.expireBandwidth;
  if (lock && prevExpire > expire) {
    const name = res === 'ENERGY' ? 'ENERGY' : 'BANDWIDTH';
    fail(`The lock period for ${name} this time cannot be less than the remaining time[${prevExpire - now}ms] of the last lock period for ${name}!`);
  }
  if (res === 'ENERGY') {
    owner.frozenEnergy -= amount; owner.delegatedEnergy += amount; receiver.acquiredEnergy += amount;
    rec.energy += amount; rec.expireEnergy = expire;
  } else {
    owner.frozenBandwidth -= amount; owner.delegatedBandwidth += amount; receiver.acquiredBandwidth += amount;
    rec.bandwidth += amount; rec.expireBandwidth = expire;
  }
  s.delegations.set(key, rec);
  return {};
}

function undelegate(ctx: ActuatorCtx, owner: Account): ExecResult {
  const { state: s, now, value } = ctx;
  const res = resourceOf(value['resource']) ?? fail('ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]');
  const to = tryHex41(value['receiver_address']) ?? fail('Invalid receiverAddress');
  if (to === owner.address) fail('receiverAddress must not be the same as ownerAddress');
  const amount = num(value['balance']);
  if (amount <= 0) fail('unDelegateBalance must be more than 0 TRX');
  const unlocked = s.delegations.get(delegationKey(owner.address, to, false));
  const locked = s.delegations.get(delegationKey(owner.address, to, true));
  if (!unlocked && !locked) fail('delegated Resource does not exist');
  const part = (d: Delegation | undefined, onlyExpired: boolean): number => {
    if (!d) return 0;
    const [bal, exp] = res === 'ENERGY' ? [d.energy, d.expireEnergy] : [d.bandwidth, d.expireBandwidth];
    return !onlyExpired || exp <= now ? bal : 0;
  };
  const available = part(unlocked, false) + part(locked, true);
  if (available < amount) {
    fail(`insufficient delegatedFrozenBalance(${res === 'ENERGY' ? 'Energy' : 'BANDWIDTH'}), request=${amount}, unlock_balance=${available}`);
  }
  // Expired locked stake merges into the unlocked record first (java-tron unLockExpireResource).
  const rec: Delegation = unlocked ?? { from: owner.address, to, lock: false, bandwidth: 0, energy: 0, expireBandwidth: 0, expireEnergy: 0 };
  const expiredLocked = part(locked, true);
  if (locked && expiredLocked > 0) {
    if (res === 'ENERGY') { rec.energy += locked.energy; locked.energy = 0; } else { rec.bandwidth += locked.bandwidth; locked.bandwidth = 0; }
    if (locked.energy === 0 && locked.bandwidth === 0) s.delegations.delete(delegationKey(owner.address, to, true));
  }
  if (res === 'ENERGY') rec.energy -= amount; else rec.bandwidth -= amount;
  const key = delegationKey(owner.address, to, false);
  if (rec.energy === 0 && rec.bandwidth === 0) s.delegations.delete(key); else s.delegations.set(key, rec);
  const receiver = s.accounts.get(to);
  if (res === 'ENERGY') {
    owner.delegatedEnergy -= amount; owner.frozenEnergy += amount;
    if (receiver) {
      // The receiver's consumed energy moves back with the stake, proportionally (java-tron transfers usage).
      const share = receiver.frozenEnergy + receiver.acquiredEnergy > 0 ? amount / (receiver.frozenEnergy + receiver.acquiredEnergy) : 0;
      const moved = Math.round(energyUsed(receiver, now) * Math.min(1, share));
      receiver.acquiredEnergy -= amount;
      receiver.energyUsage = energyUsed(receiver, now) - moved; receiver.latestConsumeTimeForEnergy = now;
      owner.energyUsage = energyUsed(owner, now) + moved; owner.latestConsumeTimeForEnergy = now;
    }
  } else {
    owner.delegatedBandwidth -= amount; owner.frozenBandwidth += amount;
    if (receiver) {
      const share = receiver.frozenBandwidth + receiver.acquiredBandwidth > 0 ? amount / (receiver.frozenBandwidth + receiver.acquiredBandwidth) : 0;
      const moved = Math.round(netUsed(receiver, now) * Math.min(1, share));
      receiver.acquiredBandwidth -= amount;
      receiver.netUsage = netUsed(receiver, now) - moved; receiver.latestConsumeTime = now;
      owner.netUsage = netUsed(owner, now) + moved; owner.latestConsumeTime = now;
    }
  }
  return {};
}

function vote(ctx: ActuatorCtx, owner: Account): ExecResult {
  const votes = Array.isArray(ctx.value['votes']) ? (ctx.value['votes'] as Array<Record<string, unknown>>) : [];
  if (votes.length === 0) fail('VoteNumber must more than 0');
  if (votes.length > MAX_VOTE_NUMBER) fail(`VoteNumber more than maxVoteNumber ${MAX_VOTE_NUMBER}`);
  let sum = 0;
  const list = votes.map((v) => {
    const w = tryHex41(v['vote_address']) ?? fail('Invalid vote address!');
    if (!ctx.state.witnesses.includes(w)) fail(`Witness[${readable(w)}] not exists`);
    const count = num(v['vote_count']);
    if (count <= 0) fail('vote count must be greater than 0');
    sum += count;
    return { address: w, count };
  });
  if (sum > tronPower(owner)) fail(`The total number of votes[${sum}] is greater than the tronPower[${tronPower(owner)}]`);
  settleReward(owner, ctx.params, ctx.now);
  owner.votes = list;
  return {};
}

function withdrawBalance(ctx: ActuatorCtx, owner: Account): ExecResult {
  if (owner.latestWithdrawTime > 0 && ctx.now - owner.latestWithdrawTime < 86_400_000) {
    fail(`The last withdraw time is ${owner.latestWithdrawTime}, less than 24 hours`);
  }
  settleReward(owner, ctx.params, ctx.now);
  if (owner.allowance <= 0) fail('witnessAccount does not have any reward');
  const amount = owner.allowance;
  owner.balance += amount;
  owner.allowance = 0;
  owner.latestWithdrawTime = ctx.now;
  ctx.state.minted += amount;
  return { withdrawAmount: amount };
}

/** System actuators by contract type; TriggerSmartContract is handled by the VM module. */
export const ACTUATORS: Record<string, (ctx: ActuatorCtx, owner: Account) => ExecResult> = {
  TransferContract: transfer,
  FreezeBalanceV2Contract: freeze,
  UnfreezeBalanceV2Contract: unfreeze,
  WithdrawExpireUnfreezeContract: withdrawExpireUnfreeze,
  CancelAllUnfreezeV2Contract: cancelAllUnfreeze,
  DelegateResourceContract: delegate,
  UnDelegateResourceContract: undelegate,
  VoteWitnessContract: vote,
  WithdrawBalanceContract: withdrawBalance,
};
