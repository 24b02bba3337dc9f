/**
 * Subjects of the chain-gateway and energy-provider contracts on a fresh in-process devnet (manual blocks, virtual
 * clock), driven through real tronweb over HTTP on a free port. The faucet, mining, time travel and node faults
 * are the devnet's own controls.
 */
import type { Signer } from '../../core/ports/chain-gateway.port.js';
import { CachingChainGateway } from '../../adapters/tron/caching-chain-gateway.js';
import { createDevnetChainGateway } from '../../adapters/tron/devnet-chain-gateway.js';
import type { EnergyProvider } from '../../core/ports/energy-provider.port.js';
import type { RentalEnergySource } from '../../adapters/tron/rental-http.js';
import { ItrxEnergyProvider, type ItrxEnergyProviderOptions } from '../../adapters/tron/rental-itrx-energy-provider.js';
import { RentalMarketEnergyProvider } from '../../adapters/tron/rental-market.js';
import { TronSaveEnergyProvider, type TronSaveEnergyProviderOptions } from '../../adapters/tron/rental-tronsave-energy-provider.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/self-delegation-energy-provider.js';
import type { TronWebChainGateway } from '../../adapters/tron/tronweb-chain-gateway.js';
import {
  DEVNET_ITRX_API_KEY, DEVNET_ITRX_API_SECRET, DEVNET_TRONSAVE_API_KEY, startDevnet, type Devnet, type Faults,
} from '../../adapters/tron-devnet/index.js';
import type { ChainGatewaySubject } from '../chain-gateway.contract.js';
import type { EnergyProviderSubject } from '../energy-provider.contract.js';
import type { RentalProviderSubject } from '../rental-provider.contract.js';

const TRX = 1_000_000n;

/** The capabilities the devnet offers the chain-gateway contract. */
export const DEVNET_CHAIN_CAPABILITIES = {
  virtualTime: true, faults: true, exactFees: true, pendingVisible: true, voting: true, hostile: true,
} as const;

/** How a devnet subject is started. */
export interface DevnetChainSubjectOptions {
  /** Configure the gateway with a pro-tier data key. */
  readonly proTier?: boolean;
  /** Serve /walletsolidity only on its own port (like a self-hosted java-tron); the gateway gets that port as solidityHost. */
  readonly splitEndpoints?: boolean;
  readonly seed?: string;
  /**
   * The gateway behind a CachingChainGateway (one read a block) whose tip is the devnet's head. The devnet also
   * changes state outside blocks (its faucet, faults, parameters), which a chain never does: each such change counts
   * as a newer block for the cache, as a scanner would report the block that carried it.
   */
  readonly perBlock?: boolean;
}

/** A chain-gateway subject on a new devnet. */
export async function devnetChainSubject(options: DevnetChainSubjectOptions = {}): Promise<ChainGatewaySubject & { devnet: Devnet }> {
  const devnet = await startDevnet({
    port: 0, blockMs: 0, seed: options.seed ?? 'tron-adapter-tests',
    ...(options.splitEndpoints ? { solidityPort: 0, fullServesSolidity: false } : {}),
  });
  const script = (): Faults['script'] => devnet.faults().script;
  // createDevnetChainGateway passes devnet.solidityUrl as solidityHost (the split port when there is one).
  const plain = createDevnetChainGateway(devnet, options.proTier ? { proTierKey: 'devnet-pro-key' } : {});
  let changes = 0;
  const gateway = options.perBlock !== true ? plain
    : new CachingChainGateway(plain, {
      blockMs: 3_000, now: Date.now, tip: () => devnet.info().head_number * 1_000_000 + changes,
      // The chain's time, as the worker's scanner gives it: the decorator marks maintenance periods here too.
      chainTime: () => devnet.info().virtual_time,
    });
  const subject: ChainGatewaySubject & { devnet: Devnet } = {
    devnet,
    gateway,
    usdtContract: devnet.usdtAddress,
    solidifyLag: devnet.chain.params.solidifyLag,
    witnesses: devnet.info().witnesses,
    faucet: {
      fundTrx: async (address, sun) => devnet.fund(address, sun),
      fundToken: async (address, amount) => devnet.fundToken(address, amount),
      mine: async (blocks) => void devnet.mine(blocks),
      advance: async (ms) => void devnet.advance(ms),
      setNodeDown: async (down) => void devnet.setFaults({ node_down: down }),
      rejectBroadcasts: async (code) => void devnet.setFaults({ reject_broadcast: code ?? '' }),
      dropNextBroadcasts: async (count) => void devnet.setFaults({ drop_next_transactions: count }),
      stallSolidification: async (stalled) => void devnet.setFaults({ stall_solidification: stalled }),
      failNodeCalls: async (endpoint, fault, opts = {}) => void devnet.setFaults({
        script: [...script(), {
          path: endpoint, kind: fault, times: opts.times ?? 1,
          ...(opts.retryAfterSeconds === undefined ? {} : { retry_after_s: opts.retryAfterSeconds }),
          // Longer than the gateway's timeout (5 s), so the gateway gives up first, as it would on a hung node.
          ...(fault === 'timeout' ? { hold_ms: 30_000 } : {}),
        }],
      }),
      limitRate: async (quota) => void devnet.setFaults({
        rate_limit: quota === null ? null : { budget: quota.budget, window_ms: quota.windowMs, status: quota.status },
      }),
      jitterSolidification: async (blocks) => void devnet.setFaults({ solidify_jitter: blocks }),
      driftEnergyWeight: async (bps) => void devnet.setFaults({ energy_weight_drift_bps: bps }),
      // The factor moves at a maintenance, as on the chain: set, then the chain goes to the next one.
      setTokenEnergyFactor: async (factor) => {
        devnet.setParams({ usdtEnergyFactor: factor });
        devnet.toMaintenance();
      },
      blacklistToken: async (address, blacklisted) => devnet.setUsdtBlacklisted(address, blacklisted),
      pauseToken: async (paused) => devnet.setUsdtPaused(paused),
    },
    close: () => devnet.close(),
  };
  if (options.perBlock === true) {
    const faucet = subject.faucet as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const [name, op] of Object.entries(faucet)) {
      faucet[name] = async (...args: unknown[]) => {
        try {
          return await op(...args);
        } finally {
          changes += 1;
        }
      };
    }
  }
  return subject;
}

/** A main address on `devnet` holding `stakeTrx` staked for energy (and 1,000 TRX liquid). */
export async function stakedMain(devnet: Devnet, gateway: TronWebChainGateway, stakeTrx: bigint): Promise<Signer> {
  const { address, privateKey } = await gateway.createAccount();
  devnet.fund(address, (stakeTrx + 1_000n) * TRX);
  const main: Signer = { address, privateKey: async () => privateKey };
  const tx = await gateway.prepare(main, { kind: 'freeze', resource: 'ENERGY', amountSun: stakeTrx * TRX });
  await gateway.broadcast(tx);
  devnet.mine(1);
  return main;
}

/** The rental providers the devnet simulates. */
export type DevnetRentalKind = 'tronsave' | 'itrx';

/** How {@link devnetRentalProvider} configures the adapter. */
export interface DevnetRentalOptions {
  readonly maxPriceSun?: bigint;
  /** TronSave only: accept part of the energy now and the rest later. */
  readonly allowPartialFill?: boolean;
  readonly minimumEnergy?: number;
  /** Credentials the simulation refuses: an unknown key, or (itrx) the right key with a wrong secret. */
  readonly credentials?: 'devnet' | 'wrong-key' | 'wrong-secret';
}

/**
 * A rental adapter talking to the devnet's simulation of that provider with the devnet's development credentials;
 * itrx signs with the devnet's virtual clock (its TIMESTAMP must agree with the chain's time when a window is set).
 */
export function devnetRentalProvider(devnet: Devnet, kind: DevnetRentalKind, options: DevnetRentalOptions = {}): RentalEnergySource {
  const common = {
    baseUrl: devnet.url, timeoutMs: 5_000,
    ...(options.maxPriceSun === undefined ? {} : { maxPriceSun: options.maxPriceSun }),
    ...(options.minimumEnergy === undefined ? {} : { minimumEnergy: options.minimumEnergy }),
  };
  if (kind === 'tronsave') {
    const tronsave: TronSaveEnergyProviderOptions = {
      ...common, apiKey: options.credentials === 'wrong-key' ? 'not-a-tronsave-key' : DEVNET_TRONSAVE_API_KEY,
      ...(options.allowPartialFill === undefined ? {} : { allowPartialFill: options.allowPartialFill }),
    };
    return new TronSaveEnergyProvider(tronsave);
  }
  const itrx: ItrxEnergyProviderOptions = {
    ...common, clock: { now: () => devnet.chain.now },
    apiKey: options.credentials === 'wrong-key' ? 'NOT0AN0ITRX0KEY' : DEVNET_ITRX_API_KEY,
    apiSecret: options.credentials === 'wrong-secret' ? 'not-the-secret' : DEVNET_ITRX_API_SECRET,
  };
  return new ItrxEnergyProvider(itrx);
}

/** The market over both simulated providers (TronSave first on equal prices). */
export function devnetRentalMarket(devnet: Devnet, options: { readonly maxPriceSun?: bigint } = {}): RentalMarketEnergyProvider {
  return new RentalMarketEnergyProvider([devnetRentalProvider(devnet, 'tronsave'), devnetRentalProvider(devnet, 'itrx')], options);
}

/** A new activated receiver: a fresh account with 1 TRX. */
async function activatedReceiver(devnet: Devnet, chain: TronWebChainGateway): Promise<string> {
  const { address } = await chain.createAccount();
  devnet.fund(address, TRX);
  return address;
}

/**
 * An energy-provider subject on a new devnet: `self` delegates from a main address with 20,000 TRX staked for
 * energy (≈ 200,000 energy); `tronsave` and `itrx` rent from the devnet's simulation of that provider; `market`
 * from the cheaper of the two.
 */
export async function devnetEnergySubject(
  kind: 'self' | DevnetRentalKind | 'market',
  rental: DevnetRentalOptions = {},
): Promise<EnergyProviderSubject & { devnet: Devnet }> {
  const devnet = await startDevnet({ port: 0, blockMs: 0, seed: `energy-${kind}` });
  const chain = createDevnetChainGateway(devnet);
  const main = await stakedMain(devnet, chain, 20_000n);
  const provider: EnergyProvider = kind === 'self' ? new SelfDelegationEnergyProvider(chain)
    : kind === 'market' ? devnetRentalMarket(devnet, rental) : devnetRentalProvider(devnet, kind, rental);
  return {
    devnet,
    provider,
    chain,
    main,
    newReceiver: () => activatedReceiver(devnet, chain),
    mine: async (blocks) => void devnet.mine(blocks),
    advance: async (ms) => void devnet.advance(ms),
    growEnergyWeight: (bps) => growEnergyWeight(devnet, chain, bps),
    close: () => devnet.close(),
  };
}

/** A rental-provider subject on a new devnet: the adapter of `kind` against the devnet's simulation of it. */
export async function devnetRentalSubject(kind: DevnetRentalKind): Promise<RentalProviderSubject & { devnet: Devnet }> {
  const devnet = await startDevnet({ port: 0, blockMs: 0, seed: `rental-${kind}` });
  const chain = createDevnetChainGateway(devnet);
  const minimumEnergy = kind === 'tronsave' ? devnet.tronsave.settings().minimumAmount : devnet.itrx.settings().minimumEnergy;
  const balance = kind === 'tronsave' ? () => devnet.tronsave.balanceOf(DEVNET_TRONSAVE_API_KEY)! : () => devnet.itrx.balanceOf(DEVNET_ITRX_API_KEY)!;
  return {
    devnet,
    provider: devnetRentalProvider(devnet, kind),
    fresh: () => devnetRentalProvider(devnet, kind),
    badCredentials: () => [
      { provider: devnetRentalProvider(devnet, kind, { credentials: 'wrong-key' }), refusedOn: 'every call' as const },
      ...(kind === 'itrx' ? [{ provider: devnetRentalProvider(devnet, kind, { credentials: 'wrong-secret' }), refusedOn: 'orders' as const }] : []),
    ],
    unrounded: () => devnetRentalProvider(devnet, kind, { minimumEnergy: 1 }),
    minimumEnergy,
    chain,
    newReceiver: () => activatedReceiver(devnet, chain),
    newInactiveReceiver: async () => (await chain.createAccount()).address,
    mine: async (blocks) => void devnet.mine(blocks),
    balance: async () => balance(),
    partial: {
      provider: devnetRentalProvider(devnet, kind, { allowPartialFill: true }),
      limitSupply: async (energy) => {
        const supply = energy ?? 100_000_000;
        if (kind === 'tronsave') devnet.tronsave.configure({ supply });
        else devnet.itrx.configure({ available: supply });
      },
    },
    setDeliveryDelay: async (ms) => {
      if (kind === 'tronsave') devnet.tronsave.configure({ deliveryDelayMs: ms });
      else devnet.itrx.configure({ deliveryDelayMs: ms });
    },
    close: () => devnet.close(),
  };
}

/**
 * Raises the network's TotalEnergyWeight by `bps` basis points the way the network does: a newcomer stakes that
 * much TRX for energy (its own transaction, mined in the next block).
 */
export async function growEnergyWeight(devnet: Devnet, chain: TronWebChainGateway, bps: number): Promise<void> {
  const weightTrx = devnet.chain.params.totalEnergyLimit / ((await chain.energyPerStakedSun()) * 1_000_000);
  const stakeTrx = BigInt(Math.ceil((weightTrx * bps) / 10_000));
  const { address, privateKey } = await chain.createAccount();
  devnet.fund(address, (stakeTrx + 10n) * TRX);
  const tx = await chain.prepare({ address, privateKey: async () => privateKey }, { kind: 'freeze', resource: 'ENERGY', amountSun: stakeTrx * TRX });
  await chain.broadcast(tx);
  devnet.mine(1);
}
