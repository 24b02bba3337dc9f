import { cashierTokenState, cashierTokenTransition, firstExpiry, newTokenValue, parseTtl } from '../domain/cashier-token-rules.js';
import { DomainError, validationError } from '../domain/errors.js';
import { newTokenNo, NUMBER_RANDOM_BYTES } from '../domain/numbers.js';
import { parsePageQuery, toMetaPage } from '../domain/pagination.js';
import { formatIsoTime } from '../domain/time.js';
import { visibleTo } from '../domain/wallet-rules.js';
import type { CashierToken } from '../domain/model/cashier-token.js';
import type { UserId } from '../domain/model/common.js';
import { ADDRESS_TYPE } from '../domain/model/wallet.js';
import type { CashierTokensService } from './application.js';
import type { AuditEvent } from '../domain/model/audit.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, optionalString, requireString } from './input.js';
import { toCashierTokenView } from './mappers.js';
import { ownedWallet } from './ownership.js';
import { livePaymentView, MAX_REFERENCE, parsePaymentRequest, toPaymentView } from './payment-requests.js';
import { retryOnConflict } from './retry-on-conflict.js';
import type { CashierTokenCreatedView, CashierTokenDisabledView, CashierTokenView, MetaPage } from './views.js';

const MAX_REASON = 255;

/** The payer page of a token (spec §4: `{cashier_url}?ct=<token>`; the page is GET /cashier on the service). */
export function payerUrl(origin: string, token: string): string {
  return `${origin.replace(/\/+$/, '')}/cashier?ct=${encodeURIComponent(token)}`;
}

/** The ports the cashier token use cases touch. */
export type CashierTokensDeps = Pick<ResolvedDeps, 'cashierTokens' | 'wallets' | 'hasher' | 'clock' | 'ids' | 'settings' | 'assets' | 'deposits'>
  & Partial<Pick<ResolvedDeps, 'auditLog' | 'uow'>>
  & Partial<Pick<ResolvedDeps, 'commands'>>;

/** Cashier token management with the Developer API Token (spec §4). */
export class CashierTokensUseCases implements CashierTokensService {
  constructor(private readonly deps: CashierTokensDeps) {}

  /**
   * Issues a `ct_` token for an owned sub-address; the value is returned once and stored as its SHA-256.
   * An expired token does not count as active (DESIGN.md); the store checks "one active per address" atomically.
   * With `amount` and `asset_symbol` (and optionally reference, description, pay_within_minutes) the token carries a
   * payment request (issue #25); without them, the token and the response are exactly the spec's.
   */
  async create(userId: UserId, body: unknown, options: { readonly payerBase?: string } = {}): Promise<CashierTokenCreatedView> {
    const fields = fieldsOf(body);
    const address = requireString(fields, 'address', 128);
    const ttl = parseTtl(fields['ttl_minutes']);
    const wallet = await ownedWallet(this.deps.wallets, userId, address);
    if (wallet.addressType !== ADDRESS_TYPE.SUB) throw new DomainError('BIZ-ADDRESS-TYPE-NOT-SUB');
    const now = this.deps.clock.now();
    const payment = parsePaymentRequest(this.deps, fields, wallet, ttl, now);
    const value = newTokenValue(this.deps.ids.randomBytes(this.deps.settings.tokenBytes));
    const token: CashierToken = {
      tokenNo: newTokenNo(now, this.deps.ids.randomBytes(NUMBER_RANDOM_BYTES)),
      tokenHash: this.deps.hasher.hashToken(value),
      userId,
      walletAddressId: wallet.id,
      address: wallet.address,
      networkCode: wallet.networkCode,
      status: 'active',
      ttlMinutes: ttl,
      expiresAt: firstExpiry(now, ttl, payment),
      disabledAt: null,
      disableReason: null,
      createdAt: now,
      version: 1,
      ...(payment === undefined ? {} : { payment }),
    };
    const inserted = await this.audited(() => this.deps.cashierTokens.insert(token, now), (outcome) => (outcome !== 'created' ? [] : [{
      userId, action: 'cashier_token.created', actor: { kind: 'user', id: null },
      detail: {
        token_no: token.tokenNo, address: token.address, expires_at: formatIsoTime(token.expiresAt),
        ...(payment === undefined ? {} : { asset_symbol: payment.assetSymbol, amount: payment.amount.toString(10), reference: payment.reference ?? null }),
      },
    }]));
    if (inserted === 'active-exists') {
      throw await this.activeExists(wallet.address, now);
    }
    if (payment === undefined) return { ...toCashierTokenView(token), token: value };
    const view = { ...toCashierTokenView(token), payment: toPaymentView(payment, { status: payment.status, received: 0n, confirming: 0n }) };
    return { ...view, token: value, ...(options.payerBase === undefined ? {} : { payer_url: payerUrl(options.payerBase, value) }) };
  }

  /**
   * `reference` (issue #34, an extension) keeps the tokens whose payment request carries exactly that reference;
   * absent, every token of the caller (the spec's list).
   */
  async list(userId: UserId, query: unknown): Promise<MetaPage<CashierTokenView>> {
    const fields = fieldsOf(query, 'query');
    const page = parsePageQuery(fields, 'cashier');
    const reference = optionalString(fields, 'reference', MAX_REFERENCE);
    if (reference === '') throw validationError('reference', 'must not be empty');
    const found = reference === null
      ? await this.deps.cashierTokens.listByUser(userId, page)
      : await this.deps.cashierTokens.listByReference(userId, reference, page);
    const views = await Promise.all(found.items.map((token) => this.liveView(token)));
    return toMetaPage(views, found.total, page.page, page.perPage);
  }

  /** One token of the caller's with its payment judged now; another account's is as unknown as a missing one. */
  async get(userId: UserId, tokenNo: string): Promise<CashierTokenView> {
    const token = visibleTo(await this.deps.cashierTokens.findByTokenNo(tokenNo), userId);
    if (token === null) throw new DomainError('CASHIER-TOKEN-NOT-FOUND');
    return this.liveView(token);
  }

  /** A request's status is judged now from its deposits, as the payer's session shows it. */
  private async liveView(token: CashierToken): Promise<CashierTokenView> {
    const payment = await livePaymentView(this.deps, token);
    return payment === undefined ? toCashierTokenView(token) : { ...toCashierTokenView(token), payment };
  }

  /**
   * The 409 names the token to end (issue #34): the spec's failure body has only code and message, so the message
   * carries its number and when it expires, and the call that ends it now.
   */
  private async activeExists(address: string, now: number): Promise<DomainError> {
    const active = await this.deps.cashierTokens.findActiveByAddress(address, now);
    if (active === null) return new DomainError('CASHIER-TOKEN-ACTIVE-EXISTS');
    return new DomainError('CASHIER-TOKEN-ACTIVE-EXISTS', {
      message: `active cashier token exists for the address: ${active.tokenNo} (expires_at ${formatIsoTime(active.expiresAt)}); `
        + `end it with DELETE /cashier/tokens/${active.tokenNo}, or wait until it expires`,
    });
  }

  /**
   * Runs `write` with its audit entries in one atomic scope (issue #35 item 8: what a Developer API token creates or
   * disables is audited, naming the token); without the trail's ports it just writes.
   */
  private audited<T>(write: () => Promise<T>, eventsOf: (result: T) => AuditEvent[]): Promise<T> {
    const { auditLog, uow } = this.deps;
    if (auditLog === undefined || uow === undefined) return write();
    return new AuditTrail({ auditLog, uow, clock: this.deps.clock }).recordWith(write, eventsOf);
  }

  /** active (or expired) → disabled; disabled → 409 CASHIER-TOKEN-ALREADY-DISABLED (spec §3). */
  async disable(userId: UserId, tokenNo: string, body: unknown): Promise<CashierTokenDisabledView> {
    const reason = optionalString(fieldsOf(body), 'reason', MAX_REASON);
    return retryOnConflict(async () => {
      const token = visibleTo(await this.deps.cashierTokens.findByTokenNo(tokenNo), userId);
      if (token === null) throw new DomainError('CASHIER-TOKEN-NOT-FOUND');
      const now = this.deps.clock.now();
      const next = cashierTokenTransition(cashierTokenState(token, now), 'disable');
      if ('error' in next) throw new DomainError(next.error);
      await this.audited(() => this.deps.cashierTokens.update({
        ...token, status: 'disabled', disabledAt: now, disableReason: reason, version: token.version + 1,
      }), () => [{
        userId, action: 'cashier_token.disabled', actor: { kind: 'user', id: null },
        detail: { token_no: token.tokenNo, address: token.address, reason },
      }]);
      return { token_no: token.tokenNo, status: 'disabled', disabled_at: formatIsoTime(now), disable_reason: reason };
    });
  }
}
