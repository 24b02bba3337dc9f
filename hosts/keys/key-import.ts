import { timingSafeEqual, type KeyObject } from 'node:crypto';
import { ADDRESS_STATUS, ADDRESS_TYPE, type WalletAddress } from '../../core/domain/model/wallet.js';
import type { KeyCipher } from '../../core/ports/key-cipher.port.js';
import { openSignedBackup } from './backup-signature.js';
import type { WalletKeyStore } from '../../core/ports/wallet-key-store.port.js';
import { openBackup, openKey, tronAddressOf, type BackupEntry, type BackupWallet } from './key-backup.js';
import { KeyBackupError } from './key-backup-error.js';

/** How keys:import may write. */
export interface ImportOptions {
  /**
   * `--restore-empty-store`: the store holds no wallet (the database is lost) and every wallet of the backup is
   * written back. Without it, only wallets the store already holds (same address, wallet id and user) are touched.
   */
  readonly restoreEmptyStore: boolean;
}

/** What an import would do, decided before anything is written (issue #35 item 6: the dry-run diff). */
export interface ImportPlan {
  /** Written as new wallet records, the key under the store's current KEK (only with restoreEmptyStore). */
  readonly restore: readonly { readonly wallet: BackupWallet; readonly address: string; readonly key: string }[];
  /** Stored under a KEK this store no longer has: the key is wrapped again under the current one. */
  readonly rewrap: readonly { readonly existing: WalletAddress; readonly key: string }[];
  /** Already stored with the same key. */
  readonly unchanged: number;
  /** Never written: an address, wallet or user the store does not know, or holds otherwise. */
  readonly refused: readonly { readonly address: string; readonly reason: string }[];
}

/** What keys:import did, per address. */
export interface ImportReport {
  readonly restored: number;
  readonly unchanged: number;
  readonly rewrapped: number;
  /** Not written: the plan's refusals, then what changed under the import (an id taken meanwhile, a key replaced). */
  readonly conflicts: readonly { readonly address: string; readonly reason: string }[];
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Checks one entry's shape and that its key derives its address; the problem (never the key) or null. */
function entryProblem(entry: BackupEntry): string | null {
  const w = entry.wallet as Partial<BackupWallet> | undefined;
  if (typeof entry.address !== 'string' || typeof entry.private_key !== 'string' || w === undefined) return 'malformed entry';
  if (!Number.isSafeInteger(w.id) || !Number.isSafeInteger(w.user_id) || w.network_code !== 'TRON'
    || !Object.values(ADDRESS_TYPE).includes(w.address_type as 1) || !Object.values(ADDRESS_STATUS).includes(w.status as 1)
    || !Number.isSafeInteger(w.created_at)) return 'malformed wallet record';
  if (tronAddressOf(entry.private_key) !== entry.address) return 'its private key does not derive this address';
  return null;
}

/**
 * Decides what restoring a signed backup would do, writing nothing. The signature is checked first, with the
 * operator's public verify key (backup-signature.ts): a file keys:export did not sign is refused before it is even
 * decrypted, since the age recipient is public and anyone can encrypt to it. Then every entry is checked (shape, and
 * its key deriving its address): one mismatch refuses the whole file. Then per address, against the store:
 * - restoreEmptyStore: the store must hold no wallet at all (else KeyBackupError), and every entry is restored;
 * - otherwise only wallets the store holds are touched (the same address, wallet id and user): the same key is
 *   `unchanged`, a key under a lost KEK is `rewrap`ped; an address the store does not hold, or holds as another
 *   wallet or user or with another key, is refused. So a file can never bring a key in as somebody's new address.
 */
export async function planImport(
  store: WalletKeyStore, cipher: KeyCipher, signedText: string, identityFile: string, verifyKey: KeyObject, options: ImportOptions,
): Promise<ImportPlan> {
  const file = await openBackup(openSignedBackup(signedText, verifyKey), identityFile);
  for (const entry of file.keys) {
    const problem = entryProblem(entry);
    if (problem !== null) throw new KeyBackupError(`refused ${String(entry.address).slice(0, 40)}: ${problem}; nothing imported`);
  }
  if (options.restoreEmptyStore) {
    if ((await store.list(0, 1)).length > 0) {
      throw new KeyBackupError('--restore-empty-store restores only into a store that holds no wallet, and this one holds some; nothing imported');
    }
    return { restore: file.keys.map((e) => ({ wallet: e.wallet, address: e.address, key: e.private_key })), rewrap: [], unchanged: 0, refused: [] };
  }
  const rewrap: { existing: WalletAddress; key: string }[] = [];
  const refused: { address: string; reason: string }[] = [];
  let unchanged = 0;
  for (const { address, private_key: key, wallet: w } of file.keys) {
    const existing = await store.findByAddress(address);
    if (existing === null) {
      refused.push({ address, reason: `the store holds no wallet at this address (the backup says wallet ${w.id} of user ${w.user_id}); `
        + 'new wallets are restored only into an empty store (--restore-empty-store)' });
      continue;
    }
    if (existing.userId !== w.user_id || existing.id !== w.id) {
      refused.push({ address, reason: `stored as wallet ${existing.id} of user ${existing.userId}, the backup says wallet ${w.id} of user ${w.user_id}` });
      continue;
    }
    const stored = await openKey(cipher, existing);
    if (stored === null) rewrap.push({ existing, key });
    else if (sameText(stored, key)) unchanged += 1;
    else refused.push({ address, reason: 'the store holds another key for this address' });
  }
  return { restore: [], rewrap, unchanged, refused };
}

/** The plan as keys:import prints it: addresses, ids and counts, never a key. */
export function planView(plan: ImportPlan, applying: boolean): Record<string, unknown> {
  return {
    dry_run: !applying,
    restore: plan.restore.map((r) => ({ address: r.address, wallet_id: r.wallet.id, user_id: r.wallet.user_id, address_type: r.wallet.address_type })),
    rewrap: plan.rewrap.map((r) => r.existing.address),
    unchanged: plan.unchanged,
    refused: plan.refused,
  };
}

/** Carries out a plan: restores (insert, never over an existing record) and rewraps (compare-and-set). */
export async function applyImport(store: WalletKeyStore, cipher: KeyCipher, plan: ImportPlan): Promise<ImportReport> {
  let restored = 0;
  let rewrapped = 0;
  const conflicts = [...plan.refused];
  for (const { address, key, wallet: w } of plan.restore) {
    const record: WalletAddress = {
      id: w.id, userId: w.user_id, networkCode: 'TRON', address, addressType: w.address_type as WalletAddress['addressType'],
      label: w.label, status: w.status as WalletAddress['status'], createdAt: w.created_at, version: 1,
      encryptedKey: await cipher.encrypt(new TextEncoder().encode(key), address),
    };
    if (await store.insert(record)) restored += 1;
    else conflicts.push({ address, reason: `wallet id ${w.id} or the user's main address is taken by another address` });
  }
  for (const { existing, key } of plan.rewrap) {
    const next = await cipher.encrypt(new TextEncoder().encode(key), existing.address);
    if (await store.replaceKey(existing.id, existing.encryptedKey, next)) rewrapped += 1;
    else conflicts.push({ address: existing.address, reason: 'the stored key changed during the import; run it again' });
  }
  return { restored, unchanged: plan.unchanged, rewrapped, conflicts };
}
