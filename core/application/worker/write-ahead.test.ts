/**
 * The money rule of write-ahead.ts, on a scripted chain (every answer a node can give, in any combination): a
 * transaction is dead only when the node does not know it, the solidified head's time is past its expiration, and
 * every solidified block of its validity window was read without it; everything else rebroadcasts the same bytes or
 * waits.
 */
import { runs } from '../../../contracts-tests/support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainError } from '../../domain/errors.js';
import type { TransactionState } from '../../domain/model/chain.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import type { EvidenceAnswer } from '../../ports/transaction-evidence.port.js';
import { ABSENT_PATIENCE_BLOCKS, followOperation, isValidationRefusal, type Completion } from './write-ahead.js';

const TX: PreparedTransaction = { txid: 'ab'.repeat(32), signedJson: '{}', expiresAt: 1_000_000, broadcastAt: 900_000 };

interface Script {
  readonly states: TransactionState[];
  readonly solid: { number: number; timestamp: number };
  readonly head: { number: number; timestamp: number };
  readonly broadcast: 'ok' | 'refused' | 'lost';
  /** What the solidified blocks of its window say (ChainGateway.findInSolidified). */
  readonly found: 'included' | 'absent' | 'unknown';
}

/** A gateway answering from the script, recording the broadcasts. */
function scripted(script: Script): { chain: ChainGateway; broadcasts: string[] } {
  const states = [...script.states];
  const broadcasts: string[] = [];
  const chain = {
    getTransaction: async () => states.length > 1 ? states.shift()! : states[0]!,
    solidifiedHead: async () => script.solid,
    head: async () => script.head,
    findInSolidified: async () => script.found,
    broadcast: async (tx: { txid: string }) => {
      broadcasts.push(tx.txid);
      if (script.broadcast === 'refused') throw new ChainError('CHAIN-BROADCAST-FAILED', 'refused', { transient: false, nodeCode: 'TAPOS_ERROR' });
      if (script.broadcast === 'lost') throw new ChainError('CHAIN-NODE-UNAVAILABLE', 'socket hang up');
    },
  } as unknown as ChainGateway;
  return { chain, broadcasts };
}

const confirmed = (confirmations: number, solidified: boolean): TransactionState =>
  ({ state: 'confirmed', blockNumber: 10, confirmations, solidified, feeSun: 0n, energyUsed: 0 });
const stateArb: fc.Arbitrary<TransactionState> = fc.oneof(
  fc.constant<TransactionState>({ state: 'unknown' }),
  fc.constant<TransactionState>({ state: 'pending' }),
  fc.tuple(fc.nat(30), fc.boolean()).map(([c, s]) => confirmed(c, s)),
  fc.constant<TransactionState>({ state: 'failed', blockNumber: 10, reason: 'REVERT', feeSun: 0n }),
);
const blockArb = fc.record({ number: fc.nat(100), timestamp: fc.integer({ min: 900_000, max: 1_100_000 }) });
const completionArb = fc.constantFrom<Completion>('accepted', 1, 3, 'solidified');

describe('followOperation (the money rule)', () => {
  it('dead only on proof; never a new transaction otherwise; the same bytes are what gets resent', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(stateArb, { minLength: 1, maxLength: 2 }), blockArb, blockArb, fc.constantFrom<Script['broadcast']>('ok', 'refused', 'lost'), completionArb,
      fc.constantFrom<Script['found']>('included', 'absent', 'unknown'),
      async (states, solid, head, broadcast, completion, found) => {
        const { chain, broadcasts } = scripted({ states, solid, head, broadcast, found });
        const result = await followOperation(chain, TX, completion);
        const [first, second] = [states[0]!, states[1] ?? states[0]!];
        if (result.evidence === 'dead') {
          expect(first.state).toBe('unknown');
          expect(found).toBe('absent');
          expect(TX.expiresAt).toBeLessThan(solid.timestamp);
          expect(broadcasts).toEqual([]);
        }
        // Expired, unknown to the node, and not proven absent: never dead, never sent again.
        if (first.state === 'unknown' && TX.expiresAt < solid.timestamp && found !== 'absent') {
          expect(result).toMatchObject({ evidence: 'refused', refusal: expect.any(String) });
          expect(broadcasts).toEqual([]);
        }
        if (result.evidence === 'reverted') expect([first.state, second.state]).toContain('failed');
        if (result.evidence === 'confirmed') expect([first.state, second.state].some((s) => s !== 'unknown') || broadcast === 'ok').toBe(true);
        for (const txid of broadcasts) expect(txid).toBe(TX.txid);
        if (first.state === 'unknown' && TX.expiresAt >= solid.timestamp) {
          expect(broadcasts).toEqual([TX.txid]);
          if (broadcast === 'ok') {
            expect(result).toEqual(completion === 'accepted' ? { evidence: 'confirmed', receipt: null } : { evidence: 'waiting' });
          } else {
            expect(result).toMatchObject({ evidence: 'refused', refusal: expect.any(String) });
          }
        }
      },
    ));
  });

  it('a node behind that does not show a landed transaction proves nothing: waiting, not dead', async () => {
    const behind = { states: [{ state: 'unknown' } as TransactionState], solid: { number: 50, timestamp: 2_000_000 }, head: { number: 60, timestamp: 2_100_000 }, broadcast: 'ok' as const };
    const included = scripted({ ...behind, found: 'included' });
    expect(await followOperation(included.chain, TX, 1)).toEqual({ evidence: 'refused', refusal: 'in a solidified block that the node has not shown yet' });
    const unread = scripted({ ...behind, found: 'unknown' });
    expect(await followOperation(unread.chain, TX, 1)).toMatchObject({ evidence: 'refused', refusal: expect.stringMatching(/could not all be read/) });
    expect([...included.broadcasts, ...unread.broadcasts]).toEqual([]);
    expect(await followOperation(scripted({ ...behind, found: 'absent' }).chain, TX, 1)).toEqual({ evidence: 'dead' });
    // Dead after a node refused the operation itself: the policy's `dead-refused`; a freshness refusal is plainly dead.
    const refusedAs = (refusal: string) => followOperation(scripted({ ...behind, found: 'absent' }).chain, { ...TX, refusal }, 1);
    expect(await refusedAs('CONTRACT_VALIDATE_ERROR: balance is not sufficient')).toEqual({ evidence: 'dead-refused' });
    expect(await refusedAs('TAPOS_ERROR: Tapos check error.')).toEqual({ evidence: 'dead' });
  });

  it('unknown but unexpired at the solidified head: the same bytes again; a refusal is kept, not a verdict', async () => {
    const { chain, broadcasts } = scripted({ states: [{ state: 'unknown' }], solid: { number: 50, timestamp: 999_999 }, head: { number: 60, timestamp: 1_100_000 }, broadcast: 'refused', found: 'absent' });
    const result = await followOperation(chain, TX, 'solidified');
    expect(result).toMatchObject({ evidence: 'refused' });
    expect(result.evidence === 'refused' && result.refusal).toMatch(/^TAPOS_ERROR: /);
    expect(broadcasts).toEqual([TX.txid]);
  });


  it('validation refusals judge the operation; freshness refusals and lost replies do not', () => {
    expect(isValidationRefusal('CONTRACT_VALIDATE_ERROR: balance is not sufficient')).toBe(true);
    expect(isValidationRefusal('SIGERROR: bad signature')).toBe(true);
    for (const other of ['TAPOS_ERROR: Tapos check error.', 'TRANSACTION_EXPIRATION_ERROR: expired', 'CHAIN-NODE-UNAVAILABLE: reset', 'HTTP_403: quota', null, undefined]) {
      expect(isValidationRefusal(other)).toBe(false);
    }
  });
});

describe('followOperation from the scanner\'s blocks (issue #27)', () => {
  const answerArb: fc.Arbitrary<EvidenceAnswer | null> = fc.oneof(
    fc.constant(null),
    fc.tuple(fc.nat(4), fc.integer({ min: 38, max: 42 })).map(([blocksWatched, throughBlock]): EvidenceAnswer => ({ kind: 'absent', blocksWatched, throughBlock })),
    fc.tuple(fc.integer({ min: 1, max: 30 })).map(([c]): EvidenceAnswer => ({ kind: 'included', state: { ...confirmed(c, false), state: 'confirmed' } as never })),
    fc.constant<EvidenceAnswer>({ kind: 'included', state: { state: 'failed', blockNumber: 10, reason: 'REVERT', feeSun: 0n } }),
  );

  it('a receipt read from a block decides as a lookup would, with no node call; absent up to the head briefly waits; else the node is asked', async () => {
    await fc.assert(fc.asyncProperty(answerArb, completionArb, stateArb, async (answer, completion, nodeState) => {
      const node = scripted({ states: [nodeState], solid: { number: 5, timestamp: 0 }, head: { number: 40, timestamp: 0 }, broadcast: 'ok', found: 'unknown' });
      let lookups = 0;
      const chain = { ...node.chain, getTransaction: async (txid: string) => { lookups += 1; return node.chain.getTransaction(txid); } } as ChainGateway;
      const sources: string[] = [];
      const result = await followOperation(chain, TX, completion, { find: () => answer }, (s) => sources.push(s));
      const fromBlocks = (answer?.kind === 'included' && completion !== 'solidified')
        // Absent counts only while the scanner has read up to the head (40 here): a newer head may hold it.
        || (answer?.kind === 'absent' && answer.blocksWatched < ABSENT_PATIENCE_BLOCKS && completion !== 'accepted' && answer.throughBlock >= 40);
      expect(sources).toEqual([fromBlocks ? 'blocks' : 'node']);
      expect(lookups).toBe(fromBlocks ? 0 : 1);
      if (!fromBlocks) {
        // Asked, it is exactly what the node path decides.
        expect(result).toEqual(await followOperation(scripted({ states: [nodeState], solid: { number: 5, timestamp: 0 }, head: { number: 40, timestamp: 0 }, broadcast: 'ok', found: 'unknown' }).chain, TX, completion));
        return;
      }
      if (answer!.kind === 'absent') {
        expect(result).toEqual({ evidence: 'waiting' });
        expect(node.broadcasts).toEqual([]);
        return;
      }
      // From the block: the same decision a lookup answering that receipt gives.
      const viaLookup = await followOperation(scripted({ states: [answer!.state], solid: { number: 5, timestamp: 0 }, head: { number: 40, timestamp: 0 }, broadcast: 'ok', found: 'unknown' }).chain, TX, completion);
      expect(result).toEqual(viaLookup);
      if (answer!.state.state === 'failed') expect(result.evidence).toBe('reverted');
    }), { numRuns: runs(300) });
  });
});
