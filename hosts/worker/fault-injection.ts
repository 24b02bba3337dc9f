/**
 * Fault hooks for crash tests: wrappers around the chain gateway, the task repository and the unit of work that
 * throw at numbered opportunities (every step boundary) and record what really went out to the chain.
 */
import { InfrastructureError } from '../../core/domain/errors.js';
import type { ChainGateway, TransactionIntent } from '../../core/ports/chain-gateway.port.js';
import type { CollectionTaskRepository } from '../../core/ports/collection-task-repository.port.js';
import type { UnitOfWork } from '../../core/ports/unit-of-work.port.js';
import type { CommandRepository } from '../../core/ports/command-repository.port.js';

/** A simulated process death: not a port error, so the executor lets it escape and the lease runs out. */
export class InjectedCrash extends Error {
  constructor(readonly point: string) {
    super(`injected crash at ${point}`);
    this.name = 'InjectedCrash';
  }
}

/** What happens at an opportunity: the process dies, or the node fails transiently. */
export type FaultKind = 'crash' | 'transient';

/** Numbered opportunities to fail; `schedule` maps an opportunity number to its fault. */
export class FaultPlan {
  private count = 0;
  readonly fired: { readonly at: number; readonly point: string; readonly kind: FaultKind }[] = [];

  constructor(private readonly schedule: ReadonlyMap<number, FaultKind>) {}

  /** Called at every boundary; throws when this opportunity is scheduled to fail. */
  hit(point: string): void {
    const at = this.count++;
    const kind = this.schedule.get(at);
    if (kind === undefined) return;
    this.fired.push({ at, point, kind });
    if (kind === 'crash') throw new InjectedCrash(point);
    throw new InfrastructureError('CHAIN-NODE-UNAVAILABLE', `injected transient failure at ${point}`);
  }
}

/** A transaction that the wrapped gateway really handed to the node. */
export interface SentTransaction {
  readonly txid: string;
  readonly from: string;
  readonly intent: TransactionIntent;
}

/**
 * The gateway with hooks after prepare (before the record is persisted), before and after broadcast (before
 * broadcastAt is persisted), and after a lookup that found a confirmed transaction (before the transition).
 */
export function faultyGateway(inner: ChainGateway, plan: FaultPlan, sent: Map<string, SentTransaction>): ChainGateway {
  const intents = new Map<string, SentTransaction>();
  return {
    createAccount: () => inner.createAccount(),
    isAddress: (a) => inner.isAddress(a),
    getTrxBalance: (a) => inner.getTrxBalance(a),
    getTrxHoldings: (a) => inner.getTrxHoldings(a),
    getTokenBalance: (a, c) => inner.getTokenBalance(a, c),
    getResources: (a) => inner.getResources(a),
    energyAvailable: (a) => inner.energyAvailable(a),
    energyFactor: (c) => inner.energyFactor(c),
    maintenancePeriod: () => inner.maintenancePeriod(),
    accountExists: (a) => inner.accountExists(a),
    getCanDelegateEnergySun: (a) => inner.getCanDelegateEnergySun(a),
    estimateTrc20TransferEnergy: (f, t, c, a) => inner.estimateTrc20TransferEnergy(f, t, c, a),
    energyPerStakedSun: () => inner.energyPerStakedSun(),
    getChainPrices: () => inner.getChainPrices(),
    head: () => inner.head(),
    solidifiedHead: () => inner.solidifiedHead(),
    findInSolidified: (tx) => inner.findInSolidified(tx),
    async prepare(signer, intent) {
      const tx = await inner.prepare(signer, intent);
      intents.set(tx.txid, { txid: tx.txid, from: signer.address, intent });
      plan.hit(`after prepare ${intent.kind}`);
      return tx;
    },
    async broadcast(tx) {
      plan.hit('before broadcast');
      await inner.broadcast(tx);
      const known = intents.get(tx.txid);
      if (known !== undefined) sent.set(tx.txid, known);
      plan.hit('after broadcast');
    },
    async getTransaction(txid) {
      const state = await inner.getTransaction(txid);
      if (state.state === 'confirmed') plan.hit('after confirmation');
      return state;
    },
  };
}

/** The task repository with a hook after every successful write (persisted, but the worker dies before going on). */
export function faultyTasks(inner: CollectionTaskRepository, plan: FaultPlan): CollectionTaskRepository {
  return {
    get: (no) => inner.get(no),
    findLatestByAddress: (a) => inner.findLatestByAddress(a),
    listByUser: (userId, filter, page) => inner.listByUser(userId, filter, page),
    claimDue: (now, owner, leaseMs) => inner.claimDue(now, owner, leaseMs),
    claimSeveralDue: (now, owner, leaseMs, limit) => inner.claimSeveralDue(now, owner, leaseMs, limit),
    claimReclaimDue: (now, owner, leaseMs) => inner.claimReclaimDue(now, owner, leaseMs),
    countByStatus: () => inner.countByStatus(),
    listFinishedSince: (status, since, limit) => inner.listFinishedSince(status, since, limit),
    async update(task) {
      await inner.update(task);
      plan.hit('after task write');
    },
  };
}

/** The command repository with a hook after every successful write. */
export function faultyCommands(inner: CommandRepository, plan: FaultPlan): CommandRepository {
  return {
    insert: (c, o) => inner.insert(c, o),
    get: (no) => inner.get(no),
    findActiveByAddress: (a) => inner.findActiveByAddress(a),
    listByUser: (u, f, p) => inner.listByUser(u, f, p),
    claimDue: (t, now, owner, leaseMs) => inner.claimDue(t, now, owner, leaseMs),
    listFinishedSince: (type, status, since, limit) => inner.listFinishedSince(type, status, since, limit),
    async update(command) {
      await inner.update(command);
      plan.hit('after command write');
    },
  };
}

/** The unit of work with a hook before and after the commit. */
export function faultyUnitOfWork(inner: UnitOfWork, plan: FaultPlan): UnitOfWork {
  return {
    async commit(changes) {
      plan.hit('before commit');
      await inner.commit(changes);
      plan.hit('after commit');
    },
    atomically: (work) => inner.atomically(work),
  };
}
