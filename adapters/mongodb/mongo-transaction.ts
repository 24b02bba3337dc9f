import type { ClientSession, MongoClient } from 'mongodb';

/** Carries a business outcome out of a transaction callback; throwing it makes the driver abort the transaction. */
class TransactionOutcome<O> extends Error {
  constructor(readonly outcome: O) {
    super('transaction aborted with a business outcome');
  }
}

/**
 * Runs `work` in a multi-document transaction (replica set or mongos; see connectMongo). `withTransaction` retries
 * the whole callback on transient errors (write conflicts between concurrent transactions), so `work` must only issue
 * writes derived from its inputs. Calling `abort(outcome)` rolls back every write made so far and makes the call
 * resolve to `outcome`; any other error rolls back and propagates.
 *
 * With `client` null (a standalone server accepted by connectMongo's `allowStandalone`) `work` runs once without a
 * session: every write still applies its own conditions, but nothing is rolled back — callers that must undo a write
 * on `abort` do so themselves (see MongoWalletRepository).
 */
export async function inTransaction<T, O = never>(
  client: MongoClient | null,
  work: (session: ClientSession | undefined, abort: (outcome: O) => never) => Promise<T>,
): Promise<T | O> {
  const abort = (outcome: O): never => {
    throw new TransactionOutcome(outcome);
  };
  try {
    if (client === null) return await work(undefined, abort);
    return await client.withSession((session) =>
      session.withTransaction(() => work(session, abort), {
        readConcern: { level: 'snapshot' },
        writeConcern: { w: 'majority' },
        readPreference: 'primary',
      }),
    );
  } catch (error) {
    if (error instanceof TransactionOutcome) return error.outcome as O;
    throw error;
  }
}
