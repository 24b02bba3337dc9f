import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  AUDIT_GENESIS_HASH, auditEntryHash, canonicalAuditEncoding, sealAuditEntry, verifyAuditChain,
} from './audit-chain.js';
import { AUDIT_ACTIONS, type AuditEntry, type AuditEvent } from './model/audit.js';

const USER = 7;

const detailValue = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null));
const eventArb: fc.Arbitrary<Omit<AuditEvent, 'userId'>> = fc.record({
  action: fc.constantFrom(...AUDIT_ACTIONS),
  actor: fc.record({
    kind: fc.constantFrom('user', 'api_token', 'admin', 'approver', 'system' as const),
    id: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
  }),
  detail: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), detailValue, { maxKeys: 4 }),
});

/** A chain as AuditTrail builds it: each event sealed on the previous entry, times non-decreasing. */
function chainOf(events: readonly Omit<AuditEvent, 'userId'>[], start = 1_700_000_000_000): AuditEntry[] {
  const chain: AuditEntry[] = [];
  events.forEach((event, i) => chain.push(sealAuditEntry(chain[i - 1] ?? null, { ...event, userId: USER }, start + i * 1000)));
  return chain;
}
const chainArb = (min: number) => fc.array(eventArb, { minLength: min, maxLength: 12 }).map((events) => chainOf(events));

/** Every way to change one stored field of an entry to a different value (the hash field included). */
type Field = 'userId' | 'seq' | 'at' | 'action' | 'actorKind' | 'actorId' | 'detail' | 'prevHash' | 'hash';
const FIELDS: readonly Field[] = ['userId', 'seq', 'at', 'action', 'actorKind', 'actorId', 'detail', 'prevHash', 'hash'];
function changed(entry: AuditEntry, field: Field, salt: number): AuditEntry {
  switch (field) {
    case 'userId': return { ...entry, userId: entry.userId + 1 + salt };
    case 'seq': return { ...entry, seq: entry.seq + 1 + salt };
    case 'at': return { ...entry, at: entry.at + 1 + salt };
    case 'action': return { ...entry, action: AUDIT_ACTIONS[(AUDIT_ACTIONS.indexOf(entry.action) + 1 + salt) % AUDIT_ACTIONS.length]! };
    case 'actorKind': return { ...entry, actor: { ...entry.actor, kind: entry.actor.kind === 'admin' ? 'user' : 'admin' } };
    case 'actorId': return { ...entry, actor: { ...entry.actor, id: `${entry.actor.id ?? ''}x${salt}` } };
    case 'detail': return { ...entry, detail: { ...entry.detail, amount: `${salt}${JSON.stringify(entry.detail['amount'] ?? '')}` } };
    case 'prevHash': return { ...entry, prevHash: entry.prevHash.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) };
    case 'hash': return { ...entry, hash: entry.hash.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) };
  }
}

describe('audit chain (issue #26 item 5)', () => {
  it('known answer: the first entry of an account hashes its canonical encoding', () => {
    const entry = sealAuditEntry(null, { userId: 1, action: 'auth.login', actor: { kind: 'user', id: null }, detail: { b: 1, a: 'x' } }, 0);
    expect(entry.seq).toBe(1);
    expect(entry.prevHash).toBe(AUDIT_GENESIS_HASH);
    expect(canonicalAuditEncoding(entry)).toBe(
      `["custody-audit-v1",1,1,0,"auth.login","user",null,[["a","x"],["b",1]],"${AUDIT_GENESIS_HASH}"]`,
    );
    expect(entry.hash).toBe(auditEntryHash(entry));
    // sha256sum of the encoding above, computed outside this code: a change of encoding or hash shows here.
    expect(entry.hash).toBe('1e86b2ecbaf538cf9aba541aafeb483e53413ec5932cc4e874fb82ffda37e84b');
  });

  it('a chain built by sealing verifies, with its head', () => {
    fc.assert(fc.property(chainArb(0), (chain) => {
      const verdict = verifyAuditChain(USER, chain);
      expect(verdict).toEqual({
        ok: true, count: chain.length, headSeq: chain.length, headHash: chain.at(-1)?.hash ?? AUDIT_GENESIS_HASH,
      });
    }));
  });

  it('the detail is hashed whatever order its keys were given in', () => {
    const a = sealAuditEntry(null, { userId: 1, action: 'auth.login', actor: { kind: 'user', id: null }, detail: { x: 1, y: 2 } }, 5);
    const b = sealAuditEntry(null, { userId: 1, action: 'auth.login', actor: { kind: 'user', id: null }, detail: { y: 2, x: 1 } }, 5);
    expect(a.hash).toBe(b.hash);
  });

  it('any single-field change of any entry is detected, at that entry', () => {
    fc.assert(fc.property(chainArb(1), fc.nat(), fc.constantFrom(...FIELDS), fc.nat(5), (chain, pick, field, salt) => {
      const index = pick % chain.length;
      const tampered = chain.map((entry, i) => (i === index ? changed(entry, field, salt) : entry));
      const verdict = verifyAuditChain(USER, tampered);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.seq).toBe(tampered[index]!.seq);
    }));
  });

  it('a changed entry whose hash was recomputed still breaks the link to the next entry', () => {
    fc.assert(fc.property(chainArb(2), fc.nat(), (chain, pick) => {
      const index = pick % (chain.length - 1);
      const forged = { ...chain[index]!, at: chain[index]!.at + 1 };
      const resealed = { ...forged, hash: auditEntryHash(forged) };
      const verdict = verifyAuditChain(USER, chain.map((entry, i) => (i === index ? resealed : entry)));
      expect(verdict).toEqual({ ok: false, seq: index + 2, reason: 'broken-link' });
    }));
  });

  it('deleting any entry but the newest is detected; deleting the newest is detected against the noted head', () => {
    fc.assert(fc.property(chainArb(1), fc.nat(), (chain, pick) => {
      const index = pick % chain.length;
      const shorter = chain.filter((_, i) => i !== index);
      const anchor = { seq: chain.length, hash: chain.at(-1)!.hash };
      expect(verifyAuditChain(USER, shorter, anchor).ok).toBe(false);
      if (index < chain.length - 1) expect(verifyAuditChain(USER, shorter).ok).toBe(false);
    }));
  });

  it('swapping two entries is detected', () => {
    fc.assert(fc.property(chainArb(2), fc.nat(), fc.nat(), (chain, p, q) => {
      const i = p % chain.length;
      const j = q % chain.length;
      fc.pre(i !== j);
      const reordered = [...chain];
      [reordered[i], reordered[j]] = [reordered[j]!, reordered[i]!];
      expect(verifyAuditChain(USER, reordered).ok).toBe(false);
    }));
  });

  it('inserting an entry anywhere is detected, even one sealed on its predecessor', () => {
    fc.assert(fc.property(chainArb(1), fc.nat(), eventArb, (chain, pick, event) => {
      const index = pick % (chain.length + 1);
      const intruder = sealAuditEntry(chain[index - 1] ?? null, { ...event, userId: USER }, 1);
      const longer = [...chain.slice(0, index), intruder, ...chain.slice(index)];
      // Appending after the newest entry is an append, not a tamper: only an insertion before it must show.
      fc.pre(index < chain.length);
      expect(verifyAuditChain(USER, longer).ok).toBe(false);
    }));
  });

  it('an entry of another account inside the chain is detected', () => {
    fc.assert(fc.property(chainArb(1), (chain) => {
      const other = sealAuditEntry(null, { userId: USER + 1, action: 'auth.login', actor: { kind: 'user', id: null } }, 1);
      expect(verifyAuditChain(USER, [other, ...chain.slice(1)])).toMatchObject({ ok: false, reason: 'wrong-account' });
    }));
  });

  it('a head noted earlier keeps verifying while the chain grows, and a rewritten prefix breaks it', () => {
    fc.assert(fc.property(chainArb(2), fc.nat(), (chain, pick) => {
      const k = 1 + (pick % (chain.length - 1));
      const anchor = { seq: k, hash: chain[k - 1]!.hash };
      expect(verifyAuditChain(USER, chain, anchor).ok).toBe(true);
      expect(verifyAuditChain(USER, chain, { seq: k, hash: AUDIT_GENESIS_HASH }).ok).toBe(false);
    }));
  });

  it('text no store can keep is sealed as U+FFFD, and a non-finite number is refused', () => {
    const entry = sealAuditEntry(null, { userId: 1, action: 'auth.login', actor: { kind: 'user', id: 'a\u0000' }, detail: { note: 'x\uD800' } }, 0);
    expect(entry.actor.id).toBe('a\uFFFD');
    expect(entry.detail['note']).toBe('x\uFFFD');
    expect(() => sealAuditEntry(null, { userId: 1, action: 'auth.login', actor: { kind: 'user', id: null }, detail: { n: Number.NaN } }, 0))
      .toThrow(TypeError);
  });
});
