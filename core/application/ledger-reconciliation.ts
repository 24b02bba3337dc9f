import {
  judgeReconciliation, reconciliationKey, stableDiscrepancies, type ReconciliationJudgement,
} from '../domain/ledger-reconciliation.js';
import { ledgerAccountKey, custodialAccount } from '../domain/ledger.js';
import type { NetworkCode, UserId } from '../domain/model/common.js';
import type { JsonValue, WebhookEvent } from '../domain/model/webhook.js';
import type { WalletAddress } from '../domain/model/wallet.js';
import { formatIsoTime } from '../domain/time.js';
import type { OperatorStatusRecord, OperatorStatusStore } from '../ports/operator-status-store.port.js';
import type { ResolvedDeps } from './deps.js';

/** The ports a reconciliation reads (and, for the worker's events, writes). */
export type ReconciliationDeps = Pick<ResolvedDeps, 'ledger' | 'wallets' | 'chain' | 'assets' | 'deposits' | 'tasks' | 'commands'>;

/** One custodial address and asset judged against the chain (core/domain/ledger-reconciliation.ts). */
export interface ReconciliationLine {
  readonly userId: UserId;
  readonly networkCode: string;
  readonly address: string;
  readonly assetSymbol: string;
  /** The booked balance. */
  readonly ledger: bigint;
  /** The liquid balance on chain when it was read. */
  readonly chain: bigint;
  /** TRX: the address's stake in the books (`staked`, `unstaking`) and on chain, read with the liquid balance; null for a token. */
  readonly stake: { readonly ledgerStaked: bigint; readonly chainStaked: bigint; readonly ledgerUnstaking: bigint; readonly chainUnstaking: bigint } | null;
  readonly judgement: ReconciliationJudgement;
}

/** Balances are read in pages of wallets this size. */
const WALLET_PAGE = 200;
/** The latest tasks read for work in flight (newest first); an older task still running is rarer than a page. */
const RECENT_TASKS = 100;
/** Every booked entry, whatever its time: the books' latest balance. */
const ALL_TIME = Number.MAX_SAFE_INTEGER;

/**
 * The books against the chain (issue #36 item 2): for each of a user's custodial addresses and each asset of its
 * network, the booked balance beside the chain's liquid balance, judged by judgeReconciliation. What the books cannot
 * know yet is gathered first: the address's pending deposits (the scanner saw them, the books take them at their
 * confirmation), work in flight (a collection not ended touches its sub-address and the main address; an active
 * command its address and the main address that funds it). For TRX one account read gives the liquid balance and
 * the stake, and both are judged (a staked-books mismatch is reported even when the liquid balance matches). Reads
 * only; nothing is ever corrected.
 */
export class LedgerReconciliation {
  constructor(private readonly deps: ReconciliationDeps) {}

  /** Every custodial address of the user, ordered by wallet id, each asset of its network. */
  async user(userId: UserId): Promise<ReconciliationLine[]> {
    const wallets: WalletAddress[] = [];
    for (let offset = 0; ; offset += WALLET_PAGE) {
      const page = await this.deps.wallets.listByUser(userId, {}, { offset, limit: WALLET_PAGE });
      wallets.push(...page.items);
      if (page.items.length < WALLET_PAGE) break;
    }
    return this.addresses(userId, wallets);
  }

  /** The given addresses of the user (its wallets). */
  async addresses(userId: UserId, wallets: readonly WalletAddress[]): Promise<ReconciliationLine[]> {
    const booked = new Map<string, bigint>();
    // The books' staked and unstaking TRX per address (issue #36: staking booked), keyed as its liquid account.
    const bookedStaked = new Map<string, bigint>();
    const bookedUnstaking = new Map<string, bigint>();
    for (const b of await this.deps.ledger.balancesAt(userId, ALL_TIME)) {
      if (b.account.kind === 'custodial') booked.set(ledgerAccountKey(b.account), b.balance);
      if ((b.account.kind === 'staked' || b.account.kind === 'unstaking') && b.account.address !== null) {
        const key = ledgerAccountKey(custodialAccount(b.account.networkCode, b.account.assetSymbol, b.account.address));
        const into = b.account.kind === 'staked' ? bookedStaked : bookedUnstaking;
        into.set(key, (into.get(key) ?? 0n) + b.balance);
      }
    }
    const pending = new Map<string, bigint>();
    for (let offset = 0; ; offset += 500) {
      const page = await this.deps.deposits.listByUser(userId, { status: 'pending' }, { offset, limit: 500 });
      for (const d of page.items) {
        const key = ledgerAccountKey(custodialAccount(d.networkCode, d.assetSymbol, d.address));
        pending.set(key, (pending.get(key) ?? 0n) + d.amount);
      }
      if (page.items.length < 500) break;
    }
    const inFlight = await this.inFlight(userId, wallets);
    const lines: ReconciliationLine[] = [];
    for (const wallet of wallets) {
      for (const asset of this.deps.assets.list(wallet.networkCode as NetworkCode)) {
        const key = ledgerAccountKey(custodialAccount(wallet.networkCode, asset.symbol, wallet.address));
        const base = { assetSymbol: asset.symbol, ledger: booked.get(key) ?? 0n, pendingIn: pending.get(key) ?? 0n, inFlight: inFlight.has(wallet.address) };
        let line: Pick<ReconciliationLine, 'chain' | 'stake' | 'judgement'>;
        if (asset.contractAddress === null) {
          // One account read gives the liquid balance and the stake (issue #36): both are judged against the books.
          const h = await this.deps.chain.getTrxHoldings(wallet.address);
          const stake = {
            ledgerStaked: bookedStaked.get(key) ?? 0n, chainStaked: h.stakedSun, ledgerUnstaking: bookedUnstaking.get(key) ?? 0n, chainUnstaking: h.unstakingSun,
          };
          line = {
            chain: h.liquidSun, stake,
            judgement: judgeReconciliation({
              ...base, chain: h.liquidSun, stakedSun: h.stakedSun + h.unstakingSun, unstakingSun: h.unstakingSun,
              bookedStakeSun: stake.ledgerStaked + stake.ledgerUnstaking, bookedUnstakingSun: stake.ledgerUnstaking,
            }),
          };
        } else {
          const chain = await this.deps.chain.getTokenBalance(wallet.address, asset.contractAddress);
          line = { chain, stake: null, judgement: judgeReconciliation({ ...base, chain, stakedSun: 0n }) };
        }
        lines.push({ userId, networkCode: wallet.networkCode, address: wallet.address, assetSymbol: asset.symbol, ledger: base.ledger, ...line });
      }
    }
    return lines;
  }

  /** The addresses that work in flight touches (its booking comes when it ends). */
  private async inFlight(userId: UserId, wallets: readonly WalletAddress[]): Promise<Set<string>> {
    const touched = new Set<string>();
    const recent = await this.deps.tasks.listByUser(userId, {}, { offset: 0, limit: RECENT_TASKS });
    for (const task of recent.items) {
      if (task.finishedAt !== null) continue;
      touched.add(task.address);
      touched.add(task.mainAddress);
    }
    for (const wallet of wallets) {
      const command = await this.deps.commands.findActiveByAddress(wallet.address);
      if (command === null) continue;
      touched.add(wallet.address);
      if (command.funding) touched.add(command.funding.mainAddress);
      const to = command.params['to_address'];
      if (to !== undefined) touched.add(to);
    }
    return touched;
  }
}

/** What one pass of the worker's job found. */
export interface ReconciliationPass {
  readonly at: number;
  /** Users whose addresses were judged (a user whose reads failed is skipped this pass). */
  readonly users: number;
  readonly lines: number;
  /** The discrepancies standing after this pass: seen by this pass and the one before with the same amount. */
  readonly standing: readonly ReconciliationLine[];
  /** Those reported by this pass (new, or a new amount). */
  readonly reported: readonly ReconciliationLine[];
  /** Users whose reads failed. */
  readonly failed: number;
}

/**
 * The worker's reconciliation job's deps: the reads, the outbox for the opt-in event, and the store that keeps its state
 * between passes (the `ledger-reconciliation` record of the operator status, shared by every worker).
 */
export type ReconciliationJobDeps = ReconciliationDeps & Pick<ResolvedDeps, 'clock' | 'ids' | 'uow' | 'developerConfigs'> & {
  readonly operatorStatus: Pick<OperatorStatusStore, 'get' | 'replace'>;
};

/** The operator status kind the job's state between passes is kept under. */
export const RECONCILIATION_STATE_KIND = 'ledger-reconciliation';

/** The job's state between passes as stored: per key, the amount the last pass saw and the amount last reported. */
interface ReconciliationState {
  readonly pass: number;
  readonly previous: ReadonlyMap<string, bigint>;
  readonly reported: ReadonlyMap<string, bigint>;
}

function stateOf(body: OperatorStatusRecord['body'] | undefined): ReconciliationState {
  const amounts = (value: unknown) => new Map(Object.entries((value ?? {}) as Record<string, string>).map(([k, v]) => [k, BigInt(v)]));
  return { pass: typeof body?.['pass'] === 'number' ? body['pass'] : 0, previous: amounts(body?.['previous']), reported: amounts(body?.['reported']) };
}

function bodyOf(state: ReconciliationState): OperatorStatusRecord['body'] {
  const amounts = (map: ReadonlyMap<string, bigint>) => Object.fromEntries([...map].map(([k, v]) => [k, v.toString()]));
  return { pass: state.pass, previous: amounts(state.previous), reported: amounts(state.reported) };
}

/**
 * The worker's reconciliation job (issue #36 item 2): at most every `everyMs`, every user with books is reconciled
 * (LedgerReconciliation.user). A discrepancy is reported only when this pass and the one before see it with the same
 * amount (stableDiscrepancies: a transfer landing between the scanner's cursor and the balance read is not one), and
 * once per amount: a `ledger.discrepancy` event to an owner who opted into it (config.event_types), and in the pass
 * the caller turns into metrics and the daily summary. Nothing is corrected. The state between passes lives in the
 * store (`operatorStatus`, kind `ledger-reconciliation`): a restarted worker, or another one, carries the count on. A
 * pass writes it by compare-and-set on the state it started from; a pass that loses the race (another worker's pass
 * landed meanwhile) reports nothing, so no discrepancy is reported twice.
 */
export class LedgerReconciliationJob {
  private nextRunAt: number;
  private readonly reconciliation: LedgerReconciliation;

  constructor(
    private readonly deps: ReconciliationJobDeps,
    private readonly options: { readonly everyMs: number; readonly firstAfterMs?: number },
  ) {
    this.reconciliation = new LedgerReconciliation(deps);
    this.nextRunAt = deps.clock.now() + (options.firstAfterMs ?? 0);
  }

  /** Runs a pass when one is due; null when none ran. */
  async maybeRun(): Promise<ReconciliationPass | null> {
    const now = this.deps.clock.now();
    if (now < this.nextRunAt) return null;
    this.nextRunAt = now + this.options.everyMs;
    return this.runPass();
  }

  /** One pass over every user with books. */
  async runPass(): Promise<ReconciliationPass> {
    const at = this.deps.clock.now();
    const stored = await this.deps.operatorStatus.get(RECONCILIATION_STATE_KIND);
    const state = stateOf(stored?.body);
    const found = new Map<string, ReconciliationLine>();
    let users = 0;
    let lines = 0;
    let failed = 0;
    for (let after: UserId | null = null; ;) {
      const page = await this.deps.ledger.usersWithBooks(after, 100);
      for (const userId of page) {
        const judged = await this.reconciliation.user(userId).catch(() => null);
        if (judged === null) {
          failed += 1;
          continue;
        }
        users += 1;
        lines += judged.length;
        for (const line of judged) if (line.judgement.status === 'discrepancy') found.set(reconciliationKey(line), line);
      }
      if (page.length < 100) break;
      after = page[page.length - 1]!;
    }
    const now = new Map<string, bigint>();
    for (const [key, line] of found) for (const [part, amount] of discrepancyParts(line)) now.set(`${key}${part}`, amount);
    const { report, reported } = stableDiscrepancies(state.previous, state.reported, now);
    const next = bodyOf({ pass: state.pass + 1, previous: now, reported });
    const kept = await this.deps.operatorStatus.replace(RECONCILIATION_STATE_KIND, next, at, stored?.body ?? null);
    const linesOf = (keys: readonly string[]) => [...found]
      .filter(([key]) => keys.some((k) => k === key || k === `${key}|staked` || k === `${key}|unstaking`)).map(([, line]) => line);
    // Another worker's pass wrote the state since this one read it: it reports, this one does not.
    const reportedLines = kept ? linesOf(report) : [];
    await this.announce(reportedLines, at);
    return { at, users, lines, standing: linesOf([...reported.keys()]), reported: reportedLines, failed };
  }

  /** The `ledger.discrepancy` events of the reported lines, for the owners who opted in. */
  private async announce(lines: readonly ReconciliationLine[], at: number): Promise<void> {
    const byUser = new Map<UserId, ReconciliationLine[]>();
    for (const line of lines) byUser.set(line.userId, [...(byUser.get(line.userId) ?? []), line]);
    for (const [userId, own] of byUser) {
      const optIns = (await this.deps.developerConfigs.get(userId))?.optInEventTypes ?? [];
      if (!optIns.includes('ledger.discrepancy')) continue;
      await this.deps.uow.commit({ events: own.map((line) => ledgerDiscrepancyEvent(line, this.deps.ids.uuid(), at)) });
    }
  }
}

/**
 * The amounts a discrepancy is followed by between passes, each under its own key suffix: the liquid balance's
 * unexplained rest (''), and the stake's (`|staked`, `|unstaking`), each only when non-zero.
 */
export function discrepancyParts(line: Pick<ReconciliationLine, 'judgement'>): [string, bigint][] {
  const j = line.judgement;
  const parts: [string, bigint][] = [['', j.unexplained], ['|staked', j.stakeUnexplained.staked], ['|unstaking', j.stakeUnexplained.unstaking]];
  return parts.filter(([part, amount]) => part === '' ? amount !== 0n || (j.stakeUnexplained.staked === 0n && j.stakeUnexplained.unstaking === 0n) : amount !== 0n);
}

/** A judged line on the wire (GET /ledger/reconciliation items and the `ledger.discrepancy` event's fields). */
export function reconciliationLineView(line: ReconciliationLine): Record<string, JsonValue> {
  const j = line.judgement;
  return {
    network_code: line.networkCode, address: line.address, asset_symbol: line.assetSymbol, status: j.status,
    ledger_balance: line.ledger.toString(), chain_balance: line.chain.toString(), difference: j.difference.toString(),
    explained: j.explained.map((e) => ({ reason: e.reason, amount: e.amount.toString() })), unexplained: j.unexplained.toString(),
    // Extension (issue #36): a TRX line's stake, in the books and on chain, and what of it nothing explains.
    ...(line.stake === null ? {} : {
      staked_ledger_balance: line.stake.ledgerStaked.toString(), staked_chain_balance: line.stake.chainStaked.toString(),
      unstaking_ledger_balance: line.stake.ledgerUnstaking.toString(), unstaking_chain_balance: line.stake.chainUnstaking.toString(),
      staked_unexplained: j.stakeUnexplained.staked.toString(), unstaking_unexplained: j.stakeUnexplained.unstaking.toString(),
    }),
  };
}

/** The outbox entry of a reported discrepancy: spec §6's common fields and the judged line's, top level. */
export function ledgerDiscrepancyEvent(line: ReconciliationLine, eventId: string, occurredAt: number): WebhookEvent {
  const payload: Record<string, JsonValue> = {
    event_id: eventId, event_type: 'ledger.discrepancy', occurred_at: formatIsoTime(occurredAt), ...reconciliationLineView(line),
  };
  return { eventId, userId: line.userId, eventType: 'ledger.discrepancy', occurredAt, payload, dispatched: false };
}
