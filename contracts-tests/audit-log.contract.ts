import { describe, expect, it } from 'vitest';
import { AuditTrail } from '../core/application/audit-trail.js';
import { sealAuditEntry, verifyAuditChain } from '../core/domain/audit-chain.js';
import type { AuditEntry, AuditEvent } from '../core/domain/model/audit.js';
import type { AuditLog } from '../core/ports/audit-log.port.js';
import type { Clock } from '../core/ports/clock.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { T0 } from './support/fixtures.js';

/** What the audit-log contract needs: an empty log and a clock (AuditTrail stamps entries with it). */
export interface AuditLogSubject extends Closable {
  readonly auditLog: AuditLog;
  readonly clock: Clock;
}

const login = (userId: number, detail: AuditEvent['detail'] = {}): AuditEvent => ({
  userId, action: 'auth.login', actor: { kind: 'user', id: null }, detail,
});

/** `count` entries of one account sealed one after the other, as AuditTrail would append them. */
function chainOf(userId: number, count: number): AuditEntry[] {
  const chain: AuditEntry[] = [];
  for (let i = 0; i < count; i += 1) chain.push(sealAuditEntry(chain[i - 1] ?? null, login(userId, { n: i }), T0 + i));
  return chain;
}

async function insertAll(log: AuditLog, entries: readonly AuditEntry[]): Promise<void> {
  for (const entry of entries) expect(await log.insert(entry)).toBe(true);
}

/** The AuditLog contract (core/ports/audit-log.port.ts), with AuditTrail's appends on top of it. */
export function describeAuditLogContract(
  name: string,
  makeSubject: MakeSubject<AuditLogSubject>,
  options: ContractOptions<AuditLogSubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  describe(`AuditLog contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('an empty log has no head, no entries and no accounts', async () => {
      const { auditLog } = subject();
      expect(await auditLog.head(1)).toBeNull();
      expect(await auditLog.list(1, { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
      expect(await auditLog.readChain(1, 0, 10)).toEqual([]);
      expect(await auditLog.listAccounts(0, 10)).toEqual([]);
    });

    it('stores an entry exactly as given, every kind of detail value and non-ASCII text included', async () => {
      const { auditLog } = subject();
      const entry = sealAuditEntry(null, {
        userId: 3, action: 'withdrawal.requested', actor: { kind: 'api_token', id: '17' },
        detail: { amount: '123456789012345678901234567890', count: 3, ratio: 0.25, big: 2 ** 53 - 1, ok: true, none: null, label: 'café 💸 "q"' },
      }, T0);
      expect(await auditLog.insert(entry)).toBe(true);
      expect(await auditLog.head(3)).toEqual(entry);
      expect(await auditLog.readChain(3, 0, 5)).toEqual([entry]);
      expect(verifyAuditChain(3, await auditLog.readChain(3, 0, 5)).ok).toBe(true);
    });

    it('insert at a taken seq writes nothing and answers false', async () => {
      const { auditLog } = subject();
      const [first] = chainOf(1, 1);
      expect(await auditLog.insert(first!)).toBe(true);
      const rival = sealAuditEntry(null, login(1, { rival: true }), T0 + 9);
      expect(await auditLog.insert(rival)).toBe(false);
      expect(await auditLog.readChain(1, 0, 10)).toEqual([first]);
    });

    it('of concurrent inserts at one (account, seq), exactly one lands', async () => {
      const { auditLog } = subject();
      const rivals = Array.from({ length: concurrency }, (_, i) => sealAuditEntry(null, login(5, { i }), T0 + i));
      const results = await Promise.all(rivals.map((entry) => auditLog.insert(entry)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const stored = await auditLog.readChain(5, 0, concurrency + 1);
      expect(stored).toEqual([rivals[results.indexOf(true)]]);
    });

    it('head is the highest seq; list pages newest first with the total; accounts are apart', async () => {
      const { auditLog } = subject();
      const a = chainOf(1, 7);
      const b = chainOf(2, 2);
      await insertAll(auditLog, a);
      await insertAll(auditLog, b);
      expect(await auditLog.head(1)).toEqual(a[6]);
      expect(await auditLog.head(2)).toEqual(b[1]);
      expect(await auditLog.list(1, { offset: 0, limit: 3 })).toEqual({ items: [a[6], a[5], a[4]], total: 7 });
      expect(await auditLog.list(1, { offset: 6, limit: 3 })).toEqual({ items: [a[0]], total: 7 });
      expect(await auditLog.list(1, { offset: 7, limit: 3 })).toEqual({ items: [], total: 7 });
      expect(await auditLog.list(2, { offset: 0, limit: 10 })).toEqual({ items: [b[1], b[0]], total: 2 });
    });

    it('readChain pages in seq order after a seq; listAccounts pages the accounts in id order', async () => {
      const { auditLog } = subject();
      const a = chainOf(4, 5);
      await insertAll(auditLog, a);
      await insertAll(auditLog, chainOf(9, 1));
      await insertAll(auditLog, chainOf(2, 1));
      expect(await auditLog.readChain(4, 0, 2)).toEqual([a[0], a[1]]);
      expect(await auditLog.readChain(4, 2, 2)).toEqual([a[2], a[3]]);
      expect(await auditLog.readChain(4, 4, 2)).toEqual([a[4]]);
      expect(await auditLog.readChain(4, 5, 2)).toEqual([]);
      expect(await auditLog.listAccounts(0, 10)).toEqual([2, 4, 9]);
      expect(await auditLog.listAccounts(2, 1)).toEqual([4]);
      expect(await auditLog.listAccounts(9, 10)).toEqual([]);
    });

    it('an entry read back is a copy: changing it changes nothing stored', async () => {
      const { auditLog } = subject();
      await insertAll(auditLog, chainOf(1, 1));
      const read = (await auditLog.head(1)) as { detail: Record<string, unknown> };
      try { read.detail['n'] = 99; } catch { /* a frozen copy is fine too */ }
      expect((await auditLog.head(1))!.detail['n']).toBe(0);
    });

    it(`${concurrency} concurrent AuditTrail appends of one account make one unforked chain that verifies`, async () => {
      const { auditLog, clock } = subject();
      const trail = new AuditTrail({ auditLog, clock });
      const recorded = await Promise.all(Array.from({ length: concurrency }, (_, i) => trail.record(login(8, { i }))));
      const chain = await auditLog.readChain(8, 0, concurrency + 1);
      expect(chain.map((e) => e.seq)).toEqual(Array.from({ length: concurrency }, (_, i) => i + 1));
      expect(new Set(chain.map((e) => e.detail['i'])).size).toBe(concurrency);
      expect([...recorded].sort((x, y) => x.seq - y.seq)).toEqual(chain);
      expect(verifyAuditChain(8, chain)).toMatchObject({ ok: true, count: concurrency });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
