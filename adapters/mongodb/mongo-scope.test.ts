import type { ClientSession } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { withSessionArgument } from './mongo-transaction.js';

// The driver's own calls need a server (none runs here: the MongoDB suites print SKIPPED); this is the one piece of
// the atomic scope (decision 144) that runs without one: where the scope's session goes in each Collection call.
describe('MongoDB atomic scope: the session in a Collection call\'s options', () => {
  const session = { id: 'scope' } as unknown as ClientSession;
  const other = { id: 'given' } as unknown as ClientSession;

  it('goes into the options argument of each method, after its filter, document or update', () => {
    expect(withSessionArgument('insertOne', [{ a: 1 }], session)).toEqual([{ a: 1 }, { session }]);
    expect(withSessionArgument('findOne', [{ a: 1 }, { sort: { seq: -1 } }], session)).toEqual([{ a: 1 }, { sort: { seq: -1 }, session }]);
    expect(withSessionArgument('updateOne', [{ _id: 'x' }, { $inc: { n: 1 } }, { upsert: true }], session))
      .toEqual([{ _id: 'x' }, { $inc: { n: 1 } }, { upsert: true, session }]);
    expect(withSessionArgument('findOneAndUpdate', [{ _id: 'x' }, { $set: { v: 2 } }], session)).toEqual([{ _id: 'x' }, { $set: { v: 2 } }, { session }]);
    expect(withSessionArgument('distinct', ['userId', { a: 1 }], session)).toEqual(['userId', { a: 1 }, { session }]);
  });

  it('fills a missing filter with {} rather than taking the options for it', () => {
    expect(withSessionArgument('find', [], session)).toEqual([{}, { session }]);
    expect(withSessionArgument('countDocuments', [], session)).toEqual([{}, { session }]);
  });

  it('keeps a session the caller gave, and leaves methods that take none as they are', () => {
    expect(withSessionArgument('insertOne', [{ a: 1 }, { session: other }], session)).toEqual([{ a: 1 }, { session: other }]);
    expect(withSessionArgument('createIndex', [{ a: 1 }], session)).toEqual([{ a: 1 }]);
  });
});
