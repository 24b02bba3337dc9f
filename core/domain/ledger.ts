import type { UserId } from './model/common.js';

/**
 * The books (issue #36): double entry per user, network and asset. Accounts are data, not code: a second network or
 * asset adds rows (a new `networkCode` or `assetSymbol`), never a new kind.
 *
 * Sign convention: an account's balance is what it holds. A custodial address receiving a deposit goes up
 * (+amount) and `external_in` goes down (-amount): minus its balance is everything brought in from outside. Money
 * sent out or paid as a fee raises `external_out` or the fee account and lowers the custodial address.
 */
export const LEDGER_ACCOUNT_KINDS = [
  /** A custodial address of the user: its liquid balance. */
  'custodial',
  /** TRX burned for energy by the chain. */
  'fee_trx_burned',
  /** TRX burned for bandwidth. */
  'fee_bandwidth',
  /** TRX paid to an energy rental provider. */
  'fee_energy_rental',
  /** Money received from outside (its balance is minus the total received). */
  'external_in',
  /** Money sent outside. */
  'external_out',
  /** TRX an address has staked (frozen, Stake 2.0): still its holder's, out of its liquid balance (an address). */
  'staked',
  /** TRX an address has unstaked and not yet withdrawn (the chain's unstaking wait, then withdrawable; an address). */
  'unstaking',
  /**
   * An energy rental provider's prepaid balance, which pays the rentals off chain (its holder is the provider's name).
   * Like `external_in` it is drawn on, never topped up in these books: minus its balance is what the provider's prepaid
   * balance paid for the user's energy.
   */
  'provider_prepaid',
] as const;
export type LedgerAccountKind = (typeof LEDGER_ACCOUNT_KINDS)[number];

/** The kinds held by one custodial address (they take its address): liquid, staked and unstaking. */
export const ADDRESS_ACCOUNT_KINDS: readonly LedgerAccountKind[] = ['custodial', 'staked', 'unstaking'];

/** The kinds held by someone named beside the kind (`address` holds the name): an energy provider's prepaid balance. */
export const NAMED_HOLDER_ACCOUNT_KINDS: readonly LedgerAccountKind[] = ['provider_prepaid'];

/**
 * A ledger account: per network, asset and holder. `address` names the holder: the address for the address kinds
 * (ADDRESS_ACCOUNT_KINDS), the provider for a named holder's kind (NAMED_HOLDER_ACCOUNT_KINDS), and is null for the rest
 * (the user's fee and outside accounts), so a second provider, like a second network, adds rows.
 */
export interface LedgerAccount {
  readonly kind: LedgerAccountKind;
  readonly networkCode: string;
  readonly assetSymbol: string;
  readonly address: string | null;
}

/** What caused a transaction: it is booked exactly once per (user, type, id); `txid` names the chain transaction. */
export interface LedgerCause {
  readonly type: string;
  readonly id: string;
  readonly txid?: string;
}

/** One line of a transaction as posted: `amount` is signed, in smallest units, never 0. */
export interface LedgerLine {
  readonly account: LedgerAccount;
  readonly amount: bigint;
}

/** A transaction as posted: its lines sum to zero per asset. Never changed once booked. */
export interface LedgerTransaction {
  readonly transactionId: string;
  readonly userId: UserId;
  /** Epoch milliseconds. */
  readonly occurredAt: number;
  readonly cause: LedgerCause;
  /** The transaction this one reverses (a correction), or null. */
  readonly reverses: string | null;
  readonly lines: readonly LedgerLine[];
}

/** A booked entry: one line of a transaction, with its account's balance after it. */
export interface LedgerEntry {
  /** `${transactionId}:${index of the line}`. */
  readonly entryId: string;
  readonly transactionId: string;
  readonly userId: UserId;
  readonly occurredAt: number;
  readonly account: LedgerAccount;
  readonly amount: bigint;
  readonly balanceAfter: bigint;
  readonly cause: LedgerCause;
  readonly reverses: string | null;
}

/** An account's balance (LedgerPort.balancesAt). */
export interface LedgerBalance {
  readonly account: LedgerAccount;
  readonly balance: bigint;
}

/** The account's identity as one string: what balances and row locks are keyed by (with the user). */
export function ledgerAccountKey(account: LedgerAccount): string {
  return [account.networkCode, account.assetSymbol, account.kind, account.address ?? ''].join('|');
}

/** The cause's identity as one string (type and id; the txid is information). */
export function ledgerCauseKey(cause: LedgerCause): string {
  return `${cause.type}|${cause.id}`;
}

/** Why a transaction cannot be booked; empty when it can. */
export function ledgerTransactionProblems(tx: LedgerTransaction): string[] {
  const problems: string[] = [];
  if (tx.lines.length < 2) problems.push('a transaction has at least two lines');
  for (const line of tx.lines) {
    if (line.amount === 0n) problems.push(`a zero line on ${ledgerAccountKey(line.account)}`);
    const named = ADDRESS_ACCOUNT_KINDS.includes(line.account.kind) || NAMED_HOLDER_ACCOUNT_KINDS.includes(line.account.kind);
    if (named !== (line.account.address !== null)) {
      problems.push(`${line.account.kind} ${named ? 'needs' : 'takes no'} ${NAMED_HOLDER_ACCOUNT_KINDS.includes(line.account.kind) ? 'holder' : 'address'}`);
    }
  }
  for (const [asset, sum] of sumsPerAsset(tx.lines)) {
    if (sum !== 0n) problems.push(`${asset} lines sum to ${sum}, not 0`);
  }
  if (tx.cause.type === '' || tx.cause.id === '') problems.push('a cause has a type and an id');
  return problems;
}

/** Throws RangeError (a caller's bug, never a business outcome) when the transaction cannot be booked. */
export function assertBookable(tx: LedgerTransaction): void {
  const problems = ledgerTransactionProblems(tx);
  if (problems.length > 0) throw new RangeError(`ledger transaction ${tx.transactionId}: ${problems.join('; ')}`);
}

/** The sum of the lines per `${networkCode}:${assetSymbol}`. */
export function sumsPerAsset(lines: readonly { account: LedgerAccount; amount: bigint }[]): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const { account, amount } of lines) {
    const asset = `${account.networkCode}:${account.assetSymbol}`;
    sums.set(asset, (sums.get(asset) ?? 0n) + amount);
  }
  return sums;
}

/**
 * The entries of a transaction booked on the given balances: each entry's balance is the previous balance of its
 * account (`balanceOf`, then the entry before it in this transaction) plus its amount. Returns the entries and
 * each touched account's final balance.
 */
export function bookedEntries(tx: LedgerTransaction, balanceOf: (accountKey: string) => bigint): { entries: LedgerEntry[]; balances: Map<string, bigint> } {
  assertBookable(tx);
  const balances = new Map<string, bigint>();
  const entries = tx.lines.map((line, index): LedgerEntry => {
    const key = ledgerAccountKey(line.account);
    const balanceAfter = (balances.has(key) ? balances.get(key)! : balanceOf(key)) + line.amount;
    balances.set(key, balanceAfter);
    return {
      entryId: `${tx.transactionId}:${index}`, transactionId: tx.transactionId, userId: tx.userId, occurredAt: tx.occurredAt,
      account: line.account, amount: line.amount, balanceAfter, cause: tx.cause, reverses: tx.reverses,
    };
  });
  return { entries, balances };
}

/** The correction of a booked transaction: the same lines negated, naming the one it reverses. */
export function reversalOf(
  original: Pick<LedgerTransaction, 'transactionId' | 'userId' | 'lines'>,
  reversal: { transactionId: string; occurredAt: number; cause: LedgerCause },
): LedgerTransaction {
  return {
    ...reversal, userId: original.userId, reverses: original.transactionId,
    lines: original.lines.map((line) => ({ account: line.account, amount: -line.amount })),
  };
}

/** The account of a custodial address. */
export function custodialAccount(networkCode: string, assetSymbol: string, address: string): LedgerAccount {
  return { kind: 'custodial', networkCode, assetSymbol, address };
}

/** An address's staked or unstaking TRX (issue #36: staking is booked). */
export function stakeAccount(kind: 'staked' | 'unstaking', networkCode: string, assetSymbol: string, address: string): LedgerAccount {
  return { kind, networkCode, assetSymbol, address };
}

/** An energy rental provider's prepaid balance (issue #36: the rental price is booked), held under the provider's name. */
export function providerPrepaidAccount(networkCode: string, assetSymbol: string, provider: string): LedgerAccount {
  return { kind: 'provider_prepaid', networkCode, assetSymbol, address: provider };
}

/** An account with no address (fees, external in, external out). */
export function holderAccount(kind: Exclude<LedgerAccountKind, 'custodial' | 'staked' | 'unstaking' | 'provider_prepaid'>, networkCode: string, assetSymbol: string): LedgerAccount {
  return { kind, networkCode, assetSymbol, address: null };
}
