import { approvalOnCancel } from '../domain/approval.js';
import { commandTransition } from '../domain/command-machine.js';
import { commandBroadcast } from '../domain/withdrawal-funding.js';
import { collectionTransition } from '../domain/collection-machine.js';
import { DomainError, validationError } from '../domain/errors.js';
import { formatIsoTime } from '../domain/time.js';
import { parsePageQuery, toItemsPage, type ItemsPage } from '../domain/pagination.js';
import { DELIVERY_STATUS } from '../domain/model/webhook.js';
import { approveWebhook, rejectWebhook, webhookView } from '../domain/webhook-review.js';
import { COLLECTION_STATUS, type CollectionTask } from '../domain/model/collection-task.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../domain/model/command.js';
import type { UserId } from '../domain/model/common.js';
import type { DeveloperConfig } from '../domain/model/webhook.js';
import type { RiskEntryKind } from '../ports/risk-policy.port.js';
import type { AdminService } from './application.js';
import type { ResolvedDeps } from './deps.js';
import { AuditTrail } from './audit-trail.js';
import { fieldsOf, optionalInteger, optionalString, parseIdParam, requireString, type Fields } from './input.js';
import { toCommandView } from './mappers.js';
import { retryOnConflict } from './retry-on-conflict.js';
import { collectionEvent } from './webhook-events.js';
import type { CommandView, PendingWebhookView, QuotaView, RiskEntryView, WebhookStatusView } from './views.js';

const MAX_NOTE = 500;

/** GET /admin/workflows/failed: the window in days (default 7, at most 30) and the rows per list. */
export const FAILED_WORKFLOW_DAYS = { default: 7, max: 30 } as const;
export const FAILED_WORKFLOW_LIMIT = 100;
const DAY_MS = 86_400_000;

/** A failed command or collection task of any account, with its last error (issue #38 item 2). */
export interface FailedWorkflowView {
  readonly kind: 'command' | 'collection';
  /** The command number, or the collection task's number. */
  readonly id: string;
  readonly user_id: number;
  /** The command's type (WITHDRAWAL, STAKE, …), or COLLECTION for a sweep. */
  readonly type: string;
  readonly address: string | null;
  readonly error_code: string | null;
  readonly last_error: string | null;
  readonly finished_at: string | null;
}

/** The failed workflows of every account since `since`, newest first, and the collection tasks by status. */
export interface FailedWorkflowsView {
  readonly since: string;
  readonly items: readonly FailedWorkflowView[];
  /** True when a list reached its row limit: older failures than those shown exist in the window. */
  readonly truncated: boolean;
  /** Collection tasks of every account per status name (the ones still running are the workflows in flight). */
  readonly collections_by_status: Readonly<Record<string, number>>;
}

/** A DEAD webhook delivery of any account (issue #38 item 2): where it went and how its last attempt ended. */
export interface DeadDeliveryView {
  readonly delivery_id: string;
  readonly user_id: number;
  readonly event_type: string;
  readonly url: string | null;
  readonly attempts: number;
  readonly last_attempt_at: string | null;
  readonly last_http_status: number | null;
  readonly last_error: string | null;
  readonly created_at: string;
}

const COMMAND_TYPE_NAMES = new Map(Object.entries(COMMAND_TYPE).map(([name, code]) => [code as number, name]));
const COLLECTION_STATUS_NAMES = new Map(Object.entries(COLLECTION_STATUS).map(([name, code]) => [code as number, name]));

function parseKind(fields: Fields): RiskEntryKind {
  const kind = requireString(fields, 'kind', 16);
  if (kind !== 'user' && kind !== 'address') throw validationError('kind', 'must be user or address');
  return kind;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A deny-list value as stored and as looked up: lone surrogates become U+FFFD (what a percent-decoded DELETE path
 * yields for them: they cannot be encoded as UTF-8, issue #13), then NFC, then trimmed, so any value that can be
 * added can also be removed, in any spelling that decodes to the same text.
 */
export function normaliseRiskValue(raw: string): string {
  return raw.replace(LONE_SURROGATE, '\uFFFD').normalize('NFC').trim();
}

function parseRiskValue(fields: Fields): string {
  const value = normaliseRiskValue(requireString(fields, 'value', 128));
  if (value === '') throw validationError('value', 'must not be blank');
  return value;
}

/** The ports the admin use cases touch. */
export type AdminDeps = Pick<ResolvedDeps,
  'accounts' | 'subscriptions' | 'developerConfigs' | 'commands' | 'tasks' | 'uow' | 'risk' | 'clock' | 'ids' | 'auditLog' | 'deliveries'>;

/** Platform operations behind ADMIN_TOKEN (DESIGN.md "Platform (admin) operations"). */
export class AdminUseCases implements AdminService {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: AdminDeps) {
    this.audit = new AuditTrail(deps);
  }

  async listPendingWebhooks(): Promise<PendingWebhookView[]> {
    const pending = await this.deps.developerConfigs.listPending();
    return pending.flatMap((c) => (c.pendingUrl === null ? [] : [{
      user_id: c.userId,
      pending_url: c.pendingUrl,
      pending_since: c.pendingSince === null ? null : formatIsoTime(c.pendingSince),
      url: c.url,
    }]));
  }

  /** body {url}: the exact URL reviewed; it goes live only while it is still the pending one (issue #35 item 5). */
  async approveWebhook(userId: string, body: unknown): Promise<WebhookStatusView> {
    const fields = fieldsOf(body);
    const extra = Object.keys(fields).find((key) => key !== 'url');
    if (extra !== undefined) throw validationError(extra, 'is not a known field');
    const url = requireString(fields, 'url', 2048);
    return this.review(userId, 'approved', (config, now) => approveWebhook(config, url, now));
  }

  async rejectWebhook(userId: string, body: unknown): Promise<WebhookStatusView> {
    const note = requireString(fieldsOf(body), 'note', MAX_NOTE);
    return this.review(userId, 'rejected', (config, now) => rejectWebhook(config, note, now));
  }

  /**
   * Cancels a PENDING/RUNNING command with nothing broadcast. A COLLECTION is cancellable only while its task is
   * PENDING: the task fails with error_code BIZ-COMMAND-CANCELLED, the command is CANCELLED and `collection.failed` is queued,
   * in one unit of work. Withdrawals emit no event on cancel (spec §6 has no status for it).
   */
  async cancelCommand(commandNo: string): Promise<CommandView> {
    return retryOnConflict(async () => {
      const command = await this.deps.commands.get(commandNo);
      if (command === null) throw new DomainError('BIZ-COMMAND-NOT-FOUND');
      const now = this.deps.clock.now();
      const status = commandTransition(command.status, 'cancel', { broadcast: commandBroadcast(command) });
      if (status === null) throw new DomainError('BIZ-COMMAND-NOT-CANCELLABLE');
      // A withdrawal awaiting its approver has its approval closed with it: the approver is never asked again.
      const approval = approvalOnCancel(command.approval, now);
      const cancelled: Command = { ...command, status, finishedAt: now, version: command.version + 1, ...(approval === undefined ? {} : { approval }) };
      if (command.type === COMMAND_TYPE.WITHDRAWAL) {
        // Lands with its entry in the account's audit log (decision 144).
        await this.audit.recordWith(() => this.deps.uow.commit({ commands: [cancelled] }), () => ({
          userId: command.userId, action: 'withdrawal.cancelled', actor: { kind: 'admin', id: null },
          detail: { command_no: command.commandNo, asset_symbol: command.assetSymbol, amount: command.params['amount'] ?? null, approval: command.approval?.state ?? null },
        }));
        return toCommandView(cancelled);
      }
      if (command.type !== COMMAND_TYPE.COLLECTION) {
        await this.deps.uow.commit({ commands: [cancelled] });
        return toCommandView(cancelled);
      }
      const task = await this.deps.tasks.get(command.params['task_no'] ?? '');
      if (task === null || task.status !== COLLECTION_STATUS.PENDING) throw new DomainError('BIZ-COMMAND-NOT-CANCELLABLE');
      const failedStatus = collectionTransition(task.status, 'unrecoverable-error', { assetKind: 'native', energyPath: null });
      if (failedStatus === null) throw new DomainError('BIZ-COMMAND-NOT-CANCELLABLE');
      const failed: CollectionTask = {
        ...task, status: failedStatus, errorCode: 'BIZ-COMMAND-CANCELLED', lastError: 'cancelled by the platform', finishedAt: now,
        lease: null, version: task.version + 1,
      };
      const event = collectionEvent(failed, this.deps.ids.uuid(), now);
      await this.deps.uow.commit({ commands: [cancelled], tasks: [failed], events: [event] });
      return toCommandView(cancelled);
    });
  }

  /** body {kind 'user'|'address', value, reason?}: adds or replaces a deny-list entry. */
  async denyRisk(body: unknown): Promise<RiskEntryView> {
    const fields = fieldsOf(body);
    const entry = { kind: parseKind(fields), value: parseRiskValue(fields), reason: optionalString(fields, 'reason', MAX_NOTE) };
    await this.deps.risk.deny(entry);
    return entry;
  }

  async allowRisk(body: unknown): Promise<{ readonly removed: boolean }> {
    const fields = fieldsOf(body);
    const kind = parseKind(fields);
    const value = parseRiskValue(fields);
    if (await this.deps.risk.allow(kind, value)) return { removed: true };
    // An entry stored before values were normalised is still found under its exact spelling.
    const raw = requireString(fields, 'value', 128);
    return { removed: raw !== value && (await this.deps.risk.allow(kind, raw)) };
  }

  async listRisk(): Promise<RiskEntryView[]> {
    return (await this.deps.risk.list()).map((e) => ({ kind: e.kind, value: e.value, reason: e.reason }));
  }

  /**
   * The failed workflows of every account (issue #38 item 2, the operator console): the FAILED commands of each type and
   * the FAILED collection tasks that finished within the last `days` (1 to 30, default 7), newest first with their
   * error code and last error, and the count of collection tasks per status. Each list is read up to
   * FAILED_WORKFLOW_LIMIT rows (from the oldest finish: the ports' cross-account read); `truncated` says when one hit it.
   */
  async listFailedWorkflows(query: Readonly<Record<string, string | undefined>>): Promise<FailedWorkflowsView> {
    const days = optionalInteger(query, 'days') ?? FAILED_WORKFLOW_DAYS.default;
    if (days < 1 || days > FAILED_WORKFLOW_DAYS.max) throw validationError('days', `must be an integer from 1 to ${FAILED_WORKFLOW_DAYS.max}`);
    const since = this.deps.clock.now() - days * DAY_MS;
    const [commandLists, tasks, counts] = await Promise.all([
      Promise.all([...COMMAND_TYPE_NAMES.keys()].map((type) => this.deps.commands.listFinishedSince(
        type as Command['type'], COMMAND_STATUS.FAILED, since, FAILED_WORKFLOW_LIMIT,
      ))),
      this.deps.tasks.listFinishedSince(COLLECTION_STATUS.FAILED, since, FAILED_WORKFLOW_LIMIT),
      this.deps.tasks.countByStatus(),
    ]);
    const time = (at: number | null): string | null => (at === null ? null : formatIsoTime(at));
    const items: Array<FailedWorkflowView & { readonly at: number }> = [
      ...commandLists.flat().map((c) => ({
        kind: 'command' as const, id: c.commandNo, user_id: c.userId, type: COMMAND_TYPE_NAMES.get(c.type) ?? String(c.type),
        address: c.address, error_code: c.errorCode, last_error: c.lastError, finished_at: time(c.finishedAt), at: c.finishedAt ?? 0,
      })),
      ...tasks.map((t) => ({
        kind: 'collection' as const, id: t.taskNo, user_id: t.userId, type: 'COLLECTION', address: t.address,
        error_code: t.errorCode, last_error: t.lastError, finished_at: time(t.finishedAt), at: t.finishedAt ?? 0,
      })),
    ];
    items.sort((a, b) => b.at - a.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return {
      since: formatIsoTime(since),
      items: items.map(({ at: _at, ...item }) => item),
      truncated: tasks.length >= FAILED_WORKFLOW_LIMIT || commandLists.some((l) => l.length >= FAILED_WORKFLOW_LIMIT),
      collections_by_status: Object.fromEntries([...counts].map(([status, n]) => [COLLECTION_STATUS_NAMES.get(status) ?? String(status), n])),
    };
  }

  /**
   * The DEAD webhook deliveries of every account, newest first, one page (query page, per_page as the delivery log's):
   * the operator console's view (issue #38 item 2). No payload: the merchant's own log (GET /webhooks/deliveries) has
   * it, and the redelivery is the merchant's.
   */
  async listDeadDeliveries(query: Readonly<Record<string, string | undefined>>): Promise<ItemsPage<DeadDeliveryView>> {
    const page = parsePageQuery(fieldsOf(query, 'query'), 'standard');
    const found = await this.deps.deliveries.listByStatus(DELIVERY_STATUS.DEAD, page);
    const items = found.items.map((d): DeadDeliveryView => {
      const last = d.attempts.at(-1);
      return {
        delivery_id: d.deliveryId, user_id: d.userId, event_type: d.eventType, url: d.url, attempts: d.attempts.length,
        last_attempt_at: last === undefined ? null : formatIsoTime(last.at), last_http_status: last?.httpStatus ?? null,
        last_error: last?.error ?? null, created_at: formatIsoTime(d.createdAt),
      };
    });
    return toItemsPage(items, found.total, page.page, page.perPage);
  }

  /** body {max_sub_addresses}: an integer ≥ -1 (-1 unlimited) written over the sub_address subscription's meta. */
  async setQuota(userId: string, body: unknown): Promise<QuotaView> {
    const max = fieldsOf(body)['max_sub_addresses'];
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < -1) {
      throw validationError('max_sub_addresses', 'must be an integer of at least -1');
    }
    const id = await this.existingUser(userId);
    return retryOnConflict(async () => {
      const sub = await this.deps.subscriptions.find(id, 'sub_address');
      if (sub === null || sub.status !== 'active') throw new DomainError('BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED');
      await this.deps.subscriptions.save({ ...sub, meta: { ...sub.meta, maxSubAddresses: max }, version: sub.version + 1 });
      return { user_id: id, max_sub_addresses: max };
    });
  }

  private async existingUser(raw: string): Promise<UserId> {
    const id = parseIdParam(raw, 'user_id');
    if (id === null || (await this.deps.accounts.findById(id)) === null) throw new DomainError('BIZ-USER-NOT-FOUND');
    return id;
  }

  private async review(
    userId: string, decision: 'approved' | 'rejected', decide: (config: DeveloperConfig, now: number) => DeveloperConfig,
  ): Promise<WebhookStatusView> {
    const id = await this.existingUser(userId);
    const view = await retryOnConflict(async () => {
      const config = await this.deps.developerConfigs.get(id);
      if (config === null) throw new DomainError('BIZ-WEBHOOK-NOT-PENDING');
      const next = { ...decide(config, this.deps.clock.now()), version: config.version + 1 };
      await this.audit.recordWith(
        () => this.deps.developerConfigs.save(next),
        // The URL in full (issue #35 items 5 and 8): the entry says exactly which URL was approved or rejected.
        () => ({ userId: id, action: 'webhook.url_reviewed', actor: { kind: 'admin', id: null }, detail: { decision, url: config.pendingUrl } }),
      );
      return webhookView(next);
    });
    return view;
  }
}
