/**
 * The reference model of the model-based use-case test: a few plain records and the business rules of spec §2-§4
 * and DESIGN.md written out again by hand, deliberately without calling the domain modules under test.
 */

/** The one supported network (spec §1). */
export const MODEL_NETWORK = 'TRON';

/** DESIGN.md `sub_address` plans and their quota (-1 unlimited), copied by hand. */
export const MODEL_PLAN_QUOTAS = { starter: 10, pro: 1000, unlimited: -1 } as const;
export type ModelPlan = keyof typeof MODEL_PLAN_QUOTAS;

/** A user and their `sub_address` subscription (null: none). */
export interface ModelUser {
  readonly userId: number;
  subscription: { plan: ModelPlan; quota: number } | null;
}

/** A wallet address as the model knows it (the chain string is learnt from the create response). */
export interface ModelWallet {
  readonly userId: number;
  readonly id: number;
  readonly address: string;
  readonly type: 1 | 2;
}

/** A cashier token: `expired` is derived from expiresAt and the model's clock. */
export interface ModelToken {
  readonly userId: number;
  readonly tokenNo: string;
  readonly value: string;
  readonly address: string;
  readonly ttlMinutes: number;
  readonly createdAt: number;
  status: 'active' | 'disabled';
  expiresAt: number;
}

/** A collection task; `pending` holds the address lock (its command is PENDING). */
export interface ModelTask {
  readonly userId: number;
  readonly taskNo: string;
  readonly commandNo: string;
  readonly address: string;
  readonly asset: string;
  /** The cached balance of the asset when the task started: held as balance_locked while it is pending. */
  readonly locked: bigint;
  readonly startedAt: number;
  status: 'pending' | 'done' | 'failed';
  /** Its COLLECTION command's status: 1 PENDING, 3 SUCCESS, 4 FAILED, 6 CANCELLED. */
  commandStatus: 1 | 3 | 4 | 6;
}

/** The assets of TRON (spec §1), in the registry's order. */
export const MODEL_ASSETS = ['TRX', 'USDT'] as const;

export type ModelTokenState = 'active' | 'disabled' | 'expired';

/** Who calls with a resource: its owner, or the other user (who must find it nonexistent). */
export type Caller = 'owner' | 'other';

/** What the system should hold after the commands run so far. */
export class UseCaseModel {
  readonly wallets: ModelWallet[] = [];
  readonly tokens: ModelToken[] = [];
  readonly tasks: ModelTask[] = [];
  /** The risk deny-list (admin): user ids and addresses. */
  readonly deniedUsers = new Set<number>();
  readonly deniedAddresses = new Set<string>();
  /** Collections refused by risk control, per user: each is recorded as a REJECTED command (docs/decisions.md 8). */
  readonly rejectedCollections = new Map<number, number>();
  /** Cached balances as the scanner stored them (absent: 0), by address then symbol. */
  readonly balances = new Map<string, Readonly<Record<string, bigint>>>();
  /** Each user's min_collect_amounts (absent: no minimum). */
  readonly minimums = new Map<number, Readonly<Record<string, bigint>>>();

  constructor(readonly users: readonly ModelUser[], public now: number) {}

  user(userId: number): ModelUser {
    const found = this.users.find((u) => u.userId === userId);
    if (found === undefined) throw new RangeError(`no model user ${userId}`);
    return found;
  }

  /** The user id behind `caller` for a resource owned by `ownerId`. */
  callerFor(ownerId: number, caller: Caller): number {
    if (caller === 'owner') return ownerId;
    const other = this.users.find((u) => u.userId !== ownerId);
    if (other === undefined) throw new RangeError('the model needs two users');
    return other.userId;
  }

  walletsOf(userId: number, type?: 1 | 2): ModelWallet[] {
    return this.wallets.filter((w) => w.userId === userId && (type === undefined || w.type === type));
  }

  /**
   * The error code POST /wallets must answer for a TRON creation, or null when it must succeed. Spec §2 rules 1-2
   * in the order of the §4 table: main uniqueness; then main required, subscription, quota.
   */
  walletCreationError(userId: number, type: number): string | null {
    const hasMain = this.walletsOf(userId, 1).length > 0;
    if (type === 1) return hasMain ? 'BIZ-MAIN-ADDRESS-ALREADY-EXISTS' : null;
    if (type !== 2) return 'BIZ-ADDRESS-TYPE-NOT-ALLOWED';
    if (!hasMain) return 'BIZ-MAIN-ADDRESS-REQUIRED';
    const sub = this.user(userId).subscription;
    if (sub === null) return 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED';
    if (sub.quota !== -1 && this.walletsOf(userId, 2).length >= sub.quota) return 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED';
    return null;
  }

  /** The cached balance of one asset of the address. */
  cached(address: string, symbol: string): bigint {
    return this.balances.get(address)?.[symbol] ?? 0n;
  }

  /** docs/decisions.md 5: [available, locked] of an asset — the pending task of that asset holds its amount. */
  balanceLine(address: string, symbol: string): readonly [bigint, bigint] {
    const task = this.pendingTaskOn(address);
    const locked = task !== undefined && task.asset === symbol ? task.locked : 0n;
    const cached = this.cached(address, symbol);
    return [cached > locked ? cached - locked : 0n, locked];
  }

  /**
   * Issue #24 item 5, copied by hand: what a collection would move from the available cached balance (a token whole,
   * TRX only from 0.1 TRX, 100000 SUN), else 0: dust, refused with 422 BIZ-AMOUNT-BELOW-MINIMUM and never offered.
   */
  collectable(address: string, symbol: string): bigint {
    const [available] = this.balanceLine(address, symbol);
    return symbol === 'TRX' && available < 100_000n ? 0n : available;
  }

  /** Whether risk control blocks a collection by this user on this address. */
  isBlocked(userId: number, address: string): boolean {
    return this.deniedUsers.has(userId) || this.deniedAddresses.has(address);
  }

  /** Records one collection request refused with 403. */
  reject(userId: number): void {
    this.rejectedCollections.set(userId, (this.rejectedCollections.get(userId) ?? 0) + 1);
  }

  /** The collection holding the address lock, if any (one at most: the model never records a second). */
  pendingTaskOn(address: string): ModelTask | undefined {
    return this.tasks.find((t) => t.address === address && t.status === 'pending');
  }

  /** Active strictly before expiresAt; disabled wins over expired. */
  tokenState(token: ModelToken): ModelTokenState {
    if (token.status === 'disabled') return 'disabled';
    return this.now < token.expiresAt ? 'active' : 'expired';
  }

  /** The address's token that is active and unexpired now (DESIGN.md: an expired one no longer counts). */
  liveTokenOn(address: string): ModelToken | undefined {
    return this.tokens.find((t) => t.address === address && this.tokenState(t) === 'active');
  }

  /** docs/decisions.md 7: the latest task of the address created at or after the token (later wins ties). */
  sessionTask(token: ModelToken): ModelTask | undefined {
    return this.tasks.filter((t) => t.address === token.address && t.startedAt >= token.createdAt).at(-1);
  }

  /** DESIGN.md: a successful payment request slides the expiry to max(current, now + ttl). */
  slide(token: ModelToken): void {
    token.expiresAt = Math.max(token.expiresAt, this.now + token.ttlMinutes * 60_000);
  }
}
