import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approvalOnCancel, approvalSecretFingerprint, judgeApprovalAnswer, signApprovalAnswer } from './approval.js';
import type { ApprovalState, CommandApproval } from './model/withdrawal-policy.js';
import { signPayload } from './signature.js';

const SECRET = 'approval-secret';
const EXPECTED = { requestId: 'req-1', commandNo: 'CMD1', amount: '2500000' };
type Field = 'request_id' | 'command_no' | 'amount' | 'decision';

describe('approval answers (issue #26 item 2)', () => {
  it('a signed answer to this request, command and amount decides; a forged, replayed or mismatched one never does', () => {
    const value = fc.constantFrom('req-1', 'req-0', 'CMD1', 'CMD2', '2500000', '2500001', 'approve', 'deny', 'maybe');
    const answer = fc.record({ request_id: value, command_no: value, amount: value, decision: value });
    fc.assert(fc.property(answer, fc.constantFrom(SECRET, 'another-secret'), fc.constantFrom('signed', 'unsigned', 'extra-field', 'tampered'), (a, key, shape) => {
      const signed = JSON.parse(signApprovalAnswer(a, key)) as Record<string, string>;
      const body = shape === 'unsigned' ? JSON.stringify(a)
        : shape === 'extra-field' ? JSON.stringify({ ...signed, note: 'x' })
          : shape === 'tampered' ? JSON.stringify({ ...signed, amount: `${signed['amount']}0` }) : JSON.stringify(signed);
      // The reference: only an intact answer signed with the account's secret, naming exactly what was asked.
      const genuine = shape === 'signed' && key === SECRET;
      const matches = a.request_id === EXPECTED.requestId && a.command_no === EXPECTED.commandNo && a.amount === EXPECTED.amount;
      const expected = genuine && matches && a.decision === 'approve' ? 'approved' : genuine && matches && a.decision === 'deny' ? 'denied' : 'refused';
      expect(judgeApprovalAnswer(body, EXPECTED, SECRET).kind).toBe(expected);
    }), { numRuns: runs(1_000) });
  });

  it('refuses what is not a JSON object, and names why', () => {
    for (const body of [undefined, '', 'approve', '[]', 'null', '{"request_id":1}']) {
      expect(judgeApprovalAnswer(body, EXPECTED, SECRET).kind).toBe('refused');
    }
    const fields: Record<Field, string> = { request_id: 'req-0', command_no: 'CMD1', amount: '2500000', decision: 'approve' };
    const replayed = { ...fields, signature: signPayload(fields, SECRET) };
    expect(judgeApprovalAnswer(JSON.stringify(replayed), EXPECTED, SECRET)).toEqual({ kind: 'refused', reason: 'the answer is for another request (replayed)' });
  });
});

describe('the approval secret fingerprint a review names (issue #35 item 5)', () => {
  it('is the documented known answer (sha256sum of the secret, first 16 hex digits) and differs between secrets', () => {
    expect(approvalSecretFingerprint('approver secret')).toBe('e63440bf7e369bab');
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => {
      expect(approvalSecretFingerprint(a)).toMatch(/^[0-9a-f]{16}$/);
      if (a !== b) expect(approvalSecretFingerprint(a)).not.toBe(approvalSecretFingerprint(b));
    }));
  });
});

describe('an admin cancel and the approval (decision 145)', () => {
  it('closes an awaiting approval as cancelled at the cancel, and leaves a decided one or none as it was', () => {
    const state = fc.constantFrom<ApprovalState>('awaiting', 'approved', 'denied', 'expired', 'cancelled');
    const approval: fc.Arbitrary<CommandApproval> = fc.record({
      state, deadline: fc.nat(), attempts: fc.nat(20), lastAttemptAt: fc.option(fc.nat()), lastRefusal: fc.option(fc.string()), decidedAt: fc.option(fc.nat()),
    });
    fc.assert(fc.property(fc.option(approval, { nil: undefined }), fc.boolean(), fc.nat(), (drawn, asNull, now) => {
      const before = drawn ?? (asNull ? null : undefined);
      const after = approvalOnCancel(before, now);
      if (before?.state === 'awaiting') expect(after).toEqual({ ...before, state: 'cancelled', decidedAt: now });
      else expect(after).toBe(before);
    }));
  });
});
