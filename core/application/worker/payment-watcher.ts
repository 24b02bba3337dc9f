import { ConcurrencyConflict, DomainError } from '../../domain/errors.js';
import { isTerminalCollectionStatus } from '../../domain/collection-machine.js';
import { DEFAULT_FORWARD_RETRY, forwardDue, forwardRetryable, refusedForward, type ForwardRetrySchedule } from '../../domain/forward-wait.js';
import { judgePayment, PAYMENT_STATUS_ACTIONS, type PaymentEventType } from '../../domain/payment-request-machine.js';
import type { CashierToken } from '../../domain/model/cashier-token.js';
import type { PaymentRequest, PaymentRequestChange, PaymentStatus } from '../../domain/model/payment-request.js';
import { ADDRESS_TYPE } from '../../domain/model/wallet.js';
import type { OptInEventType, WebhookEvent } from '../../domain/model/webhook.js';
import type { AssetRegistry } from '../../domain/assets.js';
import type { CollectionTaskRepository } from '../../ports/collection-task-repository.port.js';
import type { CashierTokenRepository } from '../../ports/cashier-token-repository.port.js';
import type { DepositRepository } from '../../ports/deposit-repository.port.js';
import type { DeveloperConfigRepository } from '../../ports/developer-config-repository.port.js';
import { startCollection, sweepableOrRefuse, type CollectionStarterDeps } from '../collection-starter.js';
import { judgeRequest, paymentDeposits, paymentEvent, payingTxids } from '../payment-requests.js';

/** Resting forwards read on top of a pass's limit at most (issue #34): beyond, the oldest deadlines still go first. */
const MAX_RESTING = 2_000;

/** How long after its deadline an expired request is still watched for a late payment (BTCPay's monitoring window). */
export const LATE_PAYMENT_WINDOW_MS = 24 * 60 * 60_000;

/** The ports the payment watcher touches: those of starting a collection, and where requests, deposits and opt-ins live. */
export type PaymentWatcherDeps = CollectionStarterDeps & {
  readonly cashierTokens: CashierTokenRepository;
  readonly deposits: DepositRepository;
  readonly developerConfigs: DeveloperConfigRepository;
  readonly assets: AssetRegistry;
  /** Where a started forward's task is read (issue #34: one that failed for want of energy goes back to waiting). */
  readonly tasks: Pick<CollectionTaskRepository, 'get'>;
};

/**
 * How one watched request was judged. `unchanged`: nothing new. `judged`: its status moved (its events written with
 * it) or its watch ended. `started`: its collection was made. `skipped`: it made none (a command already held the
 * address, dust, a refusal, the wallet or asset gone). `waiting`: its collection was refused for want of energy (now, or
 * at an earlier attempt whose retry is not due yet); it stays due, its ForwardWait saying why and when it is tried
 * again; or its started task ended FAILED for want of energy with nothing sent, and the forward went back to waiting.
 * `forwarding`: its started task is still running (followed, never started again meanwhile). `busy`: the address lock
 * is taken but no command holds it (another worker is starting it); it stays due. `raced`: another worker wrote the
 * request first.
 */
export type PaymentWatchOutcome = 'unchanged' | 'judged' | 'started' | 'forwarding' | 'waiting' | 'skipped' | 'busy' | 'raced';

/**
 * Judges watched payment requests (issue #25) on each worker tick: moves each through the payment request table from
 * the status it last announced to what its deposits show (core/domain/payment-request-machine.ts), writing the new
 * status with the events it announces (payment.paid, payment.expired, payment.paid_late, when the owner opted in) in
 * one versioned change; and, when a request reached paid or overpaid, starts its collection by itself, as POST
 * /collections does (startCollection: same command, task, lock, checks and dust rule), its `collect` mark going
 * `due` -> `started` in the same commit as the task. Every write is a versioned replace of the token's request, so a
 * second worker or a redo after a crash either finds the change made or loses the version race and writes nothing:
 * each event is written once and each paid request makes at most one collection at a time.
 *
 * A started forward is followed (issue #34): the request stays watched with its task (forwardTask) until that task ends.
 * DONE, or FAILED after money moved or for a reason retrying cannot fix (forwardRetryable), lets the request go (the
 * payer page shows the forward failed). FAILED for want of energy before anything was sent (the check passed, the
 * task's own planning lost a race for the energy) puts the forward back to `due` with a ForwardWait on the same
 * backoff, so it is pending in the API and the metrics and starts again by itself: only once its task is terminal,
 * so two forwards of one request never run at once.
 */
export class PaymentWatcher {
  /** Forwards resting in the last pass, read on top of the next pass's limit. */
  private resting = 0;

  constructor(
    private readonly deps: PaymentWatcherDeps,
    /** When a forward refused for want of energy is tried again (issue #34). */
    private readonly retry: ForwardRetrySchedule = DEFAULT_FORWARD_RETRY,
  ) {}

  /**
   * Judges up to `limit` watched requests, earliest deadline first; an infrastructure failure leaves the rest. Forwards
   * resting until their next attempt (issue #34) are read but not counted in `limit`: the last pass's number of them is
   * read on top (at most MAX_RESTING), so requests waiting for energy never crowd out the ones still being paid.
   */
  async pass(limit = 50): Promise<PaymentWatchOutcome[]> {
    const outcomes: PaymentWatchOutcome[] = [];
    let resting = 0;
    for (const token of await this.deps.cashierTokens.listWatchedPayments(limit + this.resting)) {
      if (this.rests(token)) {
        resting += 1;
        outcomes.push('waiting');
      } else if (token.payment?.collect === 'started') {
        // A started forward costs a task read, not a slot: like a resting one, it never crowds out requests being paid.
        resting += 1;
        outcomes.push(await this.judge(token));
      } else {
        outcomes.push(await this.judge(token));
      }
    }
    this.resting = Math.min(resting, MAX_RESTING);
    return outcomes;
  }

  /** A paid request whose forward waits for its next attempt: nothing to read or write until then. */
  private rests(token: CashierToken): boolean {
    const request = token.payment;
    return request !== undefined && request.watched && request.collect === 'due' && !forwardDue(request.forwardWait, this.deps.clock.now());
  }

  /** Judges one watched request, then starts its collection when that is due. */
  async judge(token: CashierToken): Promise<PaymentWatchOutcome> {
    const request = token.payment;
    if (request === undefined || !request.watched) return 'unchanged';
    if (this.rests(token)) return 'waiting';
    if (request.collect === 'started') return this.follow(token, request);
    const now = this.deps.clock.now();
    const deposits = await paymentDeposits(this.deps.deposits, token);
    const judged = judgeRequest(request, deposits, now);
    const path = judgePayment(request.status, request.amount, judged.seen);
    const status = path.at(-1) ?? request.status;
    const forwards = PAYMENT_STATUS_ACTIONS[status].forwards;
    const collect = forwards && request.collect === null ? 'due' : request.collect;
    const next: PaymentRequest = {
      ...request, status, received: path.length === 0 ? request.received : judged.received, collect,
      watched: stillWatched(status, collect, request.deadline, now),
    };
    let current = token;
    if (path.length > 0 || next.collect !== request.collect || next.watched !== request.watched) {
      const change: PaymentRequestChange = { tokenNo: token.tokenNo, version: token.version + 1, payment: next };
      const events = await this.eventsFor(token, request, next, path, payingTxids(request, deposits, judged.seen));
      try {
        await this.deps.uow.commit({ payments: [change], events });
      } catch (error) {
        if (error instanceof ConcurrencyConflict) return 'raced';
        throw error;
      }
      current = { ...token, payment: next, version: change.version };
      if (next.collect !== 'due') return 'judged';
    }
    return next.collect === 'due' ? this.forward(current, next) : 'unchanged';
  }

  /**
   * The events of the statuses entered on `path`, for the types the owner opted into: a status announces only when
   * the one before it did not announce the same type (paid -> overpaid sends no second payment.paid).
   */
  private async eventsFor(
    token: CashierToken, before: PaymentRequest, after: PaymentRequest, path: readonly PaymentStatus[], txids: readonly string[],
  ): Promise<WebhookEvent[]> {
    if (path.length === 0) return [];
    const optIns: readonly OptInEventType[] = (await this.deps.developerConfigs.get(token.userId))?.optInEventTypes ?? [];
    const events: WebhookEvent[] = [];
    let previous: PaymentEventType | null = PAYMENT_STATUS_ACTIONS[before.status].announces;
    for (const status of path) {
      const type = PAYMENT_STATUS_ACTIONS[status].announces;
      if (type !== null && type !== previous && optIns.includes(type)) {
        // Each event carries the request as it stood when that status was entered: the final count, its own status.
        events.push(paymentEvent(type, token, { ...after, status }, this.deps.ids.uuid(), this.deps.clock.now(), txids));
      }
      previous = type;
    }
    return events;
  }

  /**
   * Starts the paid request's collection, its mark going to `started` in the same commit; or marks it skipped; or, when
   * the collection is refused for want of energy (BIZ-ENERGY-UNAVAILABLE, before any task), keeps it due with a
   * ForwardWait (why, and the next attempt on the retry schedule), written as a versioned replace like the rest, so a
   * crash loses nothing and the worker that restarts tries it when due.
   */
  private async forward(token: CashierToken, request: PaymentRequest): Promise<PaymentWatchOutcome> {
    const wallet = await this.deps.wallets.findByAddress(token.address);
    const asset = this.deps.assets.find(token.networkCode, request.assetSymbol);
    if (wallet === null || asset === null || wallet.userId !== token.userId || wallet.addressType !== ADDRESS_TYPE.SUB) {
      return this.mark(token, request, 'skipped');
    }
    // Followed until its task ends (issue #34); the ForwardWait stays (hidden while started) so a retry backs off further.
    const started = (taskNo: string): PaymentRequestChange => ({
      tokenNo: token.tokenNo, version: token.version + 1, payment: { ...request, collect: 'started', watched: true, forwardTask: taskNo },
    });
    try {
      // The dust rule (issue #24 item 5): no task that could only fail.
      await startCollection(this.deps, wallet, asset, async (available) => {
        sweepableOrRefuse(asset, available);
      }, (task) => ({ payments: [started(task.taskNo)] }));
      return 'started';
    } catch (error) {
      if (error instanceof ConcurrencyConflict) return 'raced';
      if (error instanceof DomainError && error.code === 'BIZ-COMMAND-LOCKED') {
        // A command holding the address (the payer's own press, an automatic collection) forwards what is there; the
        // lock alone may be another worker starting this very request, whose commit decides it.
        if ((await this.deps.commands.findActiveByAddress(token.address)) === null) return 'busy';
        return this.mark(token, request, 'skipped');
      }
      if (error instanceof DomainError && error.code === 'BIZ-ENERGY-UNAVAILABLE') return this.wait(token, request, error);
      if (error instanceof DomainError) return this.mark(token, request, 'skipped');
      throw error;
    }
  }

  /**
   * A started forward's task (issue #34): still running, nothing to do; FAILED for want of energy with nothing sent,
   * back to `due` waiting (one more refusal on the backoff); any other end, the request is let go.
   */
  private async follow(token: CashierToken, request: PaymentRequest): Promise<PaymentWatchOutcome> {
    const task = request.forwardTask === undefined ? null : await this.deps.tasks.get(request.forwardTask);
    if (task !== null && !isTerminalCollectionStatus(task.status)) return 'forwarding';
    if (task === null || !forwardRetryable(task)) {
      const { forwardTask: _followed, ...rest } = settled(request);
      return this.write(token, { ...rest, watched: false }, 'judged');
    }
    const refusal = { code: task.errorCode ?? 'BIZ-ENERGY-UNAVAILABLE', message: task.lastError ?? '' };
    const forwardWait = refusedForward(this.retry, request.forwardWait, refusal, this.deps.clock.now());
    const { forwardTask: _failed, ...rest } = request;
    return this.write(token, { ...rest, collect: 'due', watched: true, forwardWait }, 'waiting');
  }

  /** The request's versioned replace; `raced` when another worker wrote it first. */
  private async write(token: CashierToken, payment: PaymentRequest, outcome: PaymentWatchOutcome): Promise<PaymentWatchOutcome> {
    try {
      await this.deps.uow.commit({ payments: [{ tokenNo: token.tokenNo, version: token.version + 1, payment }] });
      return outcome;
    } catch (error) {
      if (error instanceof ConcurrencyConflict) return 'raced';
      throw error;
    }
  }

  private async mark(token: CashierToken, request: PaymentRequest, collect: 'skipped'): Promise<PaymentWatchOutcome> {
    try {
      await this.deps.uow.commit({
        payments: [{ tokenNo: token.tokenNo, version: token.version + 1, payment: { ...settled(request), collect, watched: false } }],
      });
      return 'skipped';
    } catch (error) {
      if (error instanceof ConcurrencyConflict) return 'raced';
      throw error;
    }
  }

  /** Keeps the forward due, with one more refusal counted and its next attempt scheduled. */
  private async wait(token: CashierToken, request: PaymentRequest, refusal: DomainError): Promise<PaymentWatchOutcome> {
    const forwardWait = refusedForward(this.retry, request.forwardWait, refusal, this.deps.clock.now());
    try {
      await this.deps.uow.commit({ payments: [{ tokenNo: token.tokenNo, version: token.version + 1, payment: { ...request, forwardWait } }] });
      return 'waiting';
    } catch (error) {
      if (error instanceof ConcurrencyConflict) return 'raced';
      throw error;
    }
  }
}

/** The request without a ForwardWait: its forward started or was given up, so nothing waits any more. */
function settled(request: PaymentRequest): PaymentRequest {
  const { forwardWait: _done, ...rest } = request;
  return rest;
}

/**
 * Whether the worker keeps judging a request: until its collection is started or skipped once paid (a started one is
 * then followed until its task ends: PaymentWatcher.follow), until it is paid late, and, expired, for a day after its
 * deadline (a late payment then is still announced); open ones always.
 */
function stillWatched(status: PaymentStatus, collect: PaymentRequest['collect'], deadline: number, now: number): boolean {
  if (PAYMENT_STATUS_ACTIONS[status].forwards) return collect === 'due';
  if (status === 'paid_late') return false;
  if (status === 'expired') return now < deadline + LATE_PAYMENT_WINDOW_MS;
  return true;
}
