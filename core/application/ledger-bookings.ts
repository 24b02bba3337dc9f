import { custodialAccount, holderAccount, ledgerAccountKey, providerPrepaidAccount, stakeAccount, type LedgerAccount, type LedgerTransaction } from '../domain/ledger.js';
import type { TransactionState } from '../domain/model/chain.js';
import { COLLECTION_STATUS, type CollectionTask, type StepRecord } from '../domain/model/collection-task.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command, type CommandType } from '../domain/model/command.js';
import type { Deposit } from '../domain/model/deposit.js';
import type { SweepPlan } from '../domain/sweep-plan.js';
import { fundingTaskView } from '../domain/withdrawal-funding.js';

/** The cause type of a confirmed deposit's transaction; its id is the deposit id, its txid the deposit's. */
export const DEPOSIT_CAUSE = 'deposit';

/** The cause type of a sweep's transactions (its transfer and its fees); its id is the collection task's number. */
export const COLLECTION_CAUSE = 'collection';

/** The cause type of a withdrawal's transaction (its transfer, its funding and their fees); its id is the command's number. */
export const WITHDRAWAL_CAUSE = 'withdrawal';

/**
 * The cause type of a refund's transaction (issue #36 item 4): a withdrawal that names a payment request (`refund_of`),
 * booked as a withdrawal is; its id is the command's number.
 */
export const REFUND_CAUSE = 'refund';

/**
 * The cause type of a staking command's transaction (stake, unstake, withdraw-unstaked, vote: TRX moved between an
 * address's liquid, staked and unstaking accounts, and its fees); its id is the command's number.
 */
export const STAKING_CAUSE = 'staking';

/** The cause type of a withdraw-reward command's transaction: voting rewards brought in from outside; its id is the command's number. */
export const STAKING_REWARD_CAUSE = 'staking_reward';

/** The cause types booked so far: an entry's `kind` on the wire, and the values GET /ledger/entries?kind= takes. */
export const LEDGER_ENTRY_KINDS = [DEPOSIT_CAUSE, COLLECTION_CAUSE, WITHDRAWAL_CAUSE, REFUND_CAUSE, STAKING_CAUSE, STAKING_REWARD_CAUSE] as const;

/** The command types booked as staking (STAKE … WITHDRAW_REWARD). */
export const STAKING_COMMAND_TYPES: readonly CommandType[] = [
  COMMAND_TYPE.STAKE, COMMAND_TYPE.UNSTAKE, COMMAND_TYPE.WITHDRAW_UNSTAKED, COMMAND_TYPE.VOTE, COMMAND_TYPE.WITHDRAW_REWARD,
];

/** The cause type a finished staking command is booked under: `staking_reward` for a withdraw-reward, else `staking`. */
export function stakingCauseType(command: Pick<Command, 'type'>): typeof STAKING_CAUSE | typeof STAKING_REWARD_CAUSE {
  return command.type === COMMAND_TYPE.WITHDRAW_REWARD ? STAKING_REWARD_CAUSE : STAKING_CAUSE;
}

/** The cause type a finished withdrawal is booked under: `refund` when it names a payment request, else `withdrawal`. */
export function withdrawalCauseType(command: Pick<Command, 'params'>): typeof WITHDRAWAL_CAUSE | typeof REFUND_CAUSE {
  return command.params['refund_of'] === undefined ? WITHDRAWAL_CAUSE : REFUND_CAUSE;
}

/**
 * The transaction a confirmed deposit books: its amount from `external_in` to the custodial address, at its
 * confirmation time. Keyed by the deposit (one per transfer), so a redo or a second scanner books it once.
 *
 * Only a confirmation books: a pending deposit is not yet the merchant's money, and a confirmed one never reverts
 * (deposit-machine.ts: confirmed is terminal, at the solidified block), so a reorg before confirmation books nothing
 * and needs no reversal.
 */
export function depositBooking(deposit: Deposit, transactionId: string): LedgerTransaction {
  if (deposit.status !== 'confirmed' || deposit.confirmedAt === null) throw new RangeError(`deposit ${deposit.depositId} is not confirmed`);
  return {
    transactionId, userId: deposit.userId, occurredAt: deposit.confirmedAt, reverses: null,
    cause: { type: DEPOSIT_CAUSE, id: deposit.depositId, txid: deposit.txid },
    lines: [
      { account: holderAccount('external_in', deposit.networkCode, deposit.assetSymbol), amount: -deposit.amount },
      { account: custodialAccount(deposit.networkCode, deposit.assetSymbol, deposit.address), amount: deposit.amount },
    ],
  };
}

/** A settled transaction's receipt (TransactionState), as a sweep's booking reads it. */
export type SettledReceipt = Extract<TransactionState, { state: 'confirmed' | 'failed' }>;

/** Who signed (and so paid the fees of) a step's transaction: the sub-address sends the sweep and the recovery. */
export function stepPayer(task: CollectionTask, step: StepRecord): string {
  return step.status === COLLECTION_STATUS.COLLECTING || step.status === COLLECTION_STATUS.RECOVER_TRX ? task.address : task.mainAddress;
}

/** The provider named when a rental plan names none (a provider that does not price: EnergyProvider.name). */
export const UNNAMED_RENTAL_PROVIDER = 'rental';

/**
 * The energy rental a collection (or a funded withdrawal) paid, off chain, from the provider's prepaid balance: the
 * plan chose the rental path and its ACQUIRING_ENERGY order was delivered (the record with `orderRef`, completed). A
 * failed order is refunded by the provider and costs nothing; a task has at most one delivered order. The price is
 * the plan's quote, the figure the cost record counts (collection-steps.ts withRentalPaid). Null: no rental paid.
 */
export function rentalPaid(plan: SweepPlan | undefined, steps: readonly StepRecord[]): { readonly provider: string; readonly priceSun: bigint } | null {
  if (plan === undefined || plan.path !== 'rental' || plan.sourceSun <= 0n) return null;
  const delivered = steps.some((s) => s.status === COLLECTION_STATUS.ACQUIRING_ENERGY && s.orderRef !== null && s.completedAt !== null);
  return delivered ? { provider: plan.provider ?? UNNAMED_RENTAL_PROVIDER, priceSun: plan.sourceSun } : null;
}

/** The lines of a paid rental: its price from the provider's prepaid balance (TRX) to `fee_energy_rental`. */
function rentalLines(networkCode: string, rental: { readonly provider: string; readonly priceSun: bigint }): { account: LedgerAccount; amount: bigint }[] {
  return [
    { account: providerPrepaidAccount(networkCode, 'TRX', rental.provider), amount: -rental.priceSun },
    { account: holderAccount('fee_energy_rental', networkCode, 'TRX'), amount: rental.priceSun },
  ];
}

/**
 * The transaction a DONE collection books, keyed by the task (cause `collection`, id = its number, txid = the sweep's):
 * - the sweep: `sweptAmount` of the asset from the sub-address to the main address;
 * - the funding (FUNDING_TRX, when its receipt is confirmed): its TRX from main to sub; the recovery (RECOVER_TRX that
 *   returns the float, when confirmed): its TRX from sub to main;
 * - each transaction's fees, paid in TRX by the address that signed it (stepPayer): `net_fee` to `fee_bandwidth`,
 *   `energy_fee` and the chain's other fees (an account's activation: burnt too) to `fee_trx_burned`. A failed
 *   transaction moves nothing and still pays its fees.
 * `receipts` holds the receipt of every step transaction that landed; one absent from it is one proven never included
 * (the cost record settled it as dead): it cost nothing. Lines on the same account are netted; zero lines dropped.
 * - the energy rental it paid (rentalPaid), off chain: its price from the provider's `provider_prepaid` account to
 *   `fee_energy_rental`; no custodial address pays it. Booked in this transaction, so once per task like the rest.
 *
 * A FAILED collection (a failed sweep still burned TRX) books the same way with no sweep amount: what its steps and its
 * reclaim's steps (ReclaimRecord: the delegation and the TRX float back to main) paid and moved, as the chain shows
 * it, at collectionBookingTime; null when it paid and moved nothing. It is booked once its reclaim is done.
 */
export function collectionBooking(task: CollectionTask, receipts: ReadonlyMap<string, SettledReceipt>, transactionId: string): LedgerTransaction | null {
  const failed = task.status === COLLECTION_STATUS.FAILED;
  if ((task.status !== COLLECTION_STATUS.DONE && !failed) || task.finishedAt === null) throw new RangeError(`collection ${task.taskNo} is not DONE or FAILED`);
  if (failed && task.reclaim !== undefined && task.reclaim.status !== 'done') throw new RangeError(`collection ${task.taskNo}: its reclaim is not done`);
  const net = task.networkCode;
  const lines = new Map<string, { account: LedgerAccount; amount: bigint }>();
  const add = (account: LedgerAccount, amount: bigint): void => {
    const key = ledgerAccountKey(account);
    const line = lines.get(key);
    lines.set(key, { account, amount: (line?.amount ?? 0n) + amount });
  };
  const move = (asset: string, from: string, to: string, amount: bigint): void => {
    add(custodialAccount(net, asset, from), -amount);
    add(custodialAccount(net, asset, to), amount);
  };
  if (!failed && task.sweptAmount !== null && task.sweptAmount > 0n) move(task.assetSymbol, task.address, task.mainAddress, task.sweptAmount);
  for (const step of collectionSteps(task)) {
    if (step.transaction === null) continue;
    const receipt = receipts.get(step.transaction.txid);
    if (receipt === undefined) continue;
    if (receipt.state === 'confirmed' && (step.amount ?? 0n) > 0n) {
      if (step.status === COLLECTION_STATUS.FUNDING_TRX) move('TRX', task.mainAddress, task.address, step.amount!);
      if (step.status === COLLECTION_STATUS.RECOVER_TRX && step.purpose === undefined) move('TRX', task.address, task.mainAddress, step.amount!);
    }
    const payer = custodialAccount(net, 'TRX', stepPayer(task, step));
    const bandwidth = receipt.netFeeSun ?? 0n;
    const burnt = receipt.feeSun - bandwidth;
    if (bandwidth > 0n) {
      add(payer, -bandwidth);
      add(holderAccount('fee_bandwidth', net, 'TRX'), bandwidth);
    }
    if (burnt > 0n) {
      add(payer, -burnt);
      add(holderAccount('fee_trx_burned', net, 'TRX'), burnt);
    }
  }
  const rental = rentalPaid(task.plan, task.steps);
  if (rental !== null) for (const line of rentalLines(net, rental)) add(line.account, line.amount);
  const booked = [...lines.values()].filter((l) => l.amount !== 0n);
  if (booked.length === 0) {
    if (failed) return null;
    throw new RangeError(`collection ${task.taskNo} moved nothing`);
  }
  return {
    transactionId, userId: task.userId, occurredAt: collectionBookingTime(task)!, reverses: null,
    cause: { type: COLLECTION_CAUSE, id: task.taskNo, ...(task.sweepTxHash === null ? {} : { txid: task.sweepTxHash }) },
    lines: booked,
  };
}

/** Every step whose transaction a collection's booking reads: the task's, then its reclaim's (a FAILED task's). */
export function collectionSteps(task: CollectionTask): StepRecord[] {
  return [...task.steps, ...(task.reclaim?.steps ?? [])];
}

/**
 * When a finished collection is booked: its finish, or its reclaim's when that came later; null while it is not
 * finished or its reclaim is under way.
 */
export function collectionBookingTime(task: CollectionTask): number | null {
  if (task.finishedAt === null) return null;
  if (task.reclaim === undefined) return task.finishedAt;
  if (task.reclaim.status !== 'done') return null;
  return Math.max(task.finishedAt, task.reclaim.finishedAt ?? task.finishedAt);
}

/**
 * The transaction a finished withdrawal books, keyed by the command (cause `withdrawal`, id = its number, txid = the
 * transfer's), at its finish, on the network of its address (`networkCode`):
 * - the transfer, when the command is SUCCESS and its receipt is confirmed: `params.amount` of the asset from the
 *   custodial address that sent it to `external_out`, or to the receiving custodial address when `toOwnAddress` (one
 *   of the same user's addresses: the scanner books no deposit for it);
 * - the transfer's fees, paid in TRX by the address that signed it (the command's address), from its receipt, confirmed
 *   or failed: `net_fee` to `fee_bandwidth`, the rest (energy burnt, an account's creation) to `fee_trx_burned`;
 * - a funded withdrawal's funding (Command.funding: the main address pays a sub-address's fees, issue #34) as a sweep's
 *   (collectionBooking): the FUNDING_TRX it sent main → sub, the RECOVER_TRX float sub → main, each step's fees on
 *   its signer (stepPayer on the funding's task view), and the energy rental it paid, as a sweep's (rentalPaid).
 * A FAILED withdrawal moves no amount and books only what the chain shows it paid: its transfer's fees when its receipt
 * is on chain (a failed receipt), and its funding as above. `receipts` holds the receipt of every transaction that
 * landed; one absent from it cost nothing. Lines on the same account are netted; zero lines dropped. Null when nothing
 * is left to book (a FAILED withdrawal whose transaction never reached the chain). A `refund_of` withdrawal (a refund
 * of a payment request) is booked the same way under the cause type `refund` (withdrawalCauseType).
 */
export function withdrawalBooking(
  command: Command, receipts: ReadonlyMap<string, SettledReceipt>, where: { readonly networkCode: string; readonly toOwnAddress: boolean }, transactionId: string,
): LedgerTransaction | null {
  const finished = command.status === COMMAND_STATUS.SUCCESS || command.status === COMMAND_STATUS.FAILED;
  if (command.type !== COMMAND_TYPE.WITHDRAWAL || !finished || command.finishedAt === null || command.address === null) {
    throw new RangeError(`command ${command.commandNo} is not a finished withdrawal`);
  }
  const net = where.networkCode;
  const asset = command.assetSymbol ?? 'TRX';
  const lines = new Map<string, { account: LedgerAccount; amount: bigint }>();
  const add = (account: LedgerAccount, amount: bigint): void => {
    const key = ledgerAccountKey(account);
    const line = lines.get(key);
    lines.set(key, { account, amount: (line?.amount ?? 0n) + amount });
  };
  const fees = (payer: string, receipt: SettledReceipt): void => {
    const bandwidth = receipt.netFeeSun ?? 0n;
    const burnt = receipt.feeSun - bandwidth;
    if (bandwidth > 0n) {
      add(custodialAccount(net, 'TRX', payer), -bandwidth);
      add(holderAccount('fee_bandwidth', net, 'TRX'), bandwidth);
    }
    if (burnt > 0n) {
      add(custodialAccount(net, 'TRX', payer), -burnt);
      add(holderAccount('fee_trx_burned', net, 'TRX'), burnt);
    }
  };
  const transfer = command.transaction === null ? undefined : receipts.get(command.transaction.txid);
  if (transfer !== undefined) {
    const amount = BigInt(command.params['amount'] ?? '0');
    if (command.status === COMMAND_STATUS.SUCCESS && transfer.state === 'confirmed' && amount > 0n) {
      const to = command.params['to_address'] ?? '';
      add(custodialAccount(net, asset, command.address), -amount);
      add(where.toOwnAddress ? custodialAccount(net, asset, to) : holderAccount('external_out', net, asset), amount);
    }
    fees(command.address, transfer);
  }
  const funding = command.funding ?? null;
  if (funding !== null) {
    const task = fundingTaskView(command, funding);
    for (const step of funding.steps) {
      if (step.transaction === null) continue;
      const receipt = receipts.get(step.transaction.txid);
      if (receipt === undefined) continue;
      if (receipt.state === 'confirmed' && (step.amount ?? 0n) > 0n) {
        const moved = (from: string, to: string): void => {
          add(custodialAccount(net, 'TRX', from), -step.amount!);
          add(custodialAccount(net, 'TRX', to), step.amount!);
        };
        if (step.status === COLLECTION_STATUS.FUNDING_TRX) moved(funding.mainAddress, command.address);
        if (step.status === COLLECTION_STATUS.RECOVER_TRX && step.purpose === undefined) moved(command.address, funding.mainAddress);
      }
      fees(stepPayer(task, step), receipt);
    }
    const rental = rentalPaid(funding.plan, funding.steps);
    if (rental !== null) for (const line of rentalLines(net, rental)) add(line.account, line.amount);
  }
  const booked = [...lines.values()].filter((l) => l.amount !== 0n);
  if (booked.length === 0) return null;
  return {
    transactionId, userId: command.userId, occurredAt: command.finishedAt, reverses: null,
    cause: { type: withdrawalCauseType(command), id: command.commandNo, ...(command.transaction === null ? {} : { txid: command.transaction.txid }) },
    lines: booked,
  };
}

/**
 * The transaction a finished staking command books (issue #36), keyed by the command (cause `staking`, or
 * `staking_reward` for a withdraw-reward; id = its number, txid = its transaction's), at its finish, on the network of
 * its address, from its transaction's receipt (Stake 2.0, /work/shared/notes/tron-facts.md):
 * - a stake (FreezeBalanceV2): `params.amount` TRX from the address's liquid account to its `staked` account;
 * - an unstake (UnfreezeBalanceV2): `params.amount` from `staked` to `unstaking` (the chain's wait before it can be
 *   withdrawn); the receipt's `withdraw_expire_amount` (unstaked TRX whose wait had ended, which the chain sweeps back
 *   with every unfreeze) from `unstaking` to liquid;
 * - a withdraw-unstaked (WithdrawExpireUnfreeze): the receipt's `withdraw_expire_amount` from `unstaking` to liquid;
 * - a withdraw-reward (WithdrawBalance): the receipt's `withdraw_amount` from `external_in` to liquid (money received
 *   from outside: the chain's voting reward);
 * - a vote moves nothing;
 * - every kind: its fees, paid in TRX by the address, from the receipt, confirmed or failed (as a withdrawal's).
 * The amounts move only when the command is SUCCESS and its receipt confirmed; a FAILED command books only its fees.
 * `receipt` is the receipt of the command's transaction, undefined when it never landed (it cost nothing). Lines on the
 * same account are netted; zero lines dropped. Null when nothing is left to book (a vote that paid no fee).
 */
export function stakingBooking(
  command: Command, receipt: SettledReceipt | undefined, where: { readonly networkCode: string }, transactionId: string,
): LedgerTransaction | null {
  const finished = command.status === COMMAND_STATUS.SUCCESS || command.status === COMMAND_STATUS.FAILED;
  if (!STAKING_COMMAND_TYPES.includes(command.type) || !finished || command.finishedAt === null || command.address === null) {
    throw new RangeError(`command ${command.commandNo} is not a finished staking command`);
  }
  const net = where.networkCode;
  const address = command.address;
  const lines = new Map<string, { account: LedgerAccount; amount: bigint }>();
  const add = (account: LedgerAccount, amount: bigint): void => {
    const key = ledgerAccountKey(account);
    const line = lines.get(key);
    lines.set(key, { account, amount: (line?.amount ?? 0n) + amount });
  };
  const move = (from: LedgerAccount, to: LedgerAccount, amount: bigint): void => {
    if (amount <= 0n) return;
    add(from, -amount);
    add(to, amount);
  };
  const liquid = custodialAccount(net, 'TRX', address);
  const staked = stakeAccount('staked', net, 'TRX', address);
  const unstaking = stakeAccount('unstaking', net, 'TRX', address);
  if (receipt !== undefined) {
    if (command.status === COMMAND_STATUS.SUCCESS && receipt.state === 'confirmed') {
      const amount = BigInt(command.params['amount'] ?? '0');
      const expired = receipt.withdrawExpireAmountSun ?? 0n;
      switch (command.type) {
        case COMMAND_TYPE.STAKE: move(liquid, staked, amount); break;
        case COMMAND_TYPE.UNSTAKE: move(staked, unstaking, amount); move(unstaking, liquid, expired); break;
        case COMMAND_TYPE.WITHDRAW_UNSTAKED: move(unstaking, liquid, expired); break;
        case COMMAND_TYPE.WITHDRAW_REWARD: move(holderAccount('external_in', net, 'TRX'), liquid, receipt.withdrawAmountSun ?? 0n); break;
        default: break;
      }
    }
    const bandwidth = receipt.netFeeSun ?? 0n;
    const burnt = receipt.feeSun - bandwidth;
    move(liquid, holderAccount('fee_bandwidth', net, 'TRX'), bandwidth);
    move(liquid, holderAccount('fee_trx_burned', net, 'TRX'), burnt);
  }
  const booked = [...lines.values()].filter((l) => l.amount !== 0n);
  if (booked.length === 0) return null;
  return {
    transactionId, userId: command.userId, occurredAt: command.finishedAt, reverses: null,
    cause: { type: stakingCauseType(command), id: command.commandNo, ...(command.transaction === null ? {} : { txid: command.transaction.txid }) },
    lines: booked,
  };
}
