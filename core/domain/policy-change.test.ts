import { runs } from '../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EncryptedEnvelope } from './model/common.js';
import type { AssetLimits, PolicyPatch, WithdrawalPolicy } from './model/withdrawal-policy.js';
import { applyPolicyPatch, immediatePart, looseningsOf, pendingPart, settleDueChanges } from './policy-change.js';
import { destinationRefusal, emptyWithdrawalPolicy, limitsOf, needsApproval, velocityRefusal } from './withdrawal-policy-rules.js';

/**
 * A loosening waits; a tightening is immediate (issue #35 item 3). The reference of "what a policy lets through" is
 * the withdrawal path's own rules (destinationRefusal, velocityRefusal, needsApproval with the live approver).
 */
const NOW = Date.UTC(2026, 0, 1);
const SYMBOLS = ['TRX', 'USDT'] as const;
const KEYS = [...SYMBOLS, '*'] as const;
const URLS = ['https://a.example.com/approve', 'https://b.example.com/approve'] as const;

const secretOf = (name: string): EncryptedEnvelope => ({ keyId: 'k', iv: 'iv', ciphertext: name, tag: 't' });

/** A withdrawal as the rules see it: its asset and amount, whether its destination is listed and active, the
 * counted totals of the windows before it, and which approver (URL + secret) would approve it. */
interface Withdrawal {
  readonly symbol: string;
  readonly amount: bigint;
  readonly listed: boolean;
  readonly amount24h: bigint;
  readonly count1h: number;
  readonly approver: string;
}

function permits(policy: WithdrawalPolicy, w: Withdrawal): boolean {
  const entry = w.listed ? { userId: 1, address: 'T', label: null, createdAt: NOW - 1, activeFrom: NOW - 1 } : null;
  if (destinationRefusal(policy, entry, NOW) !== null) return false;
  const limits = limitsOf(policy, w.symbol);
  if (limits !== null && velocityRefusal({ amount24h: w.amount24h, count1h: w.count1h }, {
    userId: 1, assetSymbol: w.symbol, amount: w.amount, at: NOW, maxAmount24h: limits.maxAmount24h, maxCount1h: limits.maxCount1h,
  }) !== null) return false;
  if (!needsApproval(limits, w.amount, w.amount24h)) return true;
  const { url, secret } = policy.approval;
  return url !== null && secret !== null && `${url}|${secret.ciphertext}` === w.approver;
}

const bound = fc.option(fc.bigInt({ min: 0n, max: 12n }), { nil: null });
const assetLimits: fc.Arbitrary<AssetLimits> = fc.record({
  maxAmount24h: bound, maxCount1h: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }), approvalThreshold: bound,
});
const limitsMap = fc.dictionary(fc.constantFrom(...KEYS), assetLimits, { maxKeys: 3 });
const url = fc.constantFrom(...URLS);

const policy: fc.Arbitrary<WithdrawalPolicy> = fc.record({
  allowListOnly: fc.boolean(), limits: limitsMap, live: fc.option(url, { nil: null }), pending: fc.option(url, { nil: null }),
  secret: fc.option(fc.constantFrom('s1', 's2'), { nil: null }),
}).map(({ allowListOnly, limits, live, pending, secret }) => {
  const base = emptyWithdrawalPolicy(1, NOW);
  return {
    ...base, allowListOnly, limits, version: 3,
    approval: { ...base.approval, url: live, pendingUrl: pending === live ? null : pending, pendingSince: pending === null || pending === live ? null : NOW - 5, secret: secret === null ? null : secretOf(secret) },
  };
});

const patch: fc.Arbitrary<PolicyPatch> = fc.record({
  allowListOnly: fc.boolean(), limits: limitsMap, approvalUrl: fc.constantFrom('', ...URLS),
  approvalSecret: fc.constantFrom('s1', 's2', 's3').map(secretOf), approvalTimeoutMinutes: fc.integer({ min: 1, max: 100 }),
}, { requiredKeys: [] });

const withdrawal: fc.Arbitrary<Withdrawal> = fc.record({
  symbol: fc.constantFrom(...SYMBOLS, 'BTT'), amount: fc.bigInt({ min: 1n, max: 14n }), listed: fc.boolean(),
  amount24h: fc.bigInt({ min: 0n, max: 12n }), count1h: fc.integer({ min: 0, max: 4 }),
  approver: fc.constantFrom(...URLS.flatMap((u) => ['s1', 's2', 's3'].map((s) => `${u}|${s}`))),
});

/** An approval URL goes live only through the platform's review: let it approve whatever is pending. */
function reviewed(p: WithdrawalPolicy): WithdrawalPolicy {
  const a = p.approval;
  return a.pendingUrl === null ? p : { ...p, approval: { ...a, url: a.pendingUrl, pendingUrl: null, pendingSince: null, verifiedAt: NOW } };
}

/** What the old policy lets through as it stands, or once the URL pending in it is reviewed (a revert to the live URL
 * cancels that pending URL: not a loosening, the live approver stays). */
function oldLets(p: WithdrawalPolicy, w: Withdrawal): boolean {
  return permits(p, w) || permits(reviewed(p), w);
}

const RUNS = { numRuns: runs(400) };

describe('policy changes: loosening or tightening (issue #35 item 3)', () => {
  it('the part applied at once never lets through a withdrawal the old policy refused, even once every URL is reviewed', () => {
    fc.assert(fc.property(policy, patch, withdrawal, (p, x, w) => {
      const now = applyPolicyPatch(p, immediatePart(p, x), NOW);
      if (permits(now, w)) expect(permits(p, w)).toBe(true);
      if (permits(reviewed(now), w)) expect(oldLets(p, w)).toBe(true);
    }), RUNS);
  });

  it('any change that lets through a withdrawal the old policy refused is classified a loosening', () => {
    fc.assert(fc.property(policy, patch, withdrawal, (p, x, w) => {
      const after = reviewed(applyPolicyPatch(p, x, NOW));
      if (permits(after, w) && !oldLets(p, w)) expect(looseningsOf(p, x)).not.toEqual([]);
    }), RUNS);
  });

  it('a change with no loosening waits for nothing; one with a loosening keeps it for later', () => {
    fc.assert(fc.property(policy, patch, (p, x) => {
      const pending = pendingPart(p, x);
      expect(Object.keys(pending).length === 0).toBe(looseningsOf(p, x).length === 0);
    }), RUNS);
  });

  it('applying the immediate part and then the pending part lets through exactly what the whole request would', () => {
    fc.assert(fc.property(policy, patch, withdrawal, (p, x, w) => {
      const twoSteps = reviewed(applyPolicyPatch(applyPolicyPatch(p, immediatePart(p, x), NOW), pendingPart(p, x), NOW));
      expect(permits(twoSteps, w)).toBe(permits(reviewed(applyPolicyPatch(p, x, NOW)), w));
    }), RUNS);
  });

  it('the review\'s finding: allow-list off and limits removed is a loosening; allow-list on, lower and new limits are not', () => {
    const p = { ...emptyWithdrawalPolicy(1, NOW), allowListOnly: true, limits: { TRX: { maxAmount24h: 10n, maxCount1h: 3, approvalThreshold: null } } };
    expect(looseningsOf(p, { allowListOnly: false, limits: {} })).toEqual(['allow_list_only', 'limits.TRX.max_amount_24h', 'limits.TRX.max_count_1h']);
    expect(looseningsOf(p, { allowListOnly: true, limits: { TRX: { maxAmount24h: 5n, maxCount1h: 3, approvalThreshold: 1n }, USDT: { maxAmount24h: 1n, maxCount1h: null, approvalThreshold: null } } })).toEqual([]);
    expect(looseningsOf(p, { approvalUrl: URLS[0] })).toEqual(['approval_url']);
    expect(looseningsOf(p, { approvalUrl: '' })).toEqual([]);
  });

  it('settleDueChanges applies a change from its effectiveAt on, oldest first, and keeps the later ones', () => {
    const p: WithdrawalPolicy = {
      ...emptyWithdrawalPolicy(1, NOW), allowListOnly: true,
      pendingChanges: [
        { changeId: '4', requestedAt: NOW, effectiveAt: NOW + 20, patch: { limits: {} }, loosens: ['limits.TRX.max_count_1h'] },
        { changeId: '2', requestedAt: NOW, effectiveAt: NOW + 10, patch: { allowListOnly: false }, loosens: ['allow_list_only'] },
      ],
    };
    expect(settleDueChanges(p, NOW + 9).policy).toBe(p);
    const settled = settleDueChanges(p, NOW + 10);
    expect(settled.applied.map((c) => c.changeId)).toEqual(['2']);
    expect(settled.policy.allowListOnly).toBe(false);
    expect(settled.policy.pendingChanges?.map((c) => c.changeId)).toEqual(['4']);
  });
});

describe('team changes on the policy row (issue #35 item 3)', () => {
  it('property: a due team change is settled only by a reader that carries it out, and never changes the policy fields', () => {
    const team = fc.constantFrom(
      { kind: 'member_invited' as const, memberId: 4, email: 'a@team.example', role: 'operator' as const },
      { kind: 'role_raised' as const, memberId: 4, email: 'a@team.example', from: 'viewer' as const, to: 'admin' as const },
      { kind: 'two_factor_off' as const, userId: 9, email: 'b@team.example', role: 'approver' as const },
    );
    fc.assert(fc.property(team, fc.integer({ min: -5, max: 5 }), fc.boolean(), (change, offset, withTeam) => {
      const policy: WithdrawalPolicy = {
        ...emptyWithdrawalPolicy(1, NOW), allowListOnly: true,
        pendingChanges: [{ changeId: '2', requestedAt: NOW - 10, effectiveAt: NOW + offset, patch: {}, loosens: ['x'], team: change }],
      };
      const { policy: next, applied } = settleDueChanges(policy, NOW, withTeam);
      const due = offset <= 0 && withTeam;
      expect(applied.length).toBe(due ? 1 : 0);
      expect(next.pendingChanges ?? []).toHaveLength(due ? 0 : 1);
      expect({ ...next, pendingChanges: undefined }).toEqual({ ...policy, pendingChanges: undefined });
    }));
  });
});
