import fc from 'fast-check';
import { BSON, type Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { runs } from '../../contracts-tests/support/depth.js';
import { StoreError } from '../../core/domain/errors.js';
import { ACCOUNT_RECORD } from '../records/account-record.js';
import { DEPOSIT_RECORD } from '../records/deposit-record.js';
import { keyFields } from '../records/record-descriptor.js';
import { account } from '../records/testing/record-arbitraries.js';
import { allowListEntry, auditEntry, deposit, DESCRIPTOR_CASES, riskEntry } from '../records/testing/descriptor-cases.js';
import { AUDIT_ENTRY_RECORD, toStoredAuditEntry } from '../records/audit-record.js';
import { RISK_ENTRY_RECORD } from '../records/risk-record.js';
import { ALLOW_LIST_ENTRY_RECORD, toStoredAllowListEntry } from '../records/withdrawal-policy-record.js';
import { COLLECTIONS } from './collections.js';
import { documentIdOf, fromDocument, replaceOf, toDocument } from './mongo-table.js';

// The document mapping a MongoTable derives from a descriptor, checked without mongod (its suites need a replica set
// and print SKIPPED here): domain -> document -> BSON bytes -> domain is the identity for every record, `_id` is the
// record's key, and a versioned replace writes every field of the descriptor but the identity.

function throughBson<D extends Document>(doc: D): D {
  return BSON.deserialize(BSON.serialize(doc)) as D;
}

/** Fails on any bigint anywhere in a document: the driver would refuse it or (with useBigInt64) store an int64. */
function expectNoBigInt(value: unknown, path = 'doc'): void {
  expect(typeof value, path).not.toBe('bigint');
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [key, inner] of Object.entries(value)) expectNoBigInt(inner, `${path}.${key}`);
  }
}

/** Drops top-level nulls: a field written as null and a field never written must read the same. */
function withoutNulls<D extends Document>(doc: D): D {
  return Object.fromEntries(Object.entries(doc).filter(([, value]) => value !== null)) as D;
}

describe('MongoTable: the document mapping of every descriptor', () => {
  for (const { descriptor, values } of DESCRIPTOR_CASES) {
    it(`${descriptor.name}: domain -> document -> BSON -> domain is the identity (missing equals null); \`_id\` is the key, first, and no \`id\``, () => {
      fc.assert(fc.property(values, (value) => {
        const doc = toDocument(descriptor, value) as Document;
        const record = descriptor.encode(value) as Record<string, unknown>;
        expectNoBigInt(doc);
        expect(fromDocument(descriptor, throughBson(withoutNulls(doc)) as { _id: unknown })).toEqual(value);
        expect(Object.keys(doc)[0]).toBe('_id');
        if (descriptor.key === undefined) {
          expect(doc['_id']).toBe(record['id']);
        } else {
          // Keyed by named fields: they stay in the document beside the `_id` made of them.
          expect(doc['_id']).toBe(descriptor.documentId!(record));
          for (const field of descriptor.key as string[]) expect(doc[field]).toBe(record[field]);
        }
        expect(doc).not.toHaveProperty('id');
        expect(fromDocument(descriptor, throughBson(doc) as { _id: unknown })).toEqual(value);
      }), { numRuns: runs(40) });
    });

    it(`${descriptor.name}: a replace sets every field of the descriptor but the identity, none undefined`, () => {
      const identity = new Set([...keyFields(descriptor), ...((descriptor.fixed ?? []) as string[])]);
      fc.assert(fc.property(values, (value) => {
        const { set, filter } = replaceOf(descriptor, value);
        expect(Object.keys(set).sort()).toEqual(Object.keys(descriptor.fields).filter((f) => !identity.has(f)).sort());
        expect(Object.values(set)).not.toContain(undefined);
        if ('version' in descriptor.fields) expect(filter['version']).toBe((descriptor.encode(value) as unknown as { version: number }).version - 1);
      }), { numRuns: runs(20) });
    });
  }

  it('every descriptor names a collection of the store (the indexes are declared on those names)', () => {
    const names: readonly string[] = Object.values(COLLECTIONS);
    expect(DESCRIPTOR_CASES.map((c) => c.descriptor.collection).filter((name) => !names.includes(name))).toEqual([]);
  });

  it('a deposit replace matches its transfer and network (never written), and clears an auto-collect task that ended', () => {
    fc.assert(fc.property(deposit, (value) => {
      const { filter, set } = replaceOf(DEPOSIT_RECORD, value);
      expect(filter).toEqual({ _id: value.depositId, transferId: value.transferId, networkCode: value.networkCode, version: value.version - 1 });
      expect(set['autoCollectTask']).toBe(value.autoCollectTask ?? null);
      expect(set['autoCollect']).toBe(value.autoCollect ?? null);
    }), { numRuns: runs(40) });
  });

  it('an allow-list entry (a key of two fields) is the document stored before descriptors: `_id` user U+0000 address, the fields beside it', () => {
    fc.assert(fc.property(allowListEntry, (entry) => {
      const before = { _id: `${entry.userId}\u0000${entry.address}`, ...toStoredAllowListEntry(entry) };
      expect(toDocument(ALLOW_LIST_ENTRY_RECORD, entry)).toEqual(before);
      expect(fromDocument(ALLOW_LIST_ENTRY_RECORD, throughBson(before))).toEqual(entry);
      expect(documentIdOf(ALLOW_LIST_ENTRY_RECORD, { userId: entry.userId, address: entry.address })).toBe(before._id);
    }), { numRuns: runs(40) });
    expect(() => documentIdOf(ALLOW_LIST_ENTRY_RECORD, { userId: 1 })).toThrow(TypeError);
  });

  it('an audit entry is the document stored before descriptors: `_id` userId:seq (one entry per seq), the record beside it', () => {
    fc.assert(fc.property(auditEntry, (entry) => {
      const before = { _id: `${entry.userId}:${entry.seq}`, ...toStoredAuditEntry(entry) };
      expect(toDocument(AUDIT_ENTRY_RECORD, entry)).toEqual(before);
      expect(fromDocument(AUDIT_ENTRY_RECORD, throughBson(before))).toEqual(entry);
    }), { numRuns: runs(40) });
  });

  it('a deny-list entry is the document stored before descriptors: `_id` kind:value, the fields beside it, insertedSeq ignored on read', () => {
    fc.assert(fc.property(riskEntry, fc.nat(), (entry, insertedSeq) => {
      const before = { _id: `${entry.kind}:${entry.value}`, kind: entry.kind, value: entry.value, reason: entry.reason };
      expect(toDocument(RISK_ENTRY_RECORD, entry)).toEqual(before);
      expect(fromDocument(RISK_ENTRY_RECORD, throughBson({ ...before, insertedSeq }))).toEqual(entry);
    }), { numRuns: runs(40) });
  });

  it('refuses a bigint that a codec lets through: money is a decimal string, never an int64', () => {
    const leaky = { ...ACCOUNT_RECORD, encode: (a: Parameters<typeof ACCOUNT_RECORD.encode>[0]) => ({ ...ACCOUNT_RECORD.encode(a), verificationAttempts: 1n as unknown as number }) };
    fc.assert(fc.property(account, (value) => {
      expect(() => toDocument(leaky, value)).toThrow(StoreError);
    }), { numRuns: 5 });
  });
});
