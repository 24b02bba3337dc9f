import { MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { InfrastructureError } from '../../core/domain/errors.js';
import { connectMongo, mongoClientOptions, REQUIRED_DURABILITY, weakeningOptions } from './mongo-connection.js';
import { refuseBigints, storeUnavailable } from './mongo-support.js';

// No MongoDB runs here: these pin the client options and the error classification the store relies on.
describe('MongoDB client options', () => {
  it('fix majority journaled writes, primary reads, and a 30 s lifetime selection timeout', () => {
    const options = mongoClientOptions();
    expect(options.writeConcern).toEqual({ w: 'majority', journal: true });
    expect(options.readPreference).toBe('primary');
    expect(options.serverSelectionTimeoutMS).toBe(30_000);
    expect(mongoClientOptions({ operationServerSelectionTimeoutMS: 45_000 }).serverSelectionTimeoutMS).toBe(45_000);
    expect(options).toMatchObject(REQUIRED_DURABILITY);
  });

  it('a URL that weakens durability is named option by option; the safe ones pass', () => {
    expect(weakeningOptions('mongodb://db:27017/custody?replicaSet=rs0')).toEqual([]);
    expect(weakeningOptions('mongodb://db/x?replicaSet=rs0&w=majority&journal=true&readPreference=primary')).toEqual([]);
    expect(weakeningOptions('mongodb://db/x?w=1&journal=false&readPreference=secondaryPreferred&readConcernLevel=local&wtimeoutMS=100')).toEqual([
      'w=1 (must be majority)', 'journal=false (must be true)', 'readPreference=secondaryPreferred (must be primary)',
      'readConcernLevel=local (must be majority)', 'wtimeoutMS (a write timing out before majority is acknowledged is ambiguous)',
    ]);
    expect(weakeningOptions('mongodb://db/x?W=0')).toEqual(['w=0 (must be majority)']);
  });

  it('connectMongo refuses such a URL before connecting, as a permanent failure naming the option, password redacted', async () => {
    const error = await connectMongo('mongodb://app:pw-secret@127.0.0.1:1/x?w=1').then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(InfrastructureError);
    expect((error as InfrastructureError).transient).toBe(false);
    expect((error as Error).message).toMatch(/weakens the store's durability: w=1/);
    expect((error as Error).message).not.toContain('pw-secret');
  });

  it('the start-up probe still fails within its own short timeout', async () => {
    const started = performance.now();
    await expect(connectMongo('mongodb://10.255.255.1:27017/x', { serverSelectionTimeoutMS: 300 })).rejects.toThrow(/MONGODB_URL/);
    expect(performance.now() - started).toBeLessThan(5_000);
  }, 20_000);
});

describe('MongoDB error classification', () => {
  it('authentication, authorisation and validation failures are permanent; an outage is transient', () => {
    for (const [code, reason] of [[18, /authentication failed/], [13, /not authorised/], [121, /validation/]] as const) {
      const error = storeUnavailable('insert', new MongoServerError({ message: 'x', code }));
      expect(error.transient).toBe(false);
      expect(error.message).toMatch(reason);
    }
    const bson = new Error('cannot encode');
    bson.name = 'BSONError';
    expect(storeUnavailable('insert', bson).transient).toBe(false);
    expect(storeUnavailable('insert', new MongoServerError({ message: 'primary stepped down', code: 189 })).transient).toBe(true);
    expect(storeUnavailable('read', new Error('connection reset')).transient).toBe(true);
  });
});

describe('bigints never reach BSON', () => {
  it('a document holding a bigint anywhere is refused, naming the path, instead of being written as a wrapping Long', () => {
    const doc = { _id: 'T1', amount: '5', steps: [{ status: 6, tx: { fee: 1n << 70n } }] };
    expect(() => refuseBigints(doc, 'collection task')).toThrow(/collection task: steps\[0\]\.tx\.fee is a bigint/);
    const clean = { _id: 'T1', amount: '5', at: new Date(0), steps: [{ status: 6 }] };
    expect(refuseBigints(clean, 'x')).toBe(clean);
  });
});
