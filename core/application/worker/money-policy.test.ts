/**
 * The money policy, exhaustively and without a chain: every (decision, send answer, evidence or error class) ×
 * (open?, must finish?) cell against the rules it exists for. The stage protocol switches on these tables' actions
 * and has no rule of its own, so these are the money rule's tests.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DECIDED, FOLLOWED, ON_ERROR, SENT, onAwaited, onDecided, onError, onFollowed, onSent, type Decision, type ErrorClass, type Evidence,
} from './money-policy.js';

const EVIDENCE = Object.keys(FOLLOWED) as Evidence[];
const ERRORS = Object.keys(ON_ERROR) as ErrorClass[];
const DECISIONS = Object.keys(DECIDED) as Decision[];
const SENDS = Object.keys(SENT) as (keyof typeof SENT)[];
const BOOL = [false, true];

/** Every cell of the five tables, flattened. */
const cells = [
  ...DECISIONS.flatMap((d) => BOOL.map((mustFinish) => ({ table: 'decided', input: d, open: false, mustFinish, action: onDecided(d, mustFinish) as string }))),
  ...SENDS.flatMap((e) => BOOL.map((mustFinish) => ({ table: 'sent', input: e, open: true, mustFinish, action: onSent(e, mustFinish) as string }))),
  ...EVIDENCE.flatMap((e) => BOOL.map((mustFinish) => ({ table: 'followed', input: e, open: true, mustFinish, action: onFollowed(e, mustFinish) as string }))),
  ...EVIDENCE.flatMap((e) => BOOL.map((mustFinish) => ({ table: 'awaited', input: e, open: true, mustFinish, action: onAwaited(e, mustFinish) as string }))),
  ...ERRORS.flatMap((e) => BOOL.flatMap((open) => BOOL.map((mustFinish) => ({ table: 'error', input: e, open, mustFinish, action: onError(e, open, mustFinish) as string })))),
];
const onChain = cells.filter((c) => c.table === 'sent' || c.table === 'followed' || c.table === 'awaited');

describe('money policy', () => {
  it('a step that must finish never fails, whatever happens: not by its own decision, the chain\'s evidence or an error', () => {
    for (const cell of cells.filter((c) => c.mustFinish)) expect(cell.action, JSON.stringify(cell)).not.toBe('fail');
    // Its own decision to fail retries; a step that may fail fails so.
    expect(onDecided('fail', true)).toBe('retry');
    expect(onDecided('fail', false)).toBe('fail');
  });

  it('a step\'s own decision is carried out as decided (but for a failure where the step must finish)', () => {
    for (const cell of cells.filter((c) => c.table === 'decided' && !(c.input === 'fail' && c.mustFinish))) expect(cell.action).toBe(cell.input);
    // Only a step's decision sends: no evidence or error leads to a second transaction.
    for (const cell of cells.filter((c) => c.table !== 'decided')) expect(cell.action, JSON.stringify(cell)).not.toBe('send');
  });

  it('with a transaction open, no error ends the workflow: only chain evidence does', () => {
    fc.assert(fc.property(fc.constantFrom(...ERRORS), fc.boolean(), (error, mustFinish) => {
      expect(['retry', 'stop', 'crash']).toContain(onError(error, true, mustFinish));
    }));
  });

  it('only a confirmed transaction completes a step, and a confirmed one always does', () => {
    for (const cell of onChain) expect(cell.action === 'complete', JSON.stringify(cell)).toBe(cell.input === 'confirmed');
    for (const cell of cells.filter((c) => c.table === 'error')) expect(cell.action).not.toBe('complete');
  });

  it('a transaction that may still land (waiting, or refused a send) is never dropped or failed', () => {
    for (const cell of onChain.filter((c) => c.input === 'waiting' || c.input === 'refused')) {
      expect(['wait', 'retry', 'advance'], JSON.stringify(cell)).toContain(cell.action);
    }
  });

  it('a first send: accepted, it completes a step that completes on acceptance and else ends the stage (released in the write-ahead); refused, it retries', () => {
    for (const mustFinish of BOOL) {
      expect(onSent('confirmed', mustFinish)).toBe('complete');
      expect(onSent('waiting', mustFinish)).toBe('advance');
      expect(onSent('refused', mustFinish)).toBe('retry');
    }
    for (const cell of cells.filter((c) => c.action === 'advance')) expect(cell.table).toBe('sent');
  });

  it('a step plans again only from a transaction that cannot move anything more (dead, or reverted)', () => {
    for (const cell of cells.filter((c) => c.action === 'replan' || c.action === 'drop-and-retry')) {
      expect(['dead', 'dead-refused', 'reverted'], JSON.stringify(cell)).toContain(cell.input);
    }
    // A revert is dropped and planned again after the backoff; a loss that never landed is planned again at once.
    for (const cell of cells.filter((c) => c.action === 'drop-and-retry')) expect(cell.input).toBe('reverted');
  });

  it('a step that may fail fails on a reverted transaction and on one a node refused as invalid, and plans again after a plainly dead one', () => {
    expect(onFollowed('reverted', false)).toBe('fail');
    expect(onFollowed('dead-refused', false)).toBe('fail');
    expect(onFollowed('dead', false)).toBe('replan');
    expect(onFollowed('reverted', true)).toBe('drop-and-retry');
    for (const evidence of ['dead', 'dead-refused'] as const) expect(onFollowed(evidence, true)).toBe('replan');
    for (const evidence of ['reverted', 'dead', 'dead-refused'] as const) {
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
