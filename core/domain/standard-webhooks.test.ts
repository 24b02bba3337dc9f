import { describe, expect, it } from 'vitest';
import { signStandardWebhook, standardWebhookSignatures } from './standard-webhooks.js';

describe('Standard Webhooks signature', () => {
  it('matches the known answer of its doc comment (openssl)', () => {
    expect(signStandardWebhook('e1', 1700000000, '{"a":1}', 'test_secret')).toBe('v1,+izqTdmXoZ7W3fAyVyLUnIwsIbKfAF0Lvoyk5kuGnlo=');
    expect(signStandardWebhook('e1', '1700000000', '{"a":1}', 'test_secret')).toBe('v1,+izqTdmXoZ7W3fAyVyLUnIwsIbKfAF0Lvoyk5kuGnlo=');
  });

  it('one space-separated entry per secret, newest first', () => {
    const entries = standardWebhookSignatures('e1', 1700000000, '{"a":1}', ['test_secret', 'other']).split(' ');
    expect(entries).toEqual(['v1,+izqTdmXoZ7W3fAyVyLUnIwsIbKfAF0Lvoyk5kuGnlo=', signStandardWebhook('e1', 1700000000, '{"a":1}', 'other')]);
  });
});
