/**
 * The ChainGateway port on a TRON FullNode through tronweb 6: reads over the node's HTTP API, transactions built
 * and signed locally against the solidified block (write-ahead: the txid is known before anything is sent),
 * broadcasts whose refusals are decoded into CHAIN-BROADCAST-FAILED. No tronweb, axios or java-tron error crosses
 * the port: every failure about the node is a ChainError (see tron-errors.ts for what is transient).
 */
import { randomInt } from 'node:crypto';
import { TronWeb, utils } from 'tronweb';
import { ChainError, DomainError } from '../../core/domain/errors.js';
import type { ChainResources, SignedTransaction, TransactionState } from '../../core/domain/model/chain.js';
import type { ChainGateway, Signer, TransactionIntent, TrxHoldings } from '../../core/ports/chain-gateway.port.js';
import { guarded, invalidArgument, NodeRefusal, decodeNodeMessage, toPortError } from './tron-errors.js';
import { buildIntent, hexAddress, type BlockHeaderRef } from './tron-intents.js';
import { TronNodeClient, type BlockRef } from './tron-node-client.js';
import { addressOfPrivateKey, signTransaction, transactionConsistent } from './tron-signing.js';
import {
  accountOnlyResources, canDelegateEnergyOf, energyAvailableOf, energyPerSun, FREE_BANDWIDTH_PER_DAY, readDryRun, toChainResources, toTransactionState, type AccountJson,
  type AccountResourceJson, type DryRunJson,
  type TransactionInfoJson,
} from './tron-views.js';

/** getResources' reads with what the same replies also answer (see TronWebChainGateway.resourcesWithRatio). */
export interface ResourcesAnswer {
  readonly resources: ChainResources;
  readonly energyPerStakedSun: number | null;
  readonly canDelegateEnergySun: bigint | null;
}

/** Options of {@link TronWebChainGateway}. */
export interface TronWebChainGatewayOptions {
  /** FullNode base URL (e.g. https://api.trongrid.io, or a devnet's url). */
  readonly fullHost: string;
  /**
   * Solidity node base URL when it is not the full host: a self-hosted java-tron serves /walletsolidity only on its
   * own port (8091), so without this option the solidified reads (reference block, `solidified` flag) fail there.
   */
  readonly solidityHost?: string;
  /** Sent as TRON-PRO-API-KEY on every node request. */
  readonly apiKey?: string;
  /**
   * A pro-tier key of the chain data provider. Only with it does getResources fill `delegatedTo` and
   * `receivedFrom` (spec §2); without it both lists are empty and the index is never queried.
   */
  readonly proTierKey?: string;
  /** Where the pro-tier key is sent (`getdelegatedresourceaccountindexv2`); default: the full host. */
  readonly proTierHost?: string;
  /**
   * The block a built transaction references for TaPoS. `'solidified'` (the default, like java-tron's own builder
   * with `trx.reference.block = solid`): a block every honest node has and none can roll back, so a node that is a
   * few blocks behind, or briefly on another fork, never answers TAPOS_ERROR. `{ headMinus: n }` references the
   * block n below the head instead, for nodes without a solidity endpoint (n = 0 is the head itself, which fails on
   * a node that has not seen it yet). The expiration is counted from the head's time either way.
   */
  readonly referenceBlock?: ReferenceBlock;
  /** The USDT (TRC20) contract; also the always-existing account used to read network-wide energy totals. */
  readonly usdtContract: string;
  /**
   * Ceiling for the fee limit of any TRC20 transfer (default 100 TRX). A USDT transfer to a new holder burns at
   * most 130,285 energy × 100 SUN ≈ 13 TRX at the 2024 energy price; 100 TRX leaves room for a large price rise
   * while bounding what a wrong intent can burn.
   */
  readonly feeLimitSun?: bigint;
  /** HTTP timeout per node request (default 15 s); a timeout counts as the node being unreachable. */
  readonly timeoutMs?: number;
  /** Validity window of a built transaction past the head block's time (default 60 s, tronweb's; max 24 h). */
  readonly expirationMs?: number;
  /**
   * Further nodes, in order of preference, for when the ones before fail as nodes (unreachable, no reply, HTTP
   * 5xx/403/429): each request goes to the next, and a failed node is paused (TronNodeClient). The API key is sent to
   * each; the pro-tier endpoint has no fallback.
   */
  readonly fallbackNodes?: readonly { readonly fullHost: string; readonly solidityHost?: string }[];
  /** The clock of failed nodes' pauses, epoch ms (default Date.now; tests pass their ManualClock's). */
  readonly now?: () => number;
  /** Told each request a node failed as a node, with the node's origin: for metrics. */
  readonly onNodeFailure?: (node: string) => void;
  /** Told each request sent to a node, with its path (`wallet/getaccount` …): for metrics (issue #27). */
  readonly onCall?: (path: string) => void;
  /** Per-block heads: see TronNodeClientOptions.blockCacheMs (default 0, off); per-block state reads are CachingChainGateway's. */
  readonly blockCacheMs?: number;
  /** The newest block known elsewhere in the process (the scanner's): see TronNodeClientOptions.tip. */
  readonly tip?: () => number | null;
  /** The head as the scanner last read it, while recent: see TronNodeClientOptions.recent. */
  readonly recent?: () => BlockRef | null;
  /**
   * How long a solidified block read for a build is referenced by the next builds (default 0: each build reads the
   * solidified head, once per blockCacheMs). Any solidified block is a valid TaPoS reference (final, so on every honest
   * node's chain, far inside the last 65,536 blocks); an older one only widens the window findInSolidified reads to
   * prove a lost transaction dead, by as many blocks. At most 30 s (10 TRON blocks: MAX_WINDOW_BLOCKS allows for it).
   */
  readonly referenceReuseMs?: number;
  /**
   * The newest solidified block another reader of the process read (the scanner's final-balance reads:
   * BlockReceipts.newestSolidified), and when, of `now`. Within referenceReuseMs a build references it as it would its
   * own earlier read: a solidified block is final on every honest node of the network, whichever node answered it.
   */
  readonly solidified?: () => { readonly number: number; readonly id: string; readonly at: number } | null;
}

/** Which block built transactions reference (see {@link TronWebChainGatewayOptions.referenceBlock}). */
export type ReferenceBlock = 'solidified' | { readonly headMinus: number };

/** Default ceiling of a TRC20 transfer's fee limit: 100 TRX. */
export const DEFAULT_FEE_LIMIT_SUN = 100_000_000n;
/** Energy of a USDT transfer to an address that already holds USDT (mainnet-observed). */
export const USDT_TRANSFER_ENERGY_TO_HOLDER = 64_285;
/** Energy of a USDT transfer to an address with a zero balance (a fresh storage slot). */
export const USDT_TRANSFER_ENERGY_TO_NEW_HOLDER = 130_285;

const MAX_EXPIRATION_MS = 86_400_000;
/** Blocks findInSolidified reads at most for one transaction: a reference up to ~29 blocks old (19 below the head, reused for 10 more: referenceReuseMs) plus 10 min of expiration. */
const MAX_WINDOW_BLOCKS = 240;
/**
 * Solidified blocks findInSolidified keeps (~20 KB each on mainnet, with their txids): enough for the windows of the
 * transactions proven dead around the same time, which overlap.
 */
const SOLID_BLOCK_CACHE = 512;
/** The longest referenceReuseMs: 10 TRON blocks. */
const MAX_REFERENCE_REUSE_MS = 30_000;
/**
 * How far below the head a solidified block the scanner read may be and still be referenced: TRON's solidified depth
 * (~19) and the reuse window (10 blocks), with a block to spare. Further (the scanner's node far behind), the build
 * reads its own.
 */
const MAX_ELSEWHERE_DEPTH = 30;
/** TaPoS accepts a reference among the last 65,536 blocks; stay well inside it. */
const MAX_HEAD_MARGIN = 60_000;
type Json = Record<string, unknown>;
type SolidBlock = NonNullable<Awaited<ReturnType<TronNodeClient['solidifiedByNumber']>>>;

const pad32 = (hex: string): string => hex.padStart(64, '0');
const abiAddress = (hex41: string): string => pad32(hex41.slice(2));

/** Signed JSON remembered as checked (about 1.5 KB each): a few blocks' worth of a busy worker's transactions. */
const SIGNED_HERE_MAX = 4_096;

/** TRON through tronweb. Construct freely: no request is made until a method is called. */
export class TronWebChainGateway implements ChainGateway {
  private readonly tw: TronWeb;
  private readonly node: TronNodeClient;
  private readonly usdtHex: string;
  private readonly maxFeeLimitSun: bigint;
  private readonly expirationMs: number;
  private readonly referenceBlock: ReferenceBlock;
  private lastTimestamp = 0;
  private readonly now: () => number;
  private readonly referenceReuseMs: number;
  private readonly solidifiedElsewhere: () => { readonly number: number; readonly id: string; readonly at: number } | null;
  /** The solidified block builds reference, and when it was read (see reference()). */
  private referenced: { readonly block: BlockRef; readonly at: number } | null = null;
  /**
   * Solidified blocks already read by findInSolidified, by number. They are final, so a proof that a failed read
   * interrupted resumes where it stopped instead of starting over: a window is ~20 blocks (~80 on a 1 s devnet),
   * and through a node that fails a few percent of requests a proof read from scratch each time may never complete.
   */
  private readonly solidBlocks = new Map<number, SolidBlock>();
  /**
   * The address each signer's key derives to, once derived (a Signer is one key: its privateKey answers the same key
   * each time): the main address signs three transactions of a sweep, and deriving costs a scalar multiplication.
   * Public data only, per Signer object; nothing of the key is kept.
   */
  private readonly keyAddresses = new WeakMap<Signer, string>();
  /**
   * Signed JSON this gateway made and checked (hashes to its txid) in prepare, bounded: broadcasting it again skips
   * re-encoding it. A record read back from the store is checked unless it is, character for character, one of these.
   */
  private readonly signedHere = new Set<string>();

  constructor(options: TronWebChainGatewayOptions) {
    this.node = new TronNodeClient({ ...options, timeoutMs: options.timeoutMs ?? 15_000 });
    this.tw = new TronWeb({ fullNode: this.node.full, solidityNode: this.node.solidity, eventServer: this.node.full });
    this.usdtHex = hexAddress(options.usdtContract, 'usdtContract');
    this.maxFeeLimitSun = options.feeLimitSun ?? DEFAULT_FEE_LIMIT_SUN;
    this.expirationMs = Math.min(Math.max(options.expirationMs ?? 60_000, 3_000), MAX_EXPIRATION_MS);
    const ref = options.referenceBlock ?? 'solidified';
    if (ref !== 'solidified' && !(Number.isSafeInteger(ref.headMinus) && ref.headMinus >= 0 && ref.headMinus <= MAX_HEAD_MARGIN)) {
      throw invalidArgument('referenceBlock.headMinus', `must be an integer between 0 and ${MAX_HEAD_MARGIN}`);
    }
    this.referenceBlock = ref;
    this.now = options.now ?? Date.now;
    this.referenceReuseMs = Math.min(Math.max(options.referenceReuseMs ?? 0, 0), MAX_REFERENCE_REUSE_MS);
    this.solidifiedElsewhere = options.solidified ?? (() => null);
  }

  /** A key pair made locally by tronweb (secp256k1 from the platform CSPRNG); nothing is sent to the node. */
  async createAccount(): Promise<{ readonly address: string; readonly privateKey: string }> {
    const account = utils.accounts.generateAccount();
    return { address: account.address.base58, privateKey: account.privateKey.toLowerCase() };
  }

  /** True only for the canonical base58check form (`T…`, 34 characters) the service stores and shows. */
  isAddress(address: string): boolean {
    return typeof address === 'string' && /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address) && TronWeb.isAddress(address);
  }

  /** Balance in SUN from the full node's head view (includes transactions not yet solidified). */
  async getTrxBalance(address: string): Promise<bigint> {
    const hex = hexAddress(address, 'address');
    const account = await this.node.call<AccountJson>('balance-read', 'getTrxBalance', 'full', 'wallet/getaccount', { address: hex });
    return BigInt(account.balance ?? 0);
  }

  /** getTrxBalance's one `wallet/getaccount`, its stake read too: frozenV2 and what is delegated out, and unfrozenV2. */
  async getTrxHoldings(address: string): Promise<TrxHoldings> {
    const hex = hexAddress(address, 'address');
    const account = await this.node.call<AccountJson>('balance-read', 'getTrxHoldings', 'full', 'wallet/getaccount', { address: hex });
    const sun = (value: number | undefined): bigint => BigInt(value ?? 0);
    const stakedSun = (account.frozenV2 ?? []).reduce((sum, f) => sum + sun(f.amount), 0n)
      + sun(account.account_resource?.delegated_frozenV2_balance_for_energy) + sun(account.delegated_frozenV2_balance_for_bandwidth);
    const unstakingSun = (account.unfrozenV2 ?? []).reduce((sum, u) => sum + sun(u.unfreeze_amount), 0n);
    return { liquidSun: sun(account.balance), stakedSun, unstakingSun };
  }

  async getTokenBalance(address: string, contract: string): Promise<bigint> {
    const holder = hexAddress(address, 'address');
    const token = hexAddress(contract, 'contract');
    const reply = await this.node.call<Json>('balance-read', 'getTokenBalance', 'full', 'wallet/triggerconstantcontract', {
      owner_address: holder,
      contract_address: token,
      function_selector: 'balanceOf(address)',
      parameter: abiAddress(holder),
    });
    return guarded('balance-read', 'getTokenBalance', async () => {
      const result = reply['result'] as { result?: boolean; message?: string; code?: string } | undefined;
      const out = (reply['constant_result'] as string[] | undefined)?.[0];
      if (result?.result !== true || out === undefined) {
        throw new NodeRefusal(decodeNodeMessage(result?.message) || 'balanceOf returned nothing', result?.code);
      }
      return out === '' ? 0n : BigInt('0x' + out.slice(0, 64));
    });
  }

  async getResources(address: string): Promise<ChainResources> {
    return (await this.resourcesWithRatio(address)).resources;
  }

  /**
   * getResources' reads, with the network's energy per staked SUN from the same `wallet/getaccountresource` reply
   * (TotalEnergyLimit / TotalEnergyWeight, in every account's; null when absent): what energyPerStakedSun reads from
   * the USDT contract's; and getCanDelegateEnergySun's answer where the same account read gives it exactly
   * (tron-views.ts canDelegateEnergyOf; null where only getcandelegatedmaxsize can say). Not a port method:
   * CachingChainGateway answers energyPerStakedSun and getCanDelegateEnergySun from it in the same block.
   */
  async resourcesWithRatio(address: string): Promise<ResourcesAnswer> {
    return this.resourcesReads(address, null);
  }

  /**
   * getResources from fewer reads where TRON allows (issue #39 item 5): the account is read first; one that holds no
   * stake and no delegation (a sub-address between sweeps, an unstaked main address) needs nothing more than the
   * chain's free bandwidth limit (getFreeNetLimit, which the caller has from chainParameters), so `finish` makes its
   * resources from that one read (tron-views.ts accountOnlyResources); any other goes on with getaccountresource (and
   * the delegation index), its account read reused. Not a port method: CachingChainGateway's getResources.
   */
  async accountResources(address: string): Promise<
    | { readonly kind: 'account-only'; readonly finish: (freeNetLimit: number) => ChainResources; readonly canDelegateEnergySun: bigint | null }
    | ({ readonly kind: 'full' } & ResourcesAnswer)
  > {
    const hex = hexAddress(address, 'address');
    const [account, head] = await Promise.all([
      this.node.call<AccountJson>('balance-read', 'getResources', 'full', 'wallet/getaccount', { address: hex }),
      this.node.head('balance-read'),
    ]);
    const probe = accountOnlyResources(account, FREE_BANDWIDTH_PER_DAY, head.timestamp);
    if (probe !== null) {
      return {
        kind: 'account-only', finish: (freeNetLimit) => accountOnlyResources(account, freeNetLimit, head.timestamp)!,
        canDelegateEnergySun: canDelegateEnergyOf(account),
      };
    }
    return { kind: 'full', ...(await this.resourcesReads(address, account)) };
  }

  /** getResources' reads (the account's unless given), with the energy ratio of its getaccountresource reply. */
  private async resourcesReads(address: string, known: AccountJson | null): Promise<ResourcesAnswer> {
    const hex = hexAddress(address, 'address');
    const [account, resource, head, index] = await Promise.all([
      known ?? this.node.call<AccountJson>('balance-read', 'getResources', 'full', 'wallet/getaccount', { address: hex }),
      this.node.call<AccountResourceJson>('balance-read', 'getResources', 'full', 'wallet/getaccountresource', { address: hex }),
      this.node.head('balance-read'),
      this.node.hasProTier
        ? this.node.call<{ fromAccounts?: string[]; toAccounts?: string[] }>('balance-read', 'getResources', 'pro',
            'wallet/getdelegatedresourceaccountindexv2', { value: hex })
        : Promise.resolve({ fromAccounts: [], toAccounts: [] }),
    ]);
    const base58 = (list: string[] | undefined): string[] => (list ?? []).map((a) => TronWeb.address.fromHex(a));
    const resources = toChainResources(account, resource, head.timestamp, {
      delegatedTo: base58(index.toAccounts),
      receivedFrom: base58(index.fromAccounts),
    });
    const ratio = energyPerSun(resource);
    return { resources, energyPerStakedSun: ratio > 0 && Number.isFinite(ratio) ? ratio : null, canDelegateEnergySun: canDelegateEnergyOf(account) };
  }

  /**
   * Never known here: this gateway does not keep the chain's time or schedule (CachingChainGateway does), so a dry
   * run it serves is reused only while energyFactor answers the same.
   */
  async maintenancePeriod(): Promise<number | null> {
    return null;
  }

  /** `wallet/getcontractinfo`'s contract_state.energy_factor (absent, as java-tron omits a zero: 0). */
  async energyFactor(contract: string): Promise<number> {
    const hex = hexAddress(contract, 'contract');
    const info = await this.node.call<{ contract_state?: { energy_factor?: number } }>('balance-read', 'energyFactor', 'full',
      'wallet/getcontractinfo', { value: hex });
    const factor = info.contract_state?.energy_factor ?? 0;
    return Number.isSafeInteger(factor) ? factor : 0;
  }

  /** getResources' energy.available from `wallet/getaccountresource` alone (the same request getResources makes). */
  async energyAvailable(address: string): Promise<number> {
    return (await this.energyWithRatio(address)).available;
  }

  /**
   * energyAvailable's one `wallet/getaccountresource`, with the network's energy per staked SUN from the same reply
   * (null when absent). Not a port method: CachingChainGateway answers energyPerStakedSun from it in the same block.
   */
  async energyWithRatio(address: string): Promise<{ readonly available: number; readonly energyPerStakedSun: number | null }> {
    const hex = hexAddress(address, 'address');
    const resource = await this.node.call<AccountResourceJson>('balance-read', 'getResources', 'full', 'wallet/getaccountresource', { address: hex });
    const ratio = energyPerSun(resource);
    return { available: energyAvailableOf(resource), energyPerStakedSun: ratio > 0 && Number.isFinite(ratio) ? ratio : null };
  }

  async accountExists(address: string): Promise<boolean> {
    const hex = hexAddress(address, 'address');
    const account = await this.node.call<AccountJson>('balance-read', 'accountExists', 'full', 'wallet/getaccount', { address: hex });
    return typeof account.address === 'string' && account.address.length > 0;
  }

  async getCanDelegateEnergySun(address: string): Promise<bigint> {
    const hex = hexAddress(address, 'address');
    const reply = await this.node.call<{ max_size?: number }>('balance-read', 'getCanDelegateEnergySun', 'full',
      'wallet/getcandelegatedmaxsize', { owner_address: hex, type: 1 });
    return BigInt(reply.max_size ?? 0);
  }

  /**
   * The node's own estimate (triggerconstantcontract energy_used, run as `from`; it includes the dynamic-energy
   * penalty). When the dry run reverts although `from` holds `amount`, the transfer itself would revert (a
   * blacklisted address, a paused token): BIZ-TRANSFER-WOULD-REVERT, found before anything is spent. When the node
   * cannot estimate (the sender lacks the tokens yet, the node refuses constant calls) the known USDT rule applies:
   * 64,285 energy to an address that already holds the token, 130,285 to one that does not. A node that is
   * unreachable or over its quota is a transient ChainError, never a guess.
   */
  async estimateTrc20TransferEnergy(from: string, to: string, contract: string, amount: bigint): Promise<number> {
    const owner = hexAddress(from, 'from');
    const receiver = hexAddress(to, 'to');
    const token = hexAddress(contract, 'contract');
    if (amount <= 0n) throw invalidArgument('amount', 'must be positive');
    let reply: DryRunJson | undefined;
    try {
      reply = await this.node.request<DryRunJson>('full', 'wallet/triggerconstantcontract', {
        owner_address: owner,
        contract_address: token,
        function_selector: 'transfer(address,uint256)',
        parameter: abiAddress(receiver) + pad32(amount.toString(16)),
      });
    } catch (e) {
      const mapped = toPortError(e, 'node-read', 'estimateTrc20TransferEnergy');
      if (mapped instanceof DomainError || mapped.transient) throw mapped;
    }
    const dry = reply === undefined ? undefined : readDryRun(reply);
    if (dry?.outcome === 'ok') return dry.energy;
    if (dry?.outcome === 'revert') {
      const held = await this.getTokenBalance(from, contract);
      if (held >= amount) {
        throw new DomainError('BIZ-TRANSFER-WOULD-REVERT', {
          message: `the token contract ${contract} refuses a transfer of ${amount} from ${from} to ${to} although the sender `
            + `holds ${held} (${dry.reason}): a blacklisted address or a paused token`,
        });
      }
    }
    const held = await this.getTokenBalance(to, contract);
    return held > 0n ? USDT_TRANSFER_ENERGY_TO_HOLDER : USDT_TRANSFER_ENERGY_TO_NEW_HOLDER;
  }

  /**
   * `wallet/getnextmaintenancetime`: epoch ms of the next maintenance, when the chain applies approved proposals (its
   * prices) and starts the cycle where a contract's dynamic energy factor moves (java-tron Manager.processBlock,
   * MaintenanceManager, ContractStateCapsule.catchUpToCycle). Not a port method: CachingChainGateway's schedule.
   */
  async nextMaintenanceTime(): Promise<number> {
    const reply = await this.node.call<{ num?: number }>('node-read', 'nextMaintenanceTime', 'full', 'wallet/getnextmaintenancetime', {});
    const num = reply.num;
    if (typeof num !== 'number' || !Number.isSafeInteger(num) || num <= 0) {
      throw new ChainError('CHAIN-NODE-UNAVAILABLE', 'nextMaintenanceTime: node reported no next maintenance time');
    }
    return num;
  }

  /** getchainparameters' getEnergyFee and getTransactionFee (SUN per energy, SUN per bandwidth byte). */
  async getChainPrices(): Promise<{ readonly energySun: bigint; readonly bandwidthSun: bigint }> {
    const { energySun, bandwidthSun } = await this.chainParameters();
    return { energySun, bandwidthSun };
  }

  /**
   * getChainPrices' one getchainparameters read, with getMaintenanceTimeInterval from the same reply (ms between
   * maintenances; null when the node omits it). Not a port method: CachingChainGateway's schedule.
   */
  async chainParameters(): Promise<{
    readonly energySun: bigint; readonly bandwidthSun: bigint; readonly maintenanceIntervalMs: number | null; readonly freeNetLimit: number | null;
  }> {
    const reply = await this.node.call<{ chainParameter?: { key?: string; value?: number }[] }>('node-read', 'getChainPrices', 'full',
      'wallet/getchainparameters', {});
    const value = (key: string): bigint | undefined => {
      const found = reply.chainParameter?.find((p) => p.key === key)?.value;
      return typeof found === 'number' && Number.isSafeInteger(found) && found >= 0 ? BigInt(found) : undefined;
    };
    const energySun = value('getEnergyFee');
    const bandwidthSun = value('getTransactionFee');
    if (energySun === undefined || bandwidthSun === undefined) {
      throw new ChainError('CHAIN-NODE-UNAVAILABLE', 'getChainPrices: node reported no getEnergyFee/getTransactionFee');
    }
    const interval = value('getMaintenanceTimeInterval');
    const freeNetLimit = value('getFreeNetLimit');
    return {
      energySun, bandwidthSun, maintenanceIntervalMs: interval === undefined || interval <= 0n ? null : Number(interval),
      freeNetLimit: freeNetLimit === undefined ? null : Number(freeNetLimit),
    };
  }

  /** TotalEnergyLimit / TotalEnergyWeight of the network, per SUN (≈ 1e-5 on mainnet: 1 TRX ≈ 10 energy). */
  async energyPerStakedSun(): Promise<number> {
    const resource = await this.node.call<AccountResourceJson>('node-read', 'energyPerStakedSun', 'full', 'wallet/getaccountresource',
      { address: this.usdtHex });
    const ratio = energyPerSun(resource);
    if (!(ratio > 0)) {
      throw new ChainError('CHAIN-NODE-UNAVAILABLE', 'energyPerStakedSun: node reported no TotalEnergyLimit/TotalEnergyWeight');
    }
    return ratio;
  }

  /**
   * Builds locally, referencing the solidified block (or head minus a margin, see the options) and expiring
   * `expirationMs` after the head's time; signs with the key from `signer.privateKey()` (asked for once, held only
   * for this call, never logged) and returns the transaction unsent.
   */
  async prepare(signer: Signer, intent: TransactionIntent): Promise<SignedTransaction> {
    hexAddress(signer.address, 'signer.address');
    const { head, ref } = await this.headAndReference();
    // A unique timestamp per transaction keeps two identical intents in one block from sharing a txid (the second
    // broadcast would be a DUP, which this gateway counts as accepted: one payment would silently vanish).
    const timestamp = Math.max(head.timestamp + randomInt(0, 1_000), this.lastTimestamp + 1);
    this.lastTimestamp = timestamp;
    const header: BlockHeaderRef = {
      ref_block_bytes: ref.number.toString(16).slice(-4).padStart(4, '0'),
      ref_block_hash: ref.id.slice(16, 32),
      expiration: head.timestamp + this.expirationMs,
      timestamp,
    };
    const unsigned = await guarded('build', `prepare ${intent.kind}`, () =>
      buildIntent(this.tw, signer.address, intent, header, this.maxFeeLimitSun));
    const signed = await this.sign(signer, unsigned);
    const signedJson = JSON.stringify(signed);
    if (this.signedHere.size >= SIGNED_HERE_MAX) this.signedHere.delete(this.signedHere.values().next().value!);
    this.signedHere.add(signedJson);
    return { txid: signed.txID, signedJson, expiresAt: signed.raw_data.expiration };
  }

  /**
   * The head (for the expiration) and the block to reference. The solidified block comes from the solidity
   * endpoint; should that endpoint be ahead of the full node we broadcast to (two machines), the full node's head
   * is the newest block it surely knows.
   */
  private async headAndReference(): Promise<{ head: BlockRef; ref: Pick<BlockRef, 'number' | 'id'> }> {
    if (this.referenceBlock === 'solidified') {
      const [head, chosen] = await Promise.all([this.node.head('build'), this.reference()]);
      // The scanner's node far behind this one (more than a solidified depth and the reuse window): its block would
      // widen findInSolidified's window past MAX_WINDOW_BLOCKS, so read this node's own.
      const solid = chosen.elsewhere && head.number - chosen.block.number > MAX_ELSEWHERE_DEPTH ? (await this.reference(false)).block : chosen.block;
      return { head, ref: solid.number <= head.number ? solid : head };
    }
    const head = await this.node.head('build');
    const number = Math.max(0, head.number - this.referenceBlock.headMinus);
    return { head, ref: number === head.number ? head : await this.node.byNumber('build', number) };
  }

  /**
   * The solidified block a build references: read at most once per referenceReuseMs (see the option), and not at all
   * while one the scanner read (the `solidified` option) is that recent; the newer of the two is taken.
   */
  private async reference(useElsewhere = true): Promise<{ readonly block: Pick<BlockRef, 'number' | 'id'>; readonly elsewhere: boolean }> {
    const now = this.now();
    const fresh = (at: number): boolean => now - at < this.referenceReuseMs && at <= now;
    const own = this.referenced !== null && fresh(this.referenced.at) ? this.referenced.block : null;
    const seen = useElsewhere ? this.solidifiedElsewhere() : null;
    const elsewhere = seen !== null && fresh(seen.at) ? seen : null;
    if (elsewhere !== null && (own === null || elsewhere.number > own.number)) return { block: elsewhere, elsewhere: true };
    return { block: own ?? await this.ownReference(), elsewhere: false };
  }

  /** The solidified head read for a build, kept as the reference for the next ones (see referenceReuseMs). */
  private async ownReference(): Promise<BlockRef> {
    const block = await this.node.solidified('build');
    if (this.referenced === null || block.number >= this.referenced.block.number) this.referenced = { block, at: this.now() };
    return block;
  }

  private async sign(signer: Signer, unsigned: Awaited<ReturnType<typeof buildIntent>>) {
    let key: string;
    try {
      key = await signer.privateKey();
    } catch {
      throw new ChainError('CHAIN-TRANSACTION-FAILED', `no usable key for ${signer.address}`, { transient: false });
    }
    try {
      const keyHex = key.replace(/^0x/, '');
      let keyAddress = this.keyAddresses.get(signer);
      if (keyAddress === undefined) {
        keyAddress = addressOfPrivateKey(keyHex);
        this.keyAddresses.set(signer, keyAddress);
      }
      return signTransaction(unsigned, keyHex, keyAddress);
    } catch {
      // The driver's error is dropped on purpose: a message about a malformed key must not carry the key.
      throw new ChainError('CHAIN-TRANSACTION-FAILED', `the key does not sign for ${signer.address}`, { transient: false });
    }
  }

  /**
   * Sends a prepared transaction. The JSON must still hash to its txid (a tampered or corrupted record is refused
   * before sending); DUP_TRANSACTION_ERROR means the node already has it and counts as accepted. A reply that was
   * lost or cannot be read (reset, timeout, a garbled body) is a transient ChainError: the node may have taken the
   * transaction, so the caller looks the txid up rather than concluding anything.
   */
  async broadcast(tx: SignedTransaction): Promise<void> {
    let parsed: Parameters<typeof transactionConsistent>[0] & { txID?: string; signature?: unknown };
    try {
      parsed = JSON.parse(tx.signedJson) as typeof parsed;
    } catch {
      throw new ChainError('CHAIN-BROADCAST-FAILED', `broadcast ${tx.txid}: signed JSON is not parseable`, { transient: false });
    }
    let consistent = false;
    try {
      consistent = parsed.txID === tx.txid && Array.isArray(parsed.signature) && (this.signedHere.has(tx.signedJson) || transactionConsistent(parsed));
    } catch {
      consistent = false;
    }
    if (!consistent) {
      throw new ChainError('CHAIN-BROADCAST-FAILED', `broadcast ${tx.txid}: the signed JSON does not hash to its txid (tampered or corrupted)`,
        { transient: false });
    }
    const what = `broadcast ${tx.txid}`;
    const reply = await guarded('broadcast', what, () => this.node.broadcast(parsed));
    // An `{"Error": …}` reply was thrown by the node client already (a NodeRefusal, mapped by guarded).
    const answer = (reply !== null && typeof reply === 'object' ? reply : {}) as { result?: unknown; code?: unknown; message?: unknown };
    if (answer.result === true || answer.code === 'DUP_TRANSACTION_ERROR') return;
    if (typeof answer.code === 'string' && answer.code !== '') {
      throw toPortError(new NodeRefusal(decodeNodeMessage(answer.message) || 'refused without a message', answer.code), 'broadcast', what);
    }
    throw new ChainError('CHAIN-NODE-UNAVAILABLE', `${what}: the node's reply is unreadable; it may have taken the transaction`, { transient: true });
  }

  /**
   * In a block → confirmed or failed (from the full node's transaction info; `solidified` when the solidity node
   * has it too). Not in a block → pending if the node's pool reports it (gettransactionfrompending; nodes that do
   * not serve it make pending look like unknown), else unknown. Any failure to ask is a ChainError, never unknown.
   */
  async getTransaction(txid: string): Promise<TransactionState> {
    if (typeof txid !== 'string' || !/^[0-9a-fA-F]{64}$/.test(txid)) throw invalidArgument('txid', 'must be 64 hex characters');
    const id = txid.toLowerCase();
    const info = await this.node.call<TransactionInfoJson>('node-read', 'getTransaction', 'full', 'wallet/gettransactioninfobyid', { value: id });
    if (info.blockNumber !== undefined && info.id !== undefined) {
      // A block newer than the cached head holds it: that head is not the newest any more.
      this.node.observeBlock(info.blockNumber);
      // Head and solidified head are shared reads (one request for every lookup in flight). Above the solidified head
      // the transaction is not solidified: no per-transaction call needed, and a workflow waiting for solidification
      // (~19 blocks on mainnet, a poll a block) makes one call a poll instead of two. At or below it, the solidity
      // endpoint is asked, as it always was: only it knows whether this block is the one that solidified.
      const [head, solidHead] = await Promise.all([this.node.head('node-read'), this.node.solidified('node-read').catch(() => null)]);
      if (solidHead !== null && info.blockNumber > solidHead.number) return toTransactionState(info, head.number, false);
      const solid = await this.node.call<TransactionInfoJson>('node-read', 'getTransaction', 'solidity', 'walletsolidity/gettransactioninfobyid', { value: id });
      return toTransactionState(info, head.number, solid.blockNumber !== undefined);
    }
    try {
      const pending = await this.node.request<{ txID?: string }>('full', 'wallet/gettransactionfrompending', { value: id });
      if (typeof pending.txID === 'string') return { state: 'pending' };
    } catch (e) {
      // A node without the pending endpoint refuses it for good: pending then looks like unknown (see above).
      const mapped = toPortError(e, 'node-read', 'getTransaction');
      if (mapped instanceof DomainError || mapped.transient) throw mapped;
    }
    return { state: 'unknown' };
  }

  /**
   * Reads the solidified blocks of the transaction's window by number (`walletsolidity/getblockbynum`): from the block
   * after its reference block (found from ref_block_bytes near the solidified head and checked against
   * ref_block_hash) until a block past its expiration. At most MAX_WINDOW_BLOCKS blocks: with the default 60 s
   * expiration a window is ~20 blocks past a reference up to ~19 blocks old.
   */
  async findInSolidified(tx: SignedTransaction): Promise<'included' | 'absent' | 'unknown'> {
    let raw: { ref_block_bytes?: unknown; ref_block_hash?: unknown; expiration?: unknown };
    try {
      raw = (JSON.parse(tx.signedJson) as { raw_data?: typeof raw }).raw_data ?? {};
    } catch {
      return 'unknown';
    }
    const { ref_block_bytes: refBytes, ref_block_hash: refHash, expiration } = raw;
    if (typeof refBytes !== 'string' || !/^[0-9a-f]{4}$/i.test(refBytes) || typeof refHash !== 'string' || typeof expiration !== 'number') return 'unknown';
    const id = tx.txid.toLowerCase();
    const solid = await this.node.solidified('node-read');
    if (solid.timestamp <= expiration) return 'unknown';
    // The reference block: the newest solidified block with these low 16 bits whose id carries ref_block_hash.
    const low = Number.parseInt(refBytes, 16);
    let ref = solid.number - ((solid.number - low) % 65_536 + 65_536) % 65_536;
    let previous: string;
    for (let tries = 0; ; tries += 1) {
      if (ref < 0 || tries === 3) return 'unknown';
      const block = await this.solidBlock(ref);
      if (block === null) return 'unknown';
      if (block.id.slice(16, 32) === refHash.toLowerCase()) {
        previous = block.id;
        break;
      }
      this.solidBlocks.delete(ref);
      ref -= 65_536;
    }
    for (let n = ref + 1; n <= solid.number && n - ref <= MAX_WINDOW_BLOCKS; n += 1) {
      const block = await this.solidBlock(n);
      if (block === null) return 'unknown';
      // Each block must be the child of the one before: blocks read from nodes of two chains (a fallback on another
      // network, decision 85) prove nothing, and neither is kept.
      if (block.parent !== previous) {
        this.solidBlocks.delete(n);
        this.solidBlocks.delete(n - 1);
        return 'unknown';
      }
      previous = block.id;
      if (block.timestamp > expiration) return 'absent';
      if (block.txids.includes(id)) return 'included';
    }
    return 'unknown';
  }

  /** A solidified block by number, read once (see solidBlocks); the oldest read is dropped past SOLID_BLOCK_CACHE. */
  private async solidBlock(number: number): Promise<SolidBlock | null> {
    const known = this.solidBlocks.get(number);
    if (known !== undefined) return known;
    const block = await this.node.solidifiedByNumber('node-read', number);
    if (block === null) return null;
    this.solidBlocks.set(number, block);
    if (this.solidBlocks.size > SOLID_BLOCK_CACHE) this.solidBlocks.delete(this.solidBlocks.keys().next().value!);
    return block;
  }

  async head(): Promise<{ readonly number: number; readonly timestamp: number }> {
    const { number, timestamp } = await this.node.head('node-read');
    return { number, timestamp };
  }

  /** The solidity endpoint's latest block (walletsolidity/getnowblock). */
  async solidifiedHead(): Promise<{ readonly number: number; readonly timestamp: number }> {
    const { number, timestamp } = await this.node.solidified('node-read');
    return { number, timestamp };
  }
}
