import { ConcurrencyConflict } from '../domain/errors.js';

/**
 * Re-runs an optimistic read-modify-write when the store reports a concurrent change; the work must re-read.
 * After `attempts` conflicts the last one propagates.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ConcurrencyConflict) || attempt >= attempts) throw error;
    }
  }
}
