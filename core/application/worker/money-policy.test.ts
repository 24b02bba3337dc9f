/**
 * The money policy, exhaustively and without a chain: every (evidence or error class) × (open?, must finish?) cell
 * against the rules it exists for. The runner has no rule of its own, so these are the money rule's tests.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FOLLOWED, ON_ERROR, onAwaited, onError, onFollowed, type ErrorClass, type Evidence } from './money-policy.js';

const EVIDENCE = Object.keys(FOLLOWED) as Evidence[];
const ERRORS = Object.keys(ON_ERROR) as ErrorClass[];
const BOOL = [false, true];

/** Every cell of the three tables, flattened. */
const cells = [
  ...EVIDENCE.flatMap((e) => BOOL.map((mustFinish) => ({ table: 'followed', input: e, open: true, mustFinish, action: onFollowed(e, mustFinish) }))),
  ...EVIDENCE.flatMap((e) => BOOL.map((mustFinish) => ({ table: 'awaited', input: e, open: true, mustFinish, action: onAwaited(e, mustFinish) }))),
  ...ERRORS.flatMap((e) => BOOL.flatMap((open) => BOOL.map((mustFinish) => ({ table: 'error', input: e, open, mustFinish, action: onError(e, open, mustFinish) })))),
];

describe('money policy', () => {
  it('a step that must finish never fails, whatever happens', () => {
    for (const cell of cells.filter((c) => c.mustFinish)) expect(cell.action, JSON.stringify(cell)).not.toBe('fail');
  });

  it('with a transaction open, no error ends the workflow: only chain evidence does', () => {
    fc.assert(fc.property(fc.constantFrom(...ERRORS), fc.boolean(), (error, mustFinish) => {
      expect(['retry', 'stop', 'crash']).toContain(onError(error, true, mustFinish));
    }));
  });

  it('only a confirmed transaction completes a step, and a confirmed one always does', () => {
    for (const cell of cells.filter((c) => c.table !== 'error')) {
      expect(cell.action === 'complete', JSON.stringify(cell)).toBe(cell.input === 'confirmed');
    }
    for (const cell of cells.filter((c) => c.table === 'error')) expect(cell.action).not.toBe('complete');
  });

  it('a transaction that may still land (waiting, or refused a resend) is never dropped or failed', () => {
    for (const cell of cells.filter((c) => c.input === 'waiting' || c.input === 'refused')) {
      expect(['wait', 'retry'], JSON.stringify(cell)).toContain(cell.action);
    }
  });

  it('a step plans again only from a transaction that cannot move anything more (dead, or reverted)', () => {
    for (const cell of cells.filter((c) => c.action === 'replan')) {
      expect(['dead', 'dead-refused', 'reverted'], JSON.stringify(cell)).toContain(cell.input);
    }
  });

  it('a step that may fail fails on a reverted transaction and on one a node refused as invalid, and plans again after a plainly dead one', () => {
    expect(onFollowed('reverted', false)).toBe('fail');
    expect(onFollowed('dead-refused', false)).toBe('fail');
    expect(onFollowed('dead', false)).toBe('replan');
    for (const evidence of ['reverted', 'dead', 'dead-refused'] as const) {
      expect(onFollowed(evidence, true)).toBe('replan');
      expect(onAwaited(evidence, true)).toBe('replan');
      // What a step waited for is lost: the step it fed cannot go on.
      expect(onAwaited(evidence, false)).toBe('fail');
    }
  });

  it('before anything is sent, business rules and permanent failures end a step that may fail; transient ones retry', () => {
    expect(onError('business', false, false)).toBe('fail');
    expect(onError('chain-permanent', false, false)).toBe('fail');
    expect(onError('infra-permanent', false, false)).toBe('fail');
    for (const transient of ['chain-transient', 'infra-transient', 'workflow-refusal'] as const) {
      for (const open of BOOL) for (const mustFinish of BOOL) expect(onError(transient, open, mustFinish)).toBe('retry');
    }
  });

  it('a lost lease stops and an unknown error crashes, in every column (the runner decides them before reading the store)', () => {
    for (const open of BOOL) {
      for (const mustFinish of BOOL) {
        expect(onError('lost-lease', open, mustFinish)).toBe('stop');
        expect(onError('unknown', open, mustFinish)).toBe('crash');
      }
    }
    for (const cell of cells.filter((c) => c.action === 'stop' || c.action === 'crash')) {
      expect(['lost-lease', 'unknown'], JSON.stringify(cell)).toContain(cell.input);
    }
  });
});
