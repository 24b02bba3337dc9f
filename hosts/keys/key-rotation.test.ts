import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AesGcmKeyCipher } from '../../adapters/node/index.js';
import type { EncryptedEnvelope } from '../../core/domain/model/common.js';
import { rotateKeys, type EncryptedRecord, type EncryptedRecordStore, type RecordCursor } from './key-rotation.js';

const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');
/** The deployment before rotation (k1 current) and during it (k2 current, k1 still readable). */
const before = AesGcmKeyCipher.fromConfig(`k1:${OLD}`);
const during = (): AesGcmKeyCipher => AesGcmKeyCipher.fromConfig(`k2:${NEW},k1:${OLD}`);
const retired = AesGcmKeyCipher.fromConfig(`k2:${NEW}`);

/**
 * A store of records as a list (why not the repositories: rotation walks every secret, which no core port offers;
 * MongoEncryptedRecords implements the same interface over the collections). `crash` makes the n-th write fail
 * either before or after it lands, as a process killed there would.
 */
class ListStore implements EncryptedRecordStore {
  writes = 0;
  constructor(readonly records: EncryptedRecord[], private readonly crash: { at: number; after: boolean } | null = null) {}

  async list(after: RecordCursor | null, limit: number): Promise<EncryptedRecord[]> {
    const key = (r: { kind: string; id: string }): string => `${r.kind}\u0000${r.id.padStart(12, '0')}`;
    return [...this.records].sort((a, b) => key(a).localeCompare(key(b)))
      .filter((r) => after === null || key(r) > key(after)).slice(0, limit);
  }

  async replace(record: EncryptedRecord, next: EncryptedEnvelope): Promise<boolean> {
    const index = this.records.findIndex((r) => r.kind === record.kind && r.id === record.id);
    const stored = this.records[index]!;
    const crashing = this.crash !== null && this.writes === this.crash.at;
    this.writes += 1;
    if (crashing && !this.crash!.after) throw new Error('crash before the write');
    if (stored.envelope.iv !== record.envelope.iv || stored.envelope.ciphertext !== record.envelope.ciphertext) return false;
    this.records[index] = { ...stored, envelope: next };
    if (crashing) throw new Error('crash after the write');
    return true;
  }
}

/** 7 wallet keys and 3 webhook secrets: half under k1 (before rotation began), half already under k2. */
async function seed(): Promise<{ records: EncryptedRecord[]; plain: Map<string, string> }> {
  const records: EncryptedRecord[] = [];
  const plain = new Map<string, string>();
  for (let i = 1; i <= 10; i++) {
    const kind = i <= 7 ? 'wallet-key' as const : 'webhook-secret' as const;
    const aad = kind === 'wallet-key' ? `TAddress${i}` : `webhook-secret:${i}`;
    const secret = randomBytes(32).toString('hex');
    const cipher = i % 2 === 0 ? during() : before;
    records.push({ kind, id: String(i), aad, envelope: await cipher.encrypt(new TextEncoder().encode(secret), aad) });
    plain.set(`${kind}:${i}`, secret);
  }
  return { records, plain };
}

async function expectAllUnderNewKey(records: readonly EncryptedRecord[], plain: Map<string, string>): Promise<void> {
  for (const r of records) {
    expect(r.envelope.keyId).toBe('k2');
    // Readable with the old KEK retired: the point of rotating.
    expect(new TextDecoder().decode(await retired.decrypt(r.envelope, r.aad))).toBe(plain.get(`${r.kind}:${r.id}`));
  }
}

describe('rotateKeys (npm run keys:rotate)', () => {
  it('re-wraps every private key and webhook secret under the newest KEK, verified, and a second run changes nothing', async () => {
    const { records, plain } = await seed();
    const store = new ListStore(records);
    expect(await rotateKeys(store, during(), { batch: 3 })).toEqual({ rewrapped: 5, current: 5, raced: 0, unreadable: [] });
    await expectAllUnderNewKey(store.records, plain);
    const snapshot = JSON.stringify(store.records);
    expect(await rotateKeys(store, during(), { batch: 3 })).toEqual({ rewrapped: 0, current: 10, raced: 0, unreadable: [] });
    expect(JSON.stringify(store.records)).toBe(snapshot);
  });

  it('resumes after a crash at every write, before or after it lands: each record is old or new, never lost, and a re-run finishes', async () => {
    for (const after of [false, true]) {
      for (let at = 0; at < 5; at++) {
        const { records, plain } = await seed();
        const store = new ListStore(records, { at, after });
        await expect(rotateKeys(store, during(), { batch: 4 })).rejects.toThrow(/crash/);
        // Mid-rotation every record still opens with the configured pair of keys.
        for (const r of store.records) expect(new TextDecoder().decode(await during().decrypt(r.envelope, r.aad))).toBe(plain.get(`${r.kind}:${r.id}`));
        const resumed = await rotateKeys(new ListStore(store.records), during(), { batch: 4 });
        expect(resumed.rewrapped + resumed.current).toBe(10);
        expect(resumed.rewrapped).toBe(5 - at - (after ? 1 : 0));
        await expectAllUnderNewKey(store.records, plain);
      }
    }
  });

  it('a record changed meanwhile is left to the next run; one no configured key opens is reported, never written', async () => {
    const { records, plain } = await seed();
    const stranger = AesGcmKeyCipher.fromConfig(`k0:${randomBytes(32).toString('base64')}`);
    records.push({ kind: 'wallet-key', id: '99', aad: 'TLost', envelope: await stranger.encrypt(new Uint8Array([1, 2, 3]), 'TLost') });
    const store = new ListStore(records);
    const racing: EncryptedRecordStore = {
      list: (after, limit) => store.list(after, limit),
      async replace(record, next) {
        if (record.id === '3') {
          const i = store.records.findIndex((r) => r.id === '3' && r.kind === record.kind);
          store.records[i] = { ...store.records[i]!, envelope: await during().encrypt(new TextEncoder().encode(plain.get('wallet-key:3')!), record.aad) };
        }
        return store.replace(record, next);
      },
    };
    const report = await rotateKeys(racing, during());
    expect(report).toMatchObject({ rewrapped: 4, current: 5, raced: 1 });
    expect(report.unreadable).toEqual([{ kind: 'wallet-key', id: '99', keyId: 'k0' }]);
    expect(store.records.find((r) => r.id === '99')!.envelope.keyId).toBe('k0');
  });
});
