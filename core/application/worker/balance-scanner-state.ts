/**
 * The balance scanner's bookkeeping, pure (no I/O): what a processed block adds, what a reorg takes back, which
 * addresses need their final balances read, and what balance an address shows.
 *
 * The rule: an address shows its final balances (read from the solidified state at block `anchor.at`) plus the
 * changes of every processed, not-yet-final block after `anchor.at`. The state keeps the invariant that makes this
 * exact: for every anchored address, each block after its anchor that changed it is still in `unfinal`. Blocks
 * leave `unfinal` only once final and once every address they changed is anchored at or after them; `final` is the
 * newest block that left, so a final read older than `final` cannot be bridged and is refused.
 */
import type { BalanceChange, BlockId, BlockTransfer, ChainBlock } from '../../ports/block-source.port.js';
import type { BalanceAnchor, ScanCheckpoint, UnfinalBlock } from '../../ports/scan-cursor-store.port.js';

/** The working copy of a checkpoint during a pass. */
export interface ScanState {
  block: BlockId;
  recent: BlockId[];
  unfinal: UnfinalBlock[];
  anchors: Map<string, BalanceAnchor>;
  /** The newest block known final whose changes were folded away (or the block before the start). */
  final: number;
}

/** A fresh state for a scanner that starts at block `start` (nothing before it is known). */
export function freshState(start: number): ScanState {
  return { block: { number: start - 1, hash: '' }, recent: [], unfinal: [], anchors: new Map(), final: start - 1 };
}

/** The working state of a stored checkpoint. */
export function fromCheckpoint(c: ScanCheckpoint): ScanState {
  return { block: c.block, recent: [...c.recent], unfinal: [...c.unfinal], anchors: new Map(c.anchors.map((a) => [a.address, a])), final: c.final };
}

/** The checkpoint to store, keeping at most `window` recent block ids and `maxAnchors` anchors (the busiest kept). */
export function toCheckpoint(s: ScanState, window: number, maxAnchors: number): ScanCheckpoint {
  const needed = new Set(s.unfinal.flatMap((u) => u.changes.map((c) => c.address)));
  const anchors = [...s.anchors.values()];
  // Anchors still bridging an unfinal change stay; of the others the most recently read are kept, up to the cap.
  const spare = anchors.filter((a) => !needed.has(a.address)).sort((a, b) => b.at - a.at).slice(0, Math.max(0, maxAnchors - needed.size));
  return {
    block: s.block,
    recent: s.recent.slice(-window),
    final: s.final,
    unfinal: s.unfinal,
    anchors: [...anchors.filter((a) => needed.has(a.address)), ...spare],
  };
}

/**
 * Records a processed block as the new cursor. Only a block that changed a managed address is kept in `unfinal`
 * (there is nothing else to add or undo); every block's id goes to `recent` for finding fork points.
 */
export function applyBlock(
  s: ScanState, block: ChainBlock, changes: readonly BalanceChange[], deposits: readonly BlockTransfer[], uncertain: readonly string[] = [],
): void {
  if (changes.length > 0 || deposits.length > 0) s.unfinal.push({ number: block.number, hash: block.hash, changes, deposits, uncertain });
  s.recent.push({ number: block.number, hash: block.hash });
  s.block = { number: block.number, hash: block.hash };
}

/** The hash the state recorded for block `n`, '' when unknown (before the window, or a legacy cursor). */
export function recordedHash(s: ScanState, n: number): string | null {
  const found = s.recent.find((b) => b.number === n);
  return found === undefined ? null : found.hash;
}

/** What a rollback undid. */
export interface Rollback {
  readonly replaced: readonly UnfinalBlock[];
  /** Addresses whose shown balance changed: they changed in a replaced block, or their anchor was past the fork. */
  readonly addresses: readonly string[];
}

/** Undoes every processed block after `fork` (a reorg replaced them): the cursor goes back to the fork point. */
export function rollback(s: ScanState, fork: number): Rollback {
  const replaced = s.unfinal.filter((u) => u.number > fork);
  const addresses = new Set(replaced.flatMap((u) => u.changes.map((c) => c.address)));
  s.unfinal = s.unfinal.filter((u) => u.number <= fork);
  s.recent = s.recent.filter((b) => b.number <= fork);
  s.block = s.recent.at(-1)?.number === fork ? s.recent.at(-1)! : { number: fork, hash: '' };
  // An anchor read past the fork came from a state that no longer exists (only a reorg below the solidified block,
  // an anomaly, can do that): forget it, so the address is read again.
  for (const [address, anchor] of s.anchors) {
    if (anchor.at > fork) {
      s.anchors.delete(address);
      addresses.add(address);
    }
  }
  s.final = Math.min(s.final, fork);
  return { replaced, addresses: [...addresses] };
}

/**
 * Addresses whose final balances must be read now: `touched` ones with no anchor (nothing to add changes to), and
 * those a final block (at or before `solid`) changed uncertainly after their anchor.
 */
export function dueForFinalRead(s: ScanState, touched: Iterable<string>, solid: number): string[] {
  const due = new Set<string>();
  for (const address of touched) if (!s.anchors.has(address)) due.add(address);
  for (const u of s.unfinal) {
    if (u.number > solid) break;
    for (const address of u.uncertain) if ((s.anchors.get(address)?.at ?? -1) < u.number) due.add(address);
  }
  return [...due].sort();
}

/** Stores final balances read at solidified block `at`. */
export function anchor(s: ScanState, address: string, at: number, balances: ReadonlyMap<string | null, bigint>): void {
  s.anchors.set(address, { address, at, balances: [...balances].map(([contract, amount]) => ({ contract, amount })) });
}

/**
 * Lets go of the blocks that are final (at or before `solid`), oldest first: their exact changes are carried into
 * the anchors they follow (which move to that block), and a block goes once every address it changed is anchored at
 * or after it. An address changed uncertainly, or not anchored at all, keeps its block until a read absorbs it.
 */
export function settle(s: ScanState, solid: number): void {
  const kept: UnfinalBlock[] = [];
  for (const u of s.unfinal) {
    if (u.number > solid) {
      kept.push(u);
      continue;
    }
    const stuck = new Set(u.uncertain);
    for (const address of new Set(u.changes.map((c) => c.address))) {
      const base = s.anchors.get(address);
      if (base === undefined || stuck.has(address) && base.at < u.number) {
        stuck.add(address);
        continue;
      }
      if (base.at >= u.number) continue;
      const balances = new Map(base.balances.map((b) => [b.contract, b.amount]));
      for (const c of u.changes) if (c.address === address) balances.set(c.contract, (balances.get(c.contract) ?? 0n) + c.delta);
      s.anchors.set(address, { address, at: u.number, balances: [...balances].map(([contract, amount]) => ({ contract, amount })) });
    }
    if ([...stuck].some((a) => (s.anchors.get(a)?.at ?? -1) < u.number)) kept.push(u);
    else s.final = Math.max(s.final, u.number);
  }
  s.unfinal = kept;
}

/** The balance an address shows, per asset (`contracts` in order): its anchor plus the unfinal changes after it. */
export function shown(s: ScanState, address: string, contracts: readonly (string | null)[]): Map<string | null, bigint> | null {
  const base = s.anchors.get(address);
  if (base === undefined) return null;
  const out = new Map<string | null, bigint>(contracts.map((c) => [c, base.balances.find((b) => b.contract === c)?.amount ?? 0n]));
  for (const u of s.unfinal) {
    if (u.number <= base.at) continue;
    for (const c of u.changes) if (c.address === address && out.has(c.contract)) out.set(c.contract, out.get(c.contract)! + c.delta);
  }
  return out;
}

/**
 * Forgets an address's anchor whose balances come out below zero (issue #34): no chain balance ever does, so the read
 * it came from missed a credit (a devnet mint after that solidified block; on any chain, a read from a node behind).
 * Every unfinal block after it that changed the address is marked uncertain for it, so a final read at or after that
 * block replaces it (dueForFinalRead) and the block stays until then (settle); meanwhile the address shows nothing new.
 */
export function unanchor(s: ScanState, address: string): void {
  const at = s.anchors.get(address)?.at ?? -1;
  s.anchors.delete(address);
  s.unfinal = s.unfinal.map((u) => (u.number > at && u.changes.some((c) => c.address === address) && !u.uncertain.includes(address)
    ? { ...u, uncertain: [...u.uncertain, address] } : u));
}
