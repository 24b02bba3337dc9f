/**
 * The money rule of write-ahead.ts, on a scripted chain (every answer a node can give, in any combination): a
 * transaction is dead only when the node does not know it, knows every block up to a solidified head whose time is
 * past its expiration, and still does not know it; everything else rebroadcasts the same bytes or waits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainError } from '../../domain/errors.js';
import type { TransactionState } from '../../domain/model/chain.js';
import type { PreparedTransaction } from '../../domain/model/command.js';
import type { ChainGateway } from '../../ports/chain-gateway.port.js';
import { followOperation, isValidationRefusal, type Completion } from './write-ahead.js';

const TX: PreparedTransaction = { txid: 'ab'.repeat(32), signedJson: '{}', expiresAt: 1_000_000, broadcastAt: 900_000 };

interface Script {
  readonly states: TransactionState[];
  readonly solid: { number: number; timestamp: number };
  readonly head: { number: number; timestamp: number };
  readonly broadcast: 'ok' | 'refused' | 'lost';
}

/** A gateway answering from the script, recording the broadcasts. */
function scripted(script: Script): { chain: ChainGateway; broadcasts: string[] } {
  const states = [...script.states];
  const broadcasts: string[] = [];
  const chain = {
    getTransaction: async () => states.length > 1 ? states.shift()! : states[0]!,
    solidifiedHead: async () => script.solid,
    head: async () => script.head,
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
      async (states, solid, head, broadcast, completion) => {
        const { chain, broadcasts } = scripted({ states, solid, head, broadcast });
        const result = await followOperation(chain, TX, completion);
        const [first, second] = [states[0]!, states[1] ?? states[0]!];
        if (result.kind === 'dead') {
          expect(first.state).toBe('unknown');
          expect(second.state).toBe('unknown');
          expect(TX.expiresAt).toBeLessThan(solid.timestamp);
          expect(head.number).toBeGreaterThanOrEqual(solid.number);
          expect(broadcasts).toEqual([]);
        }
        if (result.kind === 'reverted') expect([first.state, second.state]).toContain('failed');
        if (result.kind === 'confirmed') expect([first.state, second.state].some((s) => s !== 'unknown') || broadcast === 'ok').toBe(true);
        for (const txid of broadcasts) expect(txid).toBe(TX.txid);
        if (first.state === 'unknown' && TX.expiresAt >= solid.timestamp) {
          expect(broadcasts).toEqual([TX.txid]);
          if (broadcast === 'ok') {
            expect(result).toEqual(completion === 'accepted' ? { kind: 'confirmed', state: null } : { kind: 'waiting', refusal: null });
          } else {
            expect(result).toMatchObject({ kind: 'waiting', refusal: expect.any(String) });
          }
        }
      },
    ));
  });

  it('a node lagging behind its solidified view proves nothing: waiting, not dead', async () => {
    const { chain } = scripted({ states: [{ state: 'unknown' }], solid: { number: 50, timestamp: 2_000_000 }, head: { number: 40, timestamp: 1_900_000 }, broadcast: 'ok' });
    expect(await followOperation(chain, TX, 1)).toEqual({ kind: 'waiting', refusal: 'the node is behind its solidified view' });
  });

  it('unknown but unexpired at the solidified head: the same bytes again; a refusal is kept, not a verdict', async () => {
    const { chain, broadcasts } = scripted({ states: [{ state: 'unknown' }], solid: { number: 50, timestamp: 999_999 }, head: { number: 60, timestamp: 1_100_000 }, broadcast: 'refused' });
    const result = await followOperation(chain, TX, 'solidified');
    expect(result).toMatchObject({ kind: 'waiting' });
    expect(result.kind === 'waiting' && result.refusal).toMatch(/^TAPOS_ERROR: /);
    expect(broadcasts).toEqual([TX.txid]);
  });

  it('found on the second look (included meanwhile): classified by what the node now says', async () => {
    const { chain } = scripted({ states: [{ state: 'unknown' }, confirmed(5, true)], solid: { number: 50, timestamp: 2_000_000 }, head: { number: 60, timestamp: 2_100_000 }, broadcast: 'ok' });
    expect(await followOperation(chain, TX, 3)).toMatchObject({ kind: 'confirmed' });
  });

  it('validation refusals judge the operation; freshness refusals and lost replies do not', () => {
    expect(isValidationRefusal('CONTRACT_VALIDATE_ERROR: balance is not sufficient')).toBe(true);
    expect(isValidationRefusal('SIGERROR: bad signature')).toBe(true);
    for (const other of ['TAPOS_ERROR: Tapos check error.', 'TRANSACTION_EXPIRATION_ERROR: expired', 'CHAIN-NODE-UNAVAILABLE: reset', 'HTTP_403: quota', null, undefined]) {
      expect(isValidationRefusal(other)).toBe(false);
    }
  });
});
