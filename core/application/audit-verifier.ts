import { AUDIT_CHAIN_START, checkNextAuditEntry, type AuditBreak, type AuditCursor } from '../domain/audit-chain.js';
import type { UserId } from '../domain/model/common.js';
import type { AuditLog } from '../ports/audit-log.port.js';

/** How many entries (and accounts) one read of the store takes: a long chain is checked without holding it all. */
const READ_BATCH = 500;

/** One account's chain as checked: its head, or the first entry that breaks it. */
export type AuditChainReport =
  | { readonly userId: UserId; readonly ok: true; readonly count: number; readonly head: AuditCursor }
  | { readonly userId: UserId; readonly ok: false; readonly seq: number; readonly reason: AuditBreak; readonly checked: number };

/**
 * Checks one account's chain in the store from its first entry (core/domain/audit-chain.ts), reading READ_BATCH
 * entries at a time. With `anchor` (a head noted earlier), a chain that no longer holds it is reported as
 * head-mismatch at the anchored seq (a truncation or a rewritten prefix).
 */
export async function verifyStoredAuditChain(log: Pick<AuditLog, 'readChain'>, userId: UserId, anchor?: AuditCursor): Promise<AuditChainReport> {
  let cursor = AUDIT_CHAIN_START;
  let count = 0;
  let anchorSeen = anchor === undefined;
  for (;;) {
    const batch = await log.readChain(userId, cursor.seq, READ_BATCH);
    for (const entry of batch) {
      const next = checkNextAuditEntry(userId, cursor, entry);
      if ('reason' in next) return { userId, ok: false, seq: next.seq, reason: next.reason, checked: count };
      cursor = next;
      count += 1;
      if (anchor !== undefined && cursor.seq === anchor.seq) {
        if (cursor.hash !== anchor.hash) return { userId, ok: false, seq: anchor.seq, reason: 'head-mismatch', checked: count };
        anchorSeen = true;
      }
    }
    if (batch.length < READ_BATCH) break;
  }
  if (!anchorSeen) return { userId, ok: false, seq: anchor!.seq, reason: 'head-mismatch', checked: count };
  return { userId, ok: true, count, head: cursor };
}

/**
 * Checks every account's chain in the store, in account order, handing each report to `report` as it is made;
 * `anchors` maps account ids to heads noted earlier. Resolves to the number of broken chains. An account anchored
 * but absent from the store (its whole log deleted) is reported broken too.
 */
export async function verifyAllAuditChains(
  log: Pick<AuditLog, 'readChain' | 'listAccounts'>,
  report: (result: AuditChainReport) => void | Promise<void>,
  anchors: ReadonlyMap<UserId, AuditCursor> = new Map(),
): Promise<number> {
  let broken = 0;
  const seen = new Set<UserId>();
  let after = 0;
  for (;;) {
    const accounts = await log.listAccounts(after, READ_BATCH);
    for (const userId of accounts) {
      seen.add(userId);
      const result = await verifyStoredAuditChain(log, userId, anchors.get(userId));
      if (!result.ok) broken += 1;
      await report(result);
    }
    if (accounts.length < READ_BATCH) break;
    after = accounts[accounts.length - 1]!;
  }
  for (const userId of [...anchors.keys()].sort((a, b) => a - b)) {
    if (seen.has(userId)) continue;
    broken += 1;
    await report({ userId, ok: false, seq: 1, reason: 'head-mismatch', checked: 0 });
  }
  return broken;
}
