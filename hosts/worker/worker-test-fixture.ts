/**
 * A worker world for tests and the bench: memory stores on a ManualClock, the real AES-GCM cipher, the real TRON
 * gateway (tronweb) against an in-process devnet in manual-block mode, a main address staked for energy and
 * helpers to add funded sub-addresses and queue collections and withdrawals through the real use cases.
 */
import { randomBytes } from 'node:crypto';
import { resolveDeps, type CoreDeps, type ResolvedDeps } from '../../core/application/deps.js';
import { startCollection } from '../../core/application/collection-starter.js';
import { submitFundCommand } from '../../core/application/fund-commands.js';
import { createAssetRegistry, type AssetRegistry } from '../../core/domain/assets.js';
import { ADDRESS_STATUS, ADDRESS_TYPE, type WalletAddress } from '../../core/domain/model/wallet.js';
import { COMMAND_TYPE, type Command } from '../../core/domain/model/command.js';
import type { CollectionTask } from '../../core/domain/model/collection-task.js';
import type { ChainGateway, Signer } from '../../core/ports/chain-gateway.port.js';
import { createMemoryAdapters, ManualClock, MemoryAddressLock, RecordingMailer, type MemoryAdapters } from '../../adapters/memory/index.js';
import { AesGcmKeyCipher, NodeSecretHasher, OtpauthTotpGenerator, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { createDevnetChainGateway, type TronWebChainGateway } from '../../adapters/tron/index.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';

export const TRX = 1_000_000n;

/** Everything a worker test drives or inspects. */
export interface WorkerWorld {
  readonly devnet: Devnet;
  /** The real gateway on the devnet (tests may wrap it before handing it to an executor). */
  readonly gateway: TronWebChainGateway;
  readonly clock: ManualClock;
  readonly stores: MemoryAdapters;
  readonly cipher: AesGcmKeyCipher;
  readonly assets: AssetRegistry;
  readonly core: ResolvedDeps;
  readonly userId: number;
  readonly main: Signer;
  /** A new managed sub-address of the user (inserted with its encrypted key); nothing on chain yet. */
  addSub(): Promise<string>;
  /** Queues a collection through the real use case (command + PENDING task in one unit of work). */
  collect(sub: string, symbol: 'USDT' | 'TRX'): Promise<CollectionTask>;
  /** Queues a staking command (STAKE or UNSTAKE of `amountSun` for the resource) as the staking use case does. */
  stake(address: string, type: 'STAKE' | 'UNSTAKE', resource: 'ENERGY' | 'BANDWIDTH', amountSun: bigint): Promise<Command>;
  /** Queues a WITHDRAWAL command through the real use case. */
  withdraw(from: string, to: string, symbol: 'USDT' | 'TRX', amount: bigint): Promise<Command>;
  close(): Promise<void>;
}

/** Options: the main address's energy stake and liquid TRX, and the devnet seed. */
export interface WorkerWorldOptions {
  /** false: the main address is never funded, so it does not exist on chain until something is sent to it. */
  readonly fundMain?: boolean;
  readonly stakeTrx?: bigint;
  readonly liquidTrx?: bigint;
  readonly seed?: string;
  readonly solidifyLag?: number;
  /** Serve /walletsolidity/* on its own port only, as a self-hosted java-tron does (the gateway gets both URLs). */
  readonly splitEndpoints?: boolean;
  /** More node endpoints over the same chain, each with its own faults (`devnet.nodes`). */
  readonly extraNodes?: number;
  /**
   * The chain's maintenance interval (getMaintenanceTimeInterval; 6 h on mainnet and by default): a test that changes
   * the energy factor or a price does it at a maintenance (devnet.toMaintenance), which a short one keeps near.
   */
  readonly maintenanceIntervalMs?: number;
}

/** Builds a world on a fresh devnet; `chain` lets a test give the use cases a wrapped gateway. */
export async function buildWorkerWorld(options: WorkerWorldOptions = {}): Promise<WorkerWorld> {
  const devnet = await startDevnet({
    port: 0, blockMs: 0, seed: options.seed ?? 'worker-tests',
    ...(options.solidifyLag === undefined ? {} : { solidifyLag: options.solidifyLag }),
    ...(options.splitEndpoints === true ? { solidityPort: 0, fullServesSolidity: false } : {}),
    ...(options.extraNodes === undefined ? {} : { extraNodes: options.extraNodes }),
    ...(options.maintenanceIntervalMs === undefined ? {} : { params: { maintenanceTimeInterval: options.maintenanceIntervalMs } }),
  });
  const gateway = createDevnetChainGateway(devnet);
  const clock = new ManualClock();
  const stores = createMemoryAdapters({ clock });
  const cipher = AesGcmKeyCipher.fromConfig(randomBytes(32).toString('base64'));
  const assets = createAssetRegistry({ usdtContract: devnet.usdtAddress });
  const deps: CoreDeps = {
    clock, ids: stores.ids, hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), cipher, mailer: new RecordingMailer(),
    totp: new OtpauthTotpGenerator(), dns: { resolve: async () => [] },
    transport: { post: async () => ({ ok: false, status: null, error: 'no webhooks in worker tests', durationMs: 0 }) },
    risk: stores.risk, addressLock: new MemoryAddressLock({ clock }), chain: gateway, assets,
    accounts: stores.accounts, sessions: stores.sessions, subscriptions: stores.subscriptions, apiTokens: stores.apiTokens,
    wallets: stores.wallets, balances: stores.balances, deposits: stores.deposits, commands: stores.commands, tasks: stores.tasks,
    cashierTokens: stores.cashierTokens, developerConfigs: stores.developerConfigs, deliveries: stores.deliveries,
    outbox: stores.outbox, uow: stores.uow, auditLog: stores.auditLog, withdrawalPolicies: stores.withdrawalPolicies, ledger: stores.ledger,
  };
  const core = resolveDeps(deps);
  const userId = 1;
  const insert = async (type: 1 | 2): Promise<{ address: string; privateKey: string }> => {
    const account = await gateway.createAccount();
    const wallet: WalletAddress = {
      id: await stores.ids.nextInt('wallet_address'), userId, networkCode: 'TRON', address: account.address, addressType: type,
      label: null, status: ADDRESS_STATUS.ACTIVE, createdAt: clock.now(), version: 1,
      encryptedKey: await cipher.encrypt(new TextEncoder().encode(account.privateKey), account.address),
    };
    await stores.wallets.insert(wallet, { maxSubAddresses: -1 });
    return account;
  };
  const mainAccount = await insert(ADDRESS_TYPE.MAIN);
  const main: Signer = { address: mainAccount.address, privateKey: async () => mainAccount.privateKey };
  const stake = options.stakeTrx ?? 20_000n;
  if (options.fundMain !== false) devnet.fund(main.address, (stake + (options.liquidTrx ?? 1_000n)) * TRX);
  if (stake > 0n) {
    await gateway.broadcast(await gateway.prepare(main, { kind: 'freeze', resource: 'ENERGY', amountSun: stake * TRX }));
    devnet.mine(1);
  }
  const walletOf = async (address: string): Promise<WalletAddress> => (await stores.wallets.findByAddress(address))!;
  return {
    devnet, gateway, clock, stores, cipher, assets, core, userId, main,
    addSub: async () => (await insert(ADDRESS_TYPE.SUB)).address,
    collect: async (sub, symbol) => startCollection(core, await walletOf(sub), assets.find('TRON', symbol)!),
    withdraw: async (from, to, symbol, amount) => submitFundCommand(
      core,
      { userId, operation: 'withdrawal', address: from, toAddress: to, assetSymbol: symbol, amount },
      { userId, type: COMMAND_TYPE.WITHDRAWAL, address: from, assetSymbol: symbol, lockedAmount: amount, params: { to_address: to, amount: amount.toString(10) } },
    ),
    stake: async (address, type, resource, amountSun) => submitFundCommand(
      core,
      { userId, operation: 'stake', address, assetSymbol: 'TRX', ...(type === 'STAKE' ? { amount: amountSun } : {}) },
      {
        userId, type: COMMAND_TYPE[type], address, assetSymbol: 'TRX', lockedAmount: type === 'STAKE' ? amountSun : 0n,
        params: { resource, amount: amountSun.toString(10) },
      },
    ),
    close: () => devnet.close(),
  };
}

/** The gateway type the executors take, for wrappers. */
export type { ChainGateway };
