import type { PaymentStatus } from '../domain/model/payment-request.js';
/**
 * Spec-shaped outputs of the use cases: snake_case, money as integer strings, wallet timestamps
 * `YYYY-MM-DD HH:MM:SS` (UTC), cashier and account timestamps ISO 8601 with `+00:00`. Hosts serialise them as they are.
 */

export type { ItemsPage, MetaPage } from '../domain/pagination.js';

/** Spec §2 wallet address record. */
export interface WalletView {
  readonly wallet_address_id: number;
  readonly network_code: string;
  readonly address: string;
  readonly address_type: number;
  readonly address_label: string | null;
  readonly status: number;
  readonly created_at: string;
}

/** POST /wallets response. */
export type WalletCreatedView = Pick<WalletView, 'wallet_address_id' | 'network_code' | 'address' | 'address_type' | 'status'>;

export interface BalanceItemView {
  readonly symbol: string;
  readonly balance_available: string;
  readonly balance_locked: string;
  readonly balance_updated_at: string;
}

/** Spec §2 balance snapshot as the wallet endpoints show it. */
export interface WalletBalanceView {
  readonly address: string;
  readonly items: BalanceItemView[];
  readonly refresh_source: number;
  readonly balance_updated_at: string;
}

/**
 * POST /wallets/{address}/balances/refresh: the snapshot answered, and whether the chain was read for it. Inside the
 * cooldown after the address's last stored snapshot, a refresh without `force` answers the cached snapshot (still
 * `refresh_source` 2, as the spec's table of that endpoint says) and `cooldown` says so; the host turns it into headers.
 */
export interface BalanceRefreshView {
  readonly balance: WalletBalanceView;
  /** null: the chain was read for this answer. Else the cached snapshot, and how long until a refresh reads the chain. */
  readonly cooldown: { readonly remainingMs: number } | null;
}

/** GET /cashier/balance: the snapshot without refresh_source, ISO timestamps. */
export type CashierBalanceView = Omit<WalletBalanceView, 'refresh_source'>;

/** One asset of GET /cashier/collectable: the spec's cashier balance item and what a collection of it would move. */
export interface CollectableItemView extends BalanceItemView {
  /**
   * The part of balance_available one collection would move by the sweepable rule (core/domain/sweepable-amount.ts),
   * "0" when that is dust. The payer page offers only this amount.
   */
  readonly balance_collectable: string;
}

/**
 * GET /cashier/collectable (extension, issue #24 item 5): the cashier balance with balance_collectable per asset. The
 * spec's balance resource keeps exactly its fields; the payer page reads this one in its place.
 */
export interface CashierCollectableView extends CashierBalanceView {
  readonly items: CollectableItemView[];
}

/** Spec §2 chain resources (sun amounts as strings). */
export interface ChainResourcesView {
  readonly energy: {
    readonly available: number; readonly used: number; readonly limit: number;
    readonly staked_sun: string; readonly delegated_out_sun: string; readonly received_sun: string;
  };
  readonly bandwidth: {
    readonly free_available: number; readonly free_used: number; readonly free_limit: number;
    readonly staked_available: number; readonly staked_used: number; readonly staked_limit: number;
    readonly staked_sun: string; readonly delegated_out_sun: string; readonly received_sun: string;
  };
  readonly withdrawable_sun: string;
  readonly delegated_to: { readonly address: string }[];
  readonly received_from: { readonly address: string }[];
}

/** Spec §2 command (GET /commands/{commandNo}). */
export interface CommandView {
  readonly command_no: string;
  readonly type: number;
  readonly status: number;
  readonly error_code: string | null;
  readonly last_error: string | null;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  /** Extension (issue #26): present only on a withdrawal that needs an approval. */
  readonly approval?: CommandApprovalView;
}

/** The approval sub-state of a PENDING withdrawal (the command's status stays the spec's). */
export interface CommandApprovalView {
  readonly state: 'awaiting' | 'approved' | 'denied' | 'expired' | 'cancelled';
  readonly expires_at: string;
  readonly attempts: number;
  readonly last_attempt_at: string | null;
  readonly last_refusal: string | null;
  readonly decided_at: string | null;
  /** Issue #35: who requested it (a member's or the owner's user id); null on withdrawals recorded before teams. */
  readonly requested_by: number | null;
  /** Issue #35: the member who decided it through the API; null when the machine approver decided, or nobody yet. */
  readonly decided_by: number | null;
}

/** A command in GET /commands (with created_at). */
export interface CommandListItemView extends CommandView {
  readonly created_at: string;
}

/** 201 of transfers and staking: the accepted command. */
export interface CommandAcceptedView {
  readonly command_no: string;
  readonly status: number;
}

/** Spec §2 collection task on the wallet side (POST and GET /collections). */
export interface CollectionTaskView {
  readonly task_no: string;
  readonly command_no: string;
  readonly status: number;
  readonly error_code: string | null;
  readonly last_error: string | null;
  readonly started_at: string;
  readonly finished_at: string | null;
}

/** The task on the cashier endpoints: without error_code, ISO timestamps. */
export type CashierTaskView = Omit<CollectionTaskView, 'error_code'>;

/** A task of GET /collections (issue #34, an extension): the spec's task fields, and what it swept from where. */
export interface CollectionTaskListItemView extends CollectionTaskView {
  readonly address: string;
  readonly asset_symbol: string;
  /** Smallest unit, once DONE; null before and on failure. */
  readonly swept_amount: string | null;
  readonly sweep_tx_hash: string | null;
}

/** GET /commands/{commandNo} of a withdrawal: the spec's command fields and what it sends where (issue #34, extensions). */
export interface WithdrawalCommandView extends CommandView {
  readonly asset_symbol: string;
  readonly amount: string;
  readonly to_address: string;
  /** Once the transaction may have been broadcast; null before. */
  readonly txid: string | null;
  /** Extension (issue #36): on a refund only, the token_no of the payment request it refunds. */
  readonly refund_of?: string;
}

/** Spec §2 cashier token record (list and disable); `token` only in the create response. */
export interface CashierTokenView {
  readonly token_no: string;
  readonly wallet_address_id: number;
  readonly address: string;
  readonly network_code: string;
  readonly status: 'active' | 'disabled';
  readonly ttl_minutes: number;
  readonly expires_at: string;
  readonly disabled_at: string | null;
  readonly disable_reason: string | null;
  readonly created_at: string;
  /** Only on a token made with a payment request (issue #25, an extension). */
  readonly payment?: PaymentView;
}

/**
 * A payment request as the merchant and the payer see it (issue #25): amounts as integer strings of the asset's
 * smallest unit, judged at read time from the sub-address's deposits since the token was made. `received` counts
 * confirmed payments (late ones once the deadline has passed); `confirming` is what is seen but not yet confirmed.
 */
export interface PaymentView {
  readonly asset_symbol: string;
  readonly amount: string;
  readonly received: string;
  readonly remaining: string;
  readonly confirming: string;
  readonly deadline: string;
  readonly status: PaymentStatus;
  readonly reference: string | null;
  readonly description: string | null;
  /**
   * Only on the merchant's token views while a paid request's automatic forward waits (issue #34, an extension): its
   * collection was refused before any task (no energy source can cover it now) and the worker tries again by itself.
   */
  readonly forward?: PaymentForwardView;
  /** Only on the merchant's token views once the request was refunded (issue #36 item 4, an extension), oldest first. */
  readonly refunds?: PaymentRefundView[];
}

/** One refund of a payment request: its withdrawal command, amount, the command's status now and when it was asked. */
export interface PaymentRefundView {
  readonly command_no: string;
  readonly amount: string;
  readonly status: number;
  readonly requested_at: string;
}

/** A paid request's forward that waits: why (the refusal's code and message, naming the fix) and when it is tried again. */
export interface PaymentForwardView {
  readonly status: 'pending';
  readonly error_code: string;
  readonly reason: string;
  /** Attempts refused so far. */
  readonly attempts: number;
  /** The first refusal, and the next attempt (ISO 8601). */
  readonly since: string;
  readonly next_attempt_at: string;
}

/** The payment request on GET /cashier/session, with the merchant's name (config.display_name) for the payer. */
export interface CashierPaymentView extends PaymentView {
  readonly merchant_name: string | null;
  /** Every transfer seen for the request, oldest first (issue #34, an extension): the payer page lists them. */
  readonly transfers: readonly PaymentTransferView[];
}

/** One transfer to a payment request's sub-address in its asset since the token was made, as the payer sees it. */
export interface PaymentTransferView {
  readonly txid: string;
  readonly amount: string;
  /** pending: seen, not yet confirmed (in `confirming`); confirmed: final; reverted: dropped by a reorg, not counted. */
  readonly status: 'pending' | 'confirmed' | 'reverted';
  readonly detected_at: string;
}

export interface CashierTokenCreatedView extends CashierTokenView {
  readonly token: string;
  /** Only with a payment request (issue #34, an extension): the payer page, `{origin}/cashier?ct=<token>`. */
  readonly payer_url?: string;
}

export interface CashierTokenDisabledView {
  readonly token_no: string;
  readonly status: 'disabled';
  readonly disabled_at: string;
  readonly disable_reason: string | null;
}

/** Spec §2 cashier session. */
export interface CashierSessionView {
  readonly token_no: string;
  readonly expires_at: string;
  readonly min_collect_amounts: Record<string, string>;
  readonly address: {
    readonly wallet_address_id: number;
    readonly address: string;
    readonly network_code: string;
    readonly address_label: string | null;
  };
  readonly active_task: CashierTaskView | null;
  /** Only on a token made with a payment request (issue #25, an extension). */
  readonly payment?: CashierPaymentView;
  /**
   * Only when the merchant has config.auto_collect (issue #24, an extension): per asset symbol, the sweepable amount
   * at which the worker forwards a payment by itself, so the page asks the payer for no press.
   */
  readonly auto_collect?: Readonly<Record<string, { readonly min_amount: string }>>;
}

export interface RegisteredView {
  readonly user_id: number;
  readonly email: string;
}

export interface VerifiedView {
  readonly user_id: number;
  readonly email: string;
  readonly verified: true;
}

/** POST /auth/password-reset/request: the same empty answer whoever asks (issue #14). */
export type PasswordResetRequestedView = Readonly<Record<string, never>>;

/** POST /auth/password-reset/confirm: the password is changed and every session revoked. */
export interface PasswordResetDoneView {
  readonly user_id: number;
  readonly email: string;
}

export interface LoginView {
  readonly session_token: string;
  readonly expires_at: string;
  readonly user_id: number;
}

/** A subscription record (spec: "not shown"; decided here). */
export interface SubscriptionView {
  readonly service_code: string;
  readonly plan_code: string;
  readonly status: 'active' | 'cancelled';
  readonly meta: { readonly max_sub_addresses?: number };
  readonly activated_at: string;
}

/** Spec §2 webhook configuration status object. */
export interface WebhookStatusView {
  readonly status: 'unconfigured' | 'pending' | 'verified';
  readonly url: string | null;
  readonly pending_url: string | null;
  readonly pending_since: string | null;
  readonly verified_at: string | null;
  readonly review_note: string | null;
}

/** GET /subscriptions/config/developer (and the PUT response). The secret is never part of it. */
export interface DeveloperConfigView {
  readonly service_code: 'developer';
  readonly plan_code: string | null;
  readonly status: 'active' | 'cancelled' | 'none';
  readonly config: {
    readonly webhook_url: string | null;
    readonly webhook_secret_set: boolean;
    /** While a replaced secret still signs beside the new one (24 h overlap): when it stops; else null. */
    readonly previous_secret_valid_until: string | null;
    readonly min_collect_amounts: Record<string, string>;
    /** The event types sent to the webhook: the spec's four always, then the opt-in ones added (issue #24). */
    readonly event_types: string[];
    /** Per asset symbol, when the worker collects by itself after a confirmed deposit (issue #24 item 4). */
    readonly auto_collect: Record<string, { readonly min_amount: string; readonly max_fee_sun: string }>;
    /** The merchant's name on the payer page (issue #25); null when not set. */
    readonly display_name: string | null;
  };
  readonly webhook: WebhookStatusView;
}

export interface ApiTokenCreatedView {
  readonly id: number;
  readonly name: string;
  readonly token: string;
  readonly abilities: string[];
  readonly created_at: string;
  /** Extension (issue #35): null: never expires. */
  readonly expires_at: string | null;
}

/** GET /api-tokens: a token without its value. */
export interface ApiTokenView {
  readonly id: number;
  readonly name: string;
  readonly abilities: string[];
  readonly created_at: string;
  readonly last_used_at: string | null;
  /** Extension (issue #35): null: never expires. */
  readonly expires_at: string | null;
  /** Extension (issue #35): marked for review by a password reset since then; null: not marked. */
  readonly review_since: string | null;
}

export interface ApiTokenListView {
  readonly items: ApiTokenView[];
  /** How many more unrevoked tokens the user may create. */
  readonly remaining: number;
}

export interface ApiTokenRevokedView {
  readonly id: number;
  readonly revoked_at: string;
}

/** POST /webhooks/debug/test: the outcome of the one attempt. */
export interface WebhookTestView {
  readonly event_id: string;
  readonly url: string;
  readonly delivered: boolean;
  readonly http_status: number | null;
  readonly error: string | null;
  readonly duration_ms: number;
  /** The first 1 KiB of the receiver's response body, or null (an extension, as in the delivery log). */
  readonly response: string | null;
}

export interface DeliveryAttemptView {
  readonly at: string;
  readonly http_status: number | null;
  readonly error: string | null;
  readonly duration_ms: number;
  /** The first 1 KiB of the receiver's response body, or null. */
  readonly response: string | null;
  /** True for an attempt asked for with POST /webhooks/deliveries/{id}/redeliver. */
  readonly redelivery: boolean;
  /** Where this attempt was sent (a redelivery goes to the URL approved at the time); null if unknown. */
  readonly url: string | null;
}

/** GET /webhooks/deliveries item (spec: "not shown"; decided here). */
export interface DeliveryView {
  readonly delivery_id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly status: number;
  readonly url: string | null;
  readonly attempts: DeliveryAttemptView[];
  readonly next_attempt_at: string | null;
  readonly created_at: string;
  /** The event body as sent (the spec §6 fields at the top level); null if the event is no longer stored. */
  readonly payload: Readonly<Record<string, unknown>> | null;
}

/** POST /webhooks/deliveries/{id}/redeliver: the new attempt's outcome and the delivery after it. */
export interface RedeliveryView {
  readonly delivered: boolean;
  readonly attempt: DeliveryAttemptView;
  readonly delivery: DeliveryView;
}

/** Admin: a URL waiting for review. */
export interface PendingWebhookView {
  readonly user_id: number;
  readonly pending_url: string;
  readonly pending_since: string | null;
  readonly url: string | null;
}

export interface RiskEntryView {
  readonly kind: 'user' | 'address';
  readonly value: string;
  readonly reason: string | null;
}

export interface QuotaView {
  readonly user_id: number;
  readonly max_sub_addresses: number;
}
