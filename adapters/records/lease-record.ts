import type { SplitSpec } from './record-descriptor.js';

/*
 * A worker's lease, as every claimed record stores it (collection tasks, commands, webhook deliveries). A module of
 * its own: the command and collection-task records import each other's codecs, and a descriptor built at module
 * load must not reach into a module of that cycle that has not run yet.
 */

/** A worker's lease as stored: owner and expiry in epoch ms. */
export interface StoredLease {
  owner: string;
  expiresAt: number;
}

/** A lease in the two columns a claim filters on, `<prefix>_owner` and `<prefix>_expires_at` (no owner: none). */
export function leaseColumns(prefix = 'lease'): SplitSpec<StoredLease | null> {
  return {
    columns: [`${prefix}_owner`, `${prefix}_expires_at`],
    split: (lease) => [lease?.owner ?? null, lease?.expiresAt ?? null],
    join: ([owner, expiresAt]) => (owner === null || owner === undefined ? null : { owner: owner as string, expiresAt: expiresAt as number }),
  };
}

/** Domain value -> stored record: pure, a fresh object (amounts, where any, as decimal strings). */
export function toStoredLease(lease: { readonly owner: string; readonly expiresAt: number } | null): StoredLease | null {
  return lease === null ? null : { owner: lease.owner, expiresAt: lease.expiresAt };
}

/** Stored record -> domain value; null and a missing field both read as null. */
export function fromStoredLease(doc: StoredLease | null | undefined): { owner: string; expiresAt: number } | null {
  return doc === null || doc === undefined ? null : { owner: doc.owner, expiresAt: doc.expiresAt };
}
