import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sealAuditEntry } from '../../core/domain/audit-chain.js';
import { AUDIT_ACTIONS } from '../../core/domain/model/audit.js';
import { fromStoredAuditEntry, toStoredAuditEntry } from './audit-record.js';

describe('audit entry record codec', () => {
  it('round-trips every sealed entry, and the record is plain JSON', () => {
    fc.assert(fc.property(
      fc.constantFrom(...AUDIT_ACTIONS), fc.option(fc.string(), { nil: null }),
      fc.dictionary(fc.string({ minLength: 1 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))),
      (action, actorId, detail) => {
        const entry = sealAuditEntry(null, { userId: 4, action, actor: { kind: 'api_token', id: actorId }, detail }, 1_700_000_000_000);
        const record = toStoredAuditEntry(entry);
        expect(fromStoredAuditEntry(JSON.parse(JSON.stringify(record)))).toEqual(entry);
      },
    ));
  });

  it('reads a record whose action was tampered with instead of failing, so the chain check can report it', () => {
    const record = { ...toStoredAuditEntry(sealAuditEntry(null, { userId: 1, action: 'auth.login', actor: { kind: 'user', id: null } }, 0)), action: 'auth.nothing' };
    expect(fromStoredAuditEntry(record).action).toBe('auth.nothing');
  });
});
