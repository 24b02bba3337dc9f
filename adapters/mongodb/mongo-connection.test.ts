import { MongoClient, MongoServerError } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ConcurrencyConflict, DomainError, InfrastructureError } from '../../core/domain/errors.js';
import { anEvent } from '../../contracts-tests/support/fixtures.js';
import { ManualClock } from '../memory/manual-clock.js';
import { createMongoAdapters } from './create-mongo-adapters.js';
import { connectMongo, redactMongoUrl } from './mongo-connection.js';
import { guarded, isDuplicateKey, storeUnavailable } from './mongo-support.js';

// No server runs here: these check the failure paths, which must be fast, name MONGODB_URL, and never leak a
// driver error or a password. Port 1 on loopback refuses connections at once.
const UNREACHABLE = 'mongodb://127.0.0.1:1/custody';

async function rejection(promise: Promise<unknown>): Promise<InfrastructureError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(InfrastructureError);
  return error as InfrastructureError;
}

describe('connectMongo', () => {
  it('fails fast on an unreachable server with a message naming MONGODB_URL', async () => {
    const started = performance.now();
    const error = await rejection(connectMongo(UNREACHABLE, { serverSelectionTimeoutMS: 500 }));
    // The driver's default would wait 30 s; a loaded CI machine may add a few seconds to the 0.5 s asked for.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe('SERVICE-UNAVAILABLE');
    expect(error.transient).toBe(true);
    expect(error.message).toMatch(/MONGODB_URL/);
    expect(error.message).toContain('127.0.0.1:1');
    expect(error.message).toMatch(/is unreachable/);
  }, 20_000);

  it('refuses a missing or blank URL without trying to connect', async () => {
    for (const url of [undefined, null, '', '   ']) {
      const error = await rejection(connectMongo(url));
      expect(error.message).toMatch(/MONGODB_URL is not set/);
      expect(error.transient).toBe(false);
    }
  });

  it('refuses a malformed connection string, naming MONGODB_URL', async () => {
    const error = await rejection(connectMongo('http://localhost:27017'));
    expect(error.message).toMatch(/MONGODB_URL .* is not a valid connection string/);
    expect(error.transient).toBe(false);
  });

  it('never shows the password of the URL', async () => {
    const error = await rejection(connectMongo('mongodb://alice:s3cr3t@127.0.0.1:1/custody', { serverSelectionTimeoutMS: 300 }));
    expect(error.message).not.toContain('s3cr3t');
    expect(error.message).toContain('alice:***@127.0.0.1:1');
    expect(redactMongoUrl('mongodb+srv://bob:p%40ss@cluster.example.net/db?x=1')).toBe('mongodb+srv://bob:***@cluster.example.net/db?x=1');
    expect(redactMongoUrl('mongodb://127.0.0.1:27017')).toBe('mongodb://127.0.0.1:27017');
  }, 20_000);
});

describe('MongoDB repositories on an unreachable server', () => {
  const client = new MongoClient(UNREACHABLE, { serverSelectionTimeoutMS: 300 });
  afterAll(() => client.close());
  const stores = createMongoAdapters({ connection: { client, db: client.db('custody'), transactions: true }, clock: new ManualClock() });

  it('turn driver failures into a transient SERVICE-UNAVAILABLE, reads and transactional writes alike', async () => {
    const calls = [() => stores.accounts.findById(1), () => stores.uow.commit({ events: [anEvent()] }), () => stores.ids.nextInt('user')];
    for (const call of calls) {
      const error = await rejection(call());
      expect(error.code).toBe('SERVICE-UNAVAILABLE');
      expect(error.transient).toBe(true);
    }
    const error = await rejection(stores.tasks.claimDue(0, 'w', 1_000));
    expect(error.message).toMatch(/MongoDB collection task claim failed/);
  }, 20_000);
});

describe('MongoDB error translation', () => {
  it('classifies duplicate keys by the index key pattern', () => {
    const dup = new MongoServerError({ message: 'E11000', code: 11000, keyPattern: { lockedAddress: 1 } });
    expect(isDuplicateKey(dup)).toBe(true);
    expect(isDuplicateKey(dup, 'lockedAddress')).toBe(true);
    expect(isDuplicateKey(dup, '_id')).toBe(false);
    expect(isDuplicateKey(new MongoServerError({ message: 'other', code: 112 }))).toBe(false);
    expect(isDuplicateKey(new Error('E11000'))).toBe(false);
  });

  it('names a standalone server as the reason when transactions are refused, as a permanent failure', () => {
    const error = storeUnavailable('unit of work commit', new MongoServerError({ message: 'Transaction numbers are only allowed', code: 20 }));
    expect(error.message).toMatch(/not a replica set member/);
    expect(error.transient).toBe(false);
  });

  it('lets the ports\' own errors and programming errors through unchanged', async () => {
    const own = [new DomainError('BIZ-COMMAND-LOCKED'), new ConcurrencyConflict('command', 'C1'), new TypeError('bug')];
    for (const error of own) await expect(guarded('op', () => Promise.reject(error))).rejects.toBe(error);
  });
});
