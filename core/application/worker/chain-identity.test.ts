import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainMismatch, chainMismatchMessage, type ChainEvidence } from './chain-identity.js';

const G = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const at = (number: number, hash = `h${number}`): { number: number; hash: string } => ({ number, hash });
const base: ChainEvidence = {
  storedGenesis: G, nodeGenesis: G, cursor: 100, head: at(105), recordedAtHead: null, oldestKept: 37, forkBeyondWindow: false,
};

describe('chainMismatch: is the node on the chain the cursor was scanning?', () => {
  it('follows the hand-copied table of issue #34', () => {
    const table: [string, Partial<ChainEvidence>, ReturnType<typeof chainMismatch>][] = [
      ['same genesis, head ahead', {}, null],
      ['same genesis, head at the cursor', { head: at(100), recordedAtHead: 'h100' }, null],
      ['another genesis, head ahead (a restarted devnet that passed the cursor)', { nodeGenesis: OTHER }, 'genesis'],
      ['another genesis, head below', { nodeGenesis: OTHER, head: at(3) }, 'genesis'],
      ['a legacy cursor (no genesis stored), head ahead', { storedGenesis: undefined, nodeGenesis: OTHER }, null],
      ['head below the cursor and every kept block', { head: at(3), recordedAtHead: null }, 'behind'],
      ['head below the cursor, keeping no blocks (a start ahead of the head, a legacy cursor)', { head: at(98), oldestKept: null }, null],
      ['head below the cursor on another block inside the kept ones (a reorg onto a shorter branch)', { head: at(98, 'x'), recordedAtHead: 'h98' }, null],
      ['head below the cursor on a scanned block (a node lagging on the same chain)', { head: at(98), recordedAtHead: 'h98' }, null],
      ['head below the cursor at a height a legacy cursor recorded without hash', { head: at(98), recordedAtHead: '' }, null],
      ['no common block in the kept window', { forkBeyondWindow: true }, 'fork'],
      ['no common block and another genesis', { forkBeyondWindow: true, nodeGenesis: OTHER }, 'genesis'],
    ];
    for (const [name, change, expected] of table) expect(chainMismatch({ ...base, ...change }), name).toBe(expected);
  });

  it('property: another genesis is always a mismatch; the same chain seen ahead or on a scanned block never is', () => {
    const evidence = fc.record({
      storedGenesis: fc.option(fc.constantFrom(G, OTHER), { nil: undefined }), nodeGenesis: fc.constantFrom(G, OTHER),
      cursor: fc.nat({ max: 1_000 }), head: fc.record({ number: fc.nat({ max: 1_000 }), hash: fc.constantFrom('x', 'y') }),
      recordedAtHead: fc.constantFrom(null, '', 'x', 'y'), oldestKept: fc.option(fc.nat({ max: 1_000 }), { nil: null }), forkBeyondWindow: fc.boolean(),
    });
    fc.assert(fc.property(evidence, (e) => {
      const verdict = chainMismatch(e);
      if (e.storedGenesis !== undefined && e.storedGenesis !== e.nodeGenesis) expect(verdict).toBe('genesis');
      const sameChain = (e.storedGenesis === undefined || e.storedGenesis === e.nodeGenesis) && !e.forkBeyondWindow
        && (e.head.number >= e.cursor || e.recordedAtHead === e.head.hash || e.recordedAtHead === ''
          || e.oldestKept === null || e.head.number >= e.oldestKept);
      expect(verdict === null).toBe(sameChain);
    }));
  });

  it('says what was seen, that scanning stopped, and what to do', () => {
    const message = chainMismatchMessage('genesis', { ...base, nodeGenesis: OTHER });
    expect(message).toContain(`its genesis block is ${OTHER}, the store's chain began with ${G}`);
    expect(message).toContain('the balance scanner stopped');
    expect(message).toContain('Point TRON_FULL_HOST at the chain of this store');
    expect(chainMismatchMessage('behind', { ...base, head: at(3) })).toContain('its head 3 is below the scan cursor 100 and every block');
  });
});
