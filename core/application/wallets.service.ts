import { DomainError, InfrastructureError, validationError } from '../domain/errors.js';
import { newCommandNo } from '../domain/numbers.js';
import { parsePageQuery, toItemsPage } from '../domain/pagination.js';
import { formatWalletTime } from '../domain/time.js';
import { decideWalletCreation, validateLabel, visibleTo } from '../domain/wallet-rules.js';
import { REFRESH_SOURCE, type BalanceItem } from '../domain/model/balance.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../domain/model/command.js';
import type { UserId } from '../domain/model/common.js';
import { ADDRESS_STATUS, ADDRESS_TYPE, type AddressType, type WalletAddress } from '../domain/model/wallet.js';
import type { WalletsService } from './application.js';
import { AuditTrail } from './audit-trail.js';
import { balanceOf, toBalanceItemViews, type BalanceViewDeps } from './balance-view.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, optionalBoolean, optionalEnum, requireString } from './input.js';
import { toResourcesView, toWalletView } from './mappers.js';
import { ownedWallet } from './ownership.js';
import type { BalanceRefreshView, ChainResourcesView, ItemsPage, WalletBalanceView, WalletCreatedView, WalletView } from './views.js';

let lastSnapshotMs = Number.NaN;
let lastSnapshotText = '';

/**
 * formatWalletTime with a one-entry memo: a balance read formats the same snapshot instant up to three times, and
 * every read of an unchanged snapshot formats it again (2% of the API's CPU on the hot read, bench/api.ts). The
 * function is pure and a failure is not kept, so the memo cannot change an answer.
 */
function snapshotTime(ms: number): string {
  if (ms !== lastSnapshotMs) {
    lastSnapshotText = formatWalletTime(ms);
    lastSnapshotMs = ms;
  }
  return lastSnapshotText;
}

const ADDRESS_TYPES: readonly AddressType[] = [ADDRESS_TYPE.MAIN, ADDRESS_TYPE.SUB];
/** Networks whose addresses stake for energy and bandwidth (spec §2 "Chain resources (TRON address)"). */
const RESOURCE_NETWORKS: ReadonlySet<string> = new Set(['TRON']);

/** `address_type` of a JSON body: an integer (1 and 2 are the allowed ones; others are BIZ-ADDRESS-TYPE-NOT-ALLOWED). */
function parseAddressType(value: unknown): number {
  if (value === undefined || value === null) throw validationError('address_type', 'is required');
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw validationError('address_type', 'must be an integer');
  return value;
}

/** The ports the wallet use cases touch, with those of reading a balance. */
export type WalletsDeps = Pick<ResolvedDeps,
  'wallets' | 'subscriptions' | 'balances' | 'commands' | 'chain' | 'cipher' | 'assets' | 'clock' | 'ids' | 'settings'>
  & BalanceViewDeps & Partial<Pick<ResolvedDeps, 'auditLog' | 'uow'>>;

/** Wallet addresses, their cached balances, manual refresh and chain resources (spec §4 "Wallet"). */
export class WalletsUseCases implements WalletsService {
  constructor(private readonly deps: WalletsDeps) {}

  async list(userId: UserId, query: unknown): Promise<ItemsPage<WalletView>> {
    const fields = fieldsOf(query, 'query');
    const addressType = optionalEnum(fields, 'type', ADDRESS_TYPES);
    const page = parsePageQuery(fields, 'standard');
    const found = await this.deps.wallets.listByUser(userId, addressType === undefined ? {} : { addressType }, page);
    return toItemsPage(found.items.map(toWalletView), found.total, page.page, page.perPage);
  }

  async get(userId: UserId, address: string): Promise<WalletView> {
    return toWalletView(await ownedWallet(this.deps.wallets, userId, address));
  }

  /**
   * Checks in the order of the spec §4 table, generates the key pair, encrypts the key with the address as AAD and
   * inserts under the store's atomic main/quota rules (the pre-check alone would race).
   */
  async create(userId: UserId, body: unknown): Promise<WalletCreatedView> {
    const fields = fieldsOf(body);
    const networkCode = requireString(fields, 'network_code', 32);
    const addressType = parseAddressType(fields['address_type']);
    const label = validateLabel(fields['address_label']);
    const network = this.deps.assets.network(networkCode);
    if (network === null) throw new DomainError('BIZ-NETWORK-NOT-FOUND');
    const [main, subscription, subCount] = await Promise.all([
      this.deps.wallets.findMain(userId, network),
      addressType === ADDRESS_TYPE.SUB ? this.deps.subscriptions.find(userId, 'sub_address') : Promise.resolve(null),
      addressType === ADDRESS_TYPE.SUB ? this.deps.wallets.countSubs(userId, network) : Promise.resolve(0),
    ]);
    const decision = decideWalletCreation({ addressType, hasMain: main !== null, subscription, subCount });
    if (!decision.ok) throw new DomainError(decision.code);
    const account = await this.deps.chain.createAccount();
    const wallet: WalletAddress = {
      id: await this.deps.ids.nextInt('wallet_address'),
      userId,
      networkCode: network,
      address: account.address,
      addressType: addressType as AddressType,
      label,
      status: ADDRESS_STATUS.ACTIVE,
      // The plaintext is the UTF-8 of the key exactly as the gateway returned it; the address binds the ciphertext.
      encryptedKey: await this.deps.cipher.encrypt(new TextEncoder().encode(account.privateKey), account.address),
      createdAt: this.deps.clock.now(),
      version: 1,
    };
    const insert = () => this.deps.wallets.insert(wallet, { maxSubAddresses: decision.maxSubAddresses });
    // Audited with its insert (issue #35 item 8): a Developer API token's (or a session's) new address names its caller.
    const { auditLog, uow } = this.deps;
    const outcome = auditLog === undefined || uow === undefined ? await insert()
      : await new AuditTrail({ auditLog, uow, clock: this.deps.clock }).recordWith(insert, (result) => (result !== 'created' ? [] : {
        userId, action: 'wallet.created', actor: { kind: 'user', id: null },
        detail: { wallet_address_id: wallet.id, network_code: wallet.networkCode, address: wallet.address, address_type: wallet.addressType },
      }));
    if (outcome === 'main-exists') throw new DomainError('BIZ-MAIN-ADDRESS-ALREADY-EXISTS');
    if (outcome === 'quota-exceeded') throw new DomainError('BIZ-SUB-ADDRESS-QUOTA-EXCEEDED');
    if (outcome === 'address-exists') throw new InfrastructureError('INTERNAL-ERROR', 'generated address collides', { transient: true });
    return {
      wallet_address_id: wallet.id, network_code: wallet.networkCode, address: wallet.address,
      address_type: wallet.addressType, status: wallet.status,
    };
  }

  /** One store read (the wallet, its snapshot and its active command together): the API's hottest read. */
  async balances(userId: UserId, address: string): Promise<WalletBalanceView> {
    const source = await this.deps.balances.readView(address);
    // The same answer as ownedWallet's for a missing or another user's address.
    if (source === null || visibleTo(source.wallet, userId) === null) throw new DomainError('BIZ-WALLET-ADDRESS-NOT-FOUND');
    const balance = balanceOf(this.deps, source);
    return {
      address: source.wallet.address,
      items: toBalanceItemViews(balance.lines, snapshotTime),
      refresh_source: balance.refreshSource,
      balance_updated_at: snapshotTime(balance.updatedAt),
    };
  }

  /**
   * Queries every asset on chain and stores the snapshot as a manual refresh, recorded as a QUERY command.
   * Within the cooldown after the last stored snapshot (any source) the cached one is answered without a chain query,
   * unless `force: true`, and the answer's `cooldown` says so: a cached snapshot is never passed off as just read.
   */
  async refresh(userId: UserId, address: string, body: unknown): Promise<BalanceRefreshView> {
    const force = optionalBoolean(fieldsOf(body), 'force', false);
    const wallet = await ownedWallet(this.deps.wallets, userId, address);
    const now = this.deps.clock.now();
    const cached = await this.deps.balances.get(wallet.address);
    const cooldownMs = this.deps.settings.refreshCooldownMs;
    // A snapshot stamped after `now` (another process's clock) counts as just stored: at most the whole cooldown.
    const remainingMs = cached === null ? 0 : Math.min(cooldownMs, cooldownMs - (now - cached.updatedAt));
    const cooling = remainingMs > 0 && !force;
    if (!cooling) await this.queryChain(wallet, now);
    const view = await this.balances(userId, address);
    return { balance: { ...view, refresh_source: REFRESH_SOURCE.MANUAL }, cooldown: cooling ? { remainingMs } : null };
  }

  async resources(userId: UserId, address: string): Promise<ChainResourcesView> {
    const wallet = await ownedWallet(this.deps.wallets, userId, address);
    if (!RESOURCE_NETWORKS.has(wallet.networkCode)) throw new DomainError('BIZ-CHAIN-RESOURCES-NOT-SUPPORTED');
    return toResourcesView(await this.deps.chain.getResources(wallet.address));
  }

  private async queryChain(wallet: WalletAddress, now: number): Promise<void> {
    const assets = this.deps.assets.list(wallet.networkCode);
    let items: BalanceItem[];
    try {
      items = await Promise.all(assets.map(async (asset) => ({
        symbol: asset.symbol,
        available: asset.contractAddress === null
          ? await this.deps.chain.getTrxBalance(wallet.address)
          : await this.deps.chain.getTokenBalance(wallet.address, asset.contractAddress),
        updatedAt: now,
      })));
    } catch (cause) {
      await this.recordQuery(wallet, now, cause);
      throw new InfrastructureError('CHAIN-BALANCE-QUERY-FAILED', 'on-chain balance query failed', { cause });
    }
    await this.deps.balances.put({ address: wallet.address, items, refreshSource: REFRESH_SOURCE.MANUAL, updatedAt: now });
    await this.recordQuery(wallet, now, null);
  }

  /** A manual refresh is a QUERY command (never locking), recorded already terminal. */
  private async recordQuery(wallet: WalletAddress, now: number, failure: unknown): Promise<void> {
    const failed = failure !== null;
    const command: Command = {
      commandNo: newCommandNo(now, this.deps.ids.randomBytes(8)),
      userId: wallet.userId,
      type: COMMAND_TYPE.QUERY,
      status: failed ? COMMAND_STATUS.FAILED : COMMAND_STATUS.SUCCESS,
      address: wallet.address,
      assetSymbol: null,
      lockedAmount: 0n,
      params: {},
      transaction: null,
      errorCode: failed ? 'CHAIN-BALANCE-QUERY-FAILED' : null,
      // The node's own message may carry internals; the stored text is the catalogue's.
      lastError: failed ? 'on-chain balance query failed' : null,
      createdAt: now,
      startedAt: now,
      finishedAt: now,
      nextRunAt: now,
      lease: null,
      version: 1,
    };
    await this.deps.commands.insert(command, { locking: false });
  }
}
