import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryIdGenerator } from './memory-id-generator.js';
import { MemoryStore } from './memory-store.js';
import { SeededIdGenerator } from './seeded-id-generator.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.each([
  ['MemoryIdGenerator', () => new MemoryIdGenerator(new MemoryStore())],
  ['SeededIdGenerator', () => new SeededIdGenerator('s')],
])('%s', (_name, make) => {
  it('numbers each sequence from 1 independently; concurrent calls never share a number', async () => {
    const ids = make();
    expect([await ids.nextInt('user'), await ids.nextInt('user'), await ids.nextInt('wallet_address')]).toEqual([1, 2, 1]);
    const many = await Promise.all(Array.from({ length: 100 }, () => ids.nextInt('api_token')));
    expect(new Set(many).size).toBe(100);
    expect(Math.min(...many)).toBe(1);
    expect(Math.max(...many)).toBe(100);
  });

  it('makes v4 UUIDs, all distinct', () => {
    const ids = make();
    const uuids = Array.from({ length: 200 }, () => ids.uuid());
    for (const uuid of uuids) expect(uuid).toMatch(UUID_V4);
    expect(new Set(uuids).size).toBe(200);
  });

  it('gives exactly the requested number of bytes, fresh on every call', () => {
    const ids = make();
    fc.assert(fc.property(fc.integer({ min: 0, max: 100 }), (length) => {
      expect(ids.randomBytes(length)).toHaveLength(length);
    }));
    expect(Buffer.from(ids.randomBytes(32)).equals(Buffer.from(ids.randomBytes(32)))).toBe(false);
  });
});

describe('SeededIdGenerator', () => {
  it('replays the same UUIDs and bytes for the same seed, others for another seed', () => {
    const run = (seed: string) => {
      const ids = new SeededIdGenerator(seed);
      return [ids.uuid(), Buffer.from(ids.randomBytes(70)).toString('hex')];
    };
    expect(run('a')).toEqual(run('a'));
    expect(run('a')[0]).not.toBe(run('b')[0]);
  });

  it('a long byte string is not one block repeated', () => {
    const bytes = Buffer.from(new SeededIdGenerator(1).randomBytes(64));
    expect(bytes.subarray(0, 32).equals(bytes.subarray(32))).toBe(false);
  });
});
