import type { ScanCheckpoint } from '../../core/ports/scan-cursor-store.port.js';
import { decodeMoney, encodeMoney } from './record-support.js';

/**
 * A chain scanner's checkpoint as stored (`scan_cursors.checkpoint`): the port's ScanCheckpoint with every amount a
 * decimal integer string. Nothing in it is queried, so a store keeps it whole (a JSONB column, a sub-document).
 */
export interface StoredScanCheckpoint {
  /** The chain's genesis block id; absent on checkpoints written before it was recorded. */
  genesis?: string;
  block: { number: number; hash: string };
  recent: { number: number; hash: string }[];
  final: number;
  unfinal: {
    number: number;
    hash: string;
    changes: { address: string; contract: string | null; delta: string }[];
    deposits: { id: string; txid: string; contract: string | null; internal: boolean; from: string; to: string; amount: string }[];
    /** Absent on checkpoints written before uncertain blocks were tracked. */
    uncertain?: string[];
  }[];
  anchors: { address: string; at: number; balances: { contract: string | null; amount: string }[] }[];
}

/** Domain value -> stored record: pure, a fresh object, amounts as decimal strings. */
export function toStoredScanCheckpoint(c: ScanCheckpoint): StoredScanCheckpoint {
  return {
    ...(c.genesis === undefined ? {} : { genesis: c.genesis }),
    block: { number: c.block.number, hash: c.block.hash },
    recent: c.recent.map((b) => ({ number: b.number, hash: b.hash })),
    final: c.final,
    unfinal: c.unfinal.map((u) => ({
      number: u.number,
      hash: u.hash,
      changes: u.changes.map((ch) => ({ address: ch.address, contract: ch.contract, delta: encodeMoney(ch.delta) })),
      deposits: u.deposits.map((d) => ({
        id: d.id, txid: d.txid, contract: d.contract, internal: d.internal, from: d.from, to: d.to, amount: encodeMoney(d.amount),
      })),
      uncertain: [...u.uncertain],
    })),
    anchors: c.anchors.map((a) => ({
      address: a.address, at: a.at, balances: a.balances.map((b) => ({ contract: b.contract, amount: encodeMoney(b.amount) })),
    })),
  };
}

/** Stored record -> domain value (a fresh object); a malformed amount is a store fault, not a zero. */
export function fromStoredScanCheckpoint(c: StoredScanCheckpoint): ScanCheckpoint {
  return {
    ...(typeof c.genesis === 'string' ? { genesis: c.genesis } : {}),
    block: { number: c.block.number, hash: c.block.hash },
    recent: c.recent.map((b) => ({ number: b.number, hash: b.hash })),
    final: c.final,
    unfinal: c.unfinal.map((u) => ({
      number: u.number,
      hash: u.hash,
      changes: u.changes.map((ch) => ({ address: ch.address, contract: ch.contract, delta: decodeMoney(ch.delta, 'scan change') })),
      deposits: u.deposits.map((d) => ({
        id: d.id, txid: d.txid, contract: d.contract, internal: d.internal, from: d.from, to: d.to, amount: decodeMoney(d.amount, 'scan deposit'),
      })),
      uncertain: [...(u.uncertain ?? [])],
    })),
    anchors: c.anchors.map((a) => ({
      address: a.address, at: a.at, balances: a.balances.map((b) => ({ contract: b.contract, amount: decodeMoney(b.amount, 'scan anchor') })),
    })),
  };
}
