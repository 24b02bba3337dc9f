import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';

/** Issue #13: the HTTP server's own 400/431 answers (before any route runs) carry the envelope. */
let h: ApiHarness;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h.close(); });

/** Sends raw bytes and reads until the server closes the connection. */
function raw(bytes: string): Promise<string> {
  const { hostname, port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parse(response: string): { status: number; headers: string; body: any } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) };
}

describe('node:http client errors answer with the envelope', () => {
  it('bad framing is 400 BAD-REQUEST', async () => {
    const answer = parse(await raw('GARBAGE / NOPE\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 'BAD-REQUEST', message: 'malformed HTTP request', data: {} });
    expect(answer.headers).toContain('content-type: application/json');
  });

  it('a conflicting Content-Length is 400 BAD-REQUEST', async () => {
    const answer = parse(await raw('POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello'));
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('BAD-REQUEST');
  });

  it('headers over 16 KiB are 431 HEADERS-TOO-LARGE', async () => {
    const answer = parse(await raw(`GET /api/healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`));
    expect(answer.status).toBe(431);
    expect(answer.body).toEqual({ code: 'HEADERS-TOO-LARGE', message: 'request headers exceed 16 KiB', data: {} });
  });

  it('a well-formed request on the same server is unaffected', async () => {
    const answer = await h.call('GET', '/api/healthz');
    expect(answer.status).toBe(200);
  });
});
