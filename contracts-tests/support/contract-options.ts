import { afterEach, beforeEach } from 'vitest';

/** A subject may hold connections; the suites call `close` after every test. */
export interface Closable {
  close?(): Promise<void> | void;
}

/** Builds a fresh, empty subject; called before every test of a suite. */
export type MakeSubject<S> = () => Promise<S> | S;

/** Options every store-port suite accepts. */
export interface ContractOptions<S> {
  /** fast-check runs of property and model-based tests (each run makes a fresh subject). Default 50. */
  readonly numRuns?: number;
  /** How many concurrent callers the race tests start. Default 50. */
  readonly concurrency?: number;
  /** Adds adapter-specific tests inside the suite's `describe`, with the same subject factory. */
  readonly extraTestsFn?: (makeSubject: MakeSubject<S>) => void;
}

/** Runs `body` against a fresh subject and closes it afterwards, even when the body fails. */
export async function withSubject<S extends Closable, R>(makeSubject: MakeSubject<S>, body: (subject: S) => Promise<R>): Promise<R> {
  const subject = await makeSubject();
  try {
    return await body(subject);
  } finally {
    await subject.close?.();
  }
}

/**
 * Makes a fresh subject before every test of the enclosing `describe` and closes it after; returns its getter.
 * Must be called inside `describe`.
 */
export function useFreshSubject<S extends Closable>(makeSubject: MakeSubject<S>): () => S {
  let subject: S | undefined;
  beforeEach(async () => {
    subject = await makeSubject();
  });
  afterEach(async () => {
    await subject?.close?.();
    subject = undefined;
  });
  return () => {
    if (subject === undefined) throw new Error('the subject exists only inside a test');
    return subject;
  };
}
