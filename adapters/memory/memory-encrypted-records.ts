import type { Account, DeveloperConfig, EncryptedEnvelope, WalletAddress } from '../../core/domain/model/index.js';
import type { EncryptedRecord, EncryptedRecordStore, RecordCursor } from '../../core/ports/encrypted-record-store.port.js';
import { storedCopy } from './frozen-copy.js';
import type { MemoryStore } from './memory-store.js';

/** A kind of secret in the memory tables: its rows by numeric id, its envelope, its aad, and a row with a new one. */
interface Source<R> {
  rows(store: MemoryStore): Iterable<[number, R]>;
  get(store: MemoryStore, id: number): R | undefined;
  envelope(row: R): EncryptedEnvelope | null | undefined;
  aad(id: number, row: R): string;
  put(store: MemoryStore, id: number, row: R, next: EncryptedEnvelope): void;
}

const wallets: Source<WalletAddress> = {
  rows: (store) => store.wallets.entries(),
  get: (store, id) => store.wallets.get(id),
  envelope: (w) => w.encryptedKey,
  aad: (_id, w) => w.address,
  put: (store, id, w, next) => store.wallets.set(id, storedCopy({ ...w, encryptedKey: next, version: w.version + 1 })),
};
const configs: Source<DeveloperConfig> = {
  rows: (store) => store.developerConfigs.entries(),
  get: (store, id) => store.developerConfigs.get(id),
  envelope: (c) => c.secret,
  aad: (id) => `webhook-secret:${id}`,
  put: (store, id, c, next) => store.developerConfigs.set(id, storedCopy({ ...c, secret: next, version: c.version + 1 })),
};
const accounts: Source<Account> = {
  rows: (store) => store.accounts.entries(),
  get: (store, id) => store.accounts.get(id),
  envelope: (a) => a.twoFactor?.secret,
  aad: (id) => `totp:${id}`,
  put: (store, id, a, next) => store.accounts.set(id, storedCopy({ ...a, twoFactor: { ...a.twoFactor!, secret: next }, version: a.version + 1 })),
};

const SOURCES: { readonly [K in EncryptedRecord['kind']]: Source<never> } = {
  'wallet-key': wallets as Source<never>, 'webhook-secret': configs as Source<never>, 'totp-secret': accounts as Source<never>,
};
const KINDS = ['wallet-key', 'webhook-secret', 'totp-secret'] as const;

const sameEnvelope = (a: EncryptedEnvelope, b: EncryptedEnvelope): boolean => a.keyId === b.keyId && a.iv === b.iv && a.ciphertext === b.ciphertext;

/**
 * The EncryptedRecordStore port in memory (the reference of contracts-tests/encrypted-record-store.contract.ts): the
 * wallets' keys, the developer configurations' webhook secrets and the accounts' TOTP secrets of one MemoryStore. A
 * replace bumps the row's version, as on PostgreSQL.
 */
export class MemoryEncryptedRecords implements EncryptedRecordStore {
  constructor(private readonly store: MemoryStore) {}

  async list(after: RecordCursor | null, limit: number): Promise<EncryptedRecord[]> {
    const out: EncryptedRecord[] = [];
    for (const kind of KINDS) {
      if (after !== null && KINDS.indexOf(kind) < KINDS.indexOf(after.kind)) continue;
      const source = SOURCES[kind] as Source<unknown>;
      const from = after !== null && after.kind === kind ? Number(after.id) : -1;
      const rows = [...source.rows(this.store)].filter(([id, row]) => id > from && source.envelope(row) != null).sort((a, b) => a[0] - b[0]);
      for (const [id, row] of rows.slice(0, limit - out.length)) {
        const { keyId, iv, ciphertext, tag } = source.envelope(row)!;
        out.push({ kind, id: String(id), aad: source.aad(id, row), envelope: { keyId, iv, ciphertext, tag } });
      }
      if (out.length >= limit) break;
    }
    return out;
  }

  async replace(record: EncryptedRecord, next: EncryptedEnvelope): Promise<boolean> {
    const source = SOURCES[record.kind] as Source<unknown>;
    const id = Number(record.id);
    const row = source.get(this.store, id);
    const held = row === undefined ? null : source.envelope(row);
    if (row === undefined || held == null || !sameEnvelope(held, record.envelope)) return false;
    const { keyId, iv, ciphertext, tag } = next;
    source.put(this.store, id, row, { keyId, iv, ciphertext, tag });
    return true;
  }
}
