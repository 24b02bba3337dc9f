import { describe, expect, it } from 'vitest';
import { failureReply, okReply, toHttpResponse } from './envelope.js';

describe('toHttpResponse', () => {
  it('keeps status and body, adds the base headers, and lets the reply override the per-request ones', async () => {
    const reply = failureReply('RATE-LIMITED', { headers: { 'Retry-After': '7', 'x-ratelimit-remaining': '0' } });
    const response = toHttpResponse(reply, { 'x-request-id': 'req-1', 'X-RateLimit-Remaining': '3', 'x-ratelimit-limit': '60' });
    expect(response.status).toBe(429);
    expect(await response.text()).toBe(reply.body);
    expect(Object.fromEntries(response.headers)).toEqual({
      'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff',
      'x-request-id': 'req-1', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'retry-after': '7',
    });
  });

  it('lets a raw reply replace the content type', () => {
    const response = toHttpResponse({ status: 200, body: '<p>', headers: { 'Content-Type': 'text/html' } }, {});
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(toHttpResponse(okReply({ a: 1 }, 201), {}).status).toBe(201);
  });
});
