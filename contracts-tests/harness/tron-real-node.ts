/**
 * A chain-gateway subject on a real TRON node (e.g. Nile), configured from the environment. The "faucet" is a
 * funded test key: funding is a real transfer from it, mining is waiting for real blocks, and there is no time
 * travel and no fault injection (those tests are skipped through capabilities). Nothing here runs unless
 * TRON_FULL_HOST and TRON_TEST_PRIVATE_KEY are set.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { TronWeb } from 'tronweb';
import type { ChainGateway, Signer, TransactionIntent } from '../../core/ports/chain-gateway.port.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/self-delegation-energy-provider.js';
import { TronWebChainGateway } from '../../adapters/tron/tronweb-chain-gateway.js';
import type { ChainGatewayContractOptions, ChainGatewaySubject } from '../chain-gateway.contract.js';
import type { EnergyProviderSubject } from '../energy-provider.contract.js';

/** USDT on the Nile testnet (the TRC20 its faucet hands out). */
export const NILE_USDT = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';

/** Where and with what the real-node run works. */
export interface RealNodeConfig {
  readonly fullHost: string;
  readonly solidityHost?: string;
  readonly apiKey?: string;
  /** A key of the data provider's pro tier; without it the delegation-list test is skipped. */
  readonly proTierKey?: string;
  /** Hex private key of an account holding test TRX (and USDT of `usdtContract`). */
  readonly funderKey: string;
  readonly usdtContract: string;
  /** Blocks until solidified (default 19, mainnet's and Nile's). */
  readonly solidifyLag: number;
}

/** The configuration from TRON_* variables, or why the real-node run cannot happen. */
export function realNodeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): RealNodeConfig | { readonly skip: string } {
  const fullHost = env['TRON_FULL_HOST'];
  const funderKey = env['TRON_TEST_PRIVATE_KEY'];
  if (!fullHost || !funderKey) return { skip: 'no real node configured' };
  const usdtContract = env['TRON_USDT_CONTRACT'] ?? (/nile/i.test(fullHost) ? NILE_USDT : undefined);
  if (!usdtContract) return { skip: `no USDT contract known for ${fullHost} (set TRON_USDT_CONTRACT)` };
  return {
    fullHost,
    solidityHost: env['TRON_SOLIDITY_HOST'] || undefined,
    apiKey: env['TRON_API_KEY'] || undefined,
    proTierKey: env['TRON_PRO_TIER_KEY'] || undefined,
    funderKey: funderKey.replace(/^0x/, ''),
    usdtContract,
    solidifyLag: Number(env['TRON_SOLIDIFY_LAG'] ?? 19),
  };
}

/** What a real node can be asked to prove: no virtual time, no faults (hostile or not), no exact mainnet numbers, no voting. */
export function realNodeCapabilities(config: RealNodeConfig): NonNullable<ChainGatewayContractOptions['capabilities']> {
  return {
    virtualTime: false, faults: false, hostile: false, exactFees: false, pendingVisible: false, voting: false,
    proTier: config.proTierKey !== undefined,
  };
}

const POLL_MS = 1_000;

/** Polls `check` once a second until it holds; real blocks come every ~3 s, so this waits for the chain, not a guess. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`real node: timed out waiting for ${what}`);
    await delay(POLL_MS);
  }
}

async function send(g: ChainGateway, signer: Signer, intent: TransactionIntent, what: string): Promise<void> {
  const tx = await g.prepare(signer, intent);
  await g.broadcast(tx);
  await until(`${what} (${tx.txid}) to be included`, async () => (await g.getTransaction(tx.txid)).state === 'confirmed');
}

/** A gateway on the configured node. */
export function realNodeGateway(config: RealNodeConfig, proTier = false): TronWebChainGateway {
  return new TronWebChainGateway({
    fullHost: config.fullHost,
    solidityHost: config.solidityHost,
    apiKey: config.apiKey,
    proTierKey: proTier ? config.proTierKey : undefined,
    usdtContract: config.usdtContract,
    timeoutMs: 20_000,
  });
}

/** The funded test key as a signer. */
export function funderSigner(config: RealNodeConfig): Signer {
  const address = TronWeb.address.fromPrivateKey(config.funderKey);
  if (!address) throw new Error('TRON_TEST_PRIVATE_KEY is not a valid private key');
  return { address, privateKey: async () => config.funderKey };
}

/** A subject on the configured node; every test gets new addresses, funded from the test key. */
export function realNodeChainSubject(config: RealNodeConfig, proTier: boolean): ChainGatewaySubject {
  const gateway = realNodeGateway(config, proTier);
  const funder = funderSigner(config);
  return {
    gateway,
    usdtContract: config.usdtContract,
    solidifyLag: config.solidifyLag,
    faucet: {
      fundTrx: async (address, sun) => {
        const before = await gateway.getTrxBalance(address);
        await send(gateway, funder, { kind: 'transfer-trx', to: address, amountSun: sun }, 'TRX funding');
        await until('funded TRX to be visible', async () => (await gateway.getTrxBalance(address)) >= before + sun);
      },
      fundToken: async (address, amount) => {
        const before = await gateway.getTokenBalance(address, config.usdtContract);
        await send(gateway, funder, { kind: 'transfer-trc20', contract: config.usdtContract, to: address, amount, feeLimitSun: 50_000_000n },
          'USDT funding');
        await until('funded USDT to be visible', async () => (await gateway.getTokenBalance(address, config.usdtContract)) >= before + amount);
      },
      mine: async (blocks) => {
        const start = (await gateway.head()).number;
        await until(`${blocks} more blocks`, async () => (await gateway.head()).number >= start + blocks, 10_000 + blocks * 6_000);
      },
    },
  };
}

/** TRX and USDT (base units) one run of the chain-gateway contract spends from the test key, with headroom. */
export const REAL_NODE_BUDGET = { trxSun: 800_000_000n, usdt: 12_000_000n } as const;

/** Why the test key cannot pay for a chain-gateway run (null when it can), checked before any test starts. */
export async function realNodeChainShortfall(config: RealNodeConfig): Promise<string | null> {
  try {
    const g = realNodeGateway(config);
    const funder = funderSigner(config).address;
    const [trx, usdt] = await Promise.all([g.getTrxBalance(funder), g.getTokenBalance(funder, config.usdtContract)]);
    if (trx < REAL_NODE_BUDGET.trxSun) return `the test key ${funder} holds ${trx} SUN, a run needs ${REAL_NODE_BUDGET.trxSun}`;
    if (usdt < REAL_NODE_BUDGET.usdt) return `the test key ${funder} holds ${usdt} of ${config.usdtContract}, a run needs ${REAL_NODE_BUDGET.usdt}`;
    return null;
  } catch (e) {
    return `the node could not be asked: ${(e as Error).message}`;
  }
}

/**
 * Whether the test key can back the self-delegation energy suite: it must be able to delegate twice the stake
 * `energy` needs (it is the main address; every delegation is taken back when a test ends). A reason when not.
 */
export async function realNodeEnergyShortfall(config: RealNodeConfig, energy: number): Promise<string | null> {
  try {
    const g = realNodeGateway(config);
    // What the provider itself would delegate (its margin included), twice over.
    const need = 2n * (await new SelfDelegationEnergyProvider(g).sunFor(energy));
    const can = await g.getCanDelegateEnergySun(funderSigner(config).address);
    return can >= need ? null : `the test key can delegate ${can} SUN of energy stake, ${need} needed (stake TRX for ENERGY)`;
  } catch (e) {
    return `the node could not be asked: ${(e as Error).message}`;
  }
}

/**
 * A self-delegation subject on the configured node with the test key as the main address. Receivers are new
 * addresses activated with 1 TRX; close() takes back whatever is still delegated to them, so the key's stake
 * is not left stranded on throwaway addresses.
 */
export function realNodeEnergySubject(config: RealNodeConfig): EnergyProviderSubject {
  const base = realNodeChainSubject(config, false);
  const chain = base.gateway;
  const main = funderSigner(config);
  const receivers: string[] = [];
  return {
    provider: new SelfDelegationEnergyProvider(chain),
    chain,
    main,
    newReceiver: async () => {
      const { address } = await chain.createAccount();
      await base.faucet.fundTrx(address, 1_000_000n);
      receivers.push(address);
      return address;
    },
    mine: base.faucet.mine,
    close: async () => {
      for (const receiver of receivers) {
        const stuck = (await chain.getResources(receiver)).energy.receivedSun;
        if (stuck > 0n) await send(chain, main, { kind: 'undelegate', resource: 'ENERGY', receiver, amountSun: stuck }, 'undelegation');
      }
    },
  };
}
