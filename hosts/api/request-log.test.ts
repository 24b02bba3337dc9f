import { runs } from '../../contracts-tests/support/depth.js';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { pino, type LoggerOptions } from 'pino';
import { describe, expect, it } from 'vitest';
import { REDACT_PATHS } from './logger.js';
import { logRequestLine, RequestLog, type RequestLine } from './request-log.js';

/** A pino logger writing into an array of chunks, with a fixed time so two lines can be compared byte for byte. */
function capture(options: LoggerOptions = {}): { logger: pino.Logger; chunks: string[] } {
  const chunks: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { chunks.push(String(chunk)); done(); } });
  const logger = pino({
    level: 'info', base: { service: 'custody-api' }, redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: () => ',"time":1779703200000', ...options,
  }, sink);
  return { logger, chunks };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Characters that need each kind of escape (quote, backslash, controls, U+2028) and multi-byte ones. Well-formed text
 * only: for a lone surrogate pino writes the raw code unit and JSON.stringify an escape; no request line can carry one
 * (request ids are [A-Za-z0-9._:-], paths percent-encoded, routes and codes ASCII).
 */
const tricky = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '/', '"', '\\', '\n', '\u0001', '\u001f', 'é', '中', '\u{1d11e}', '\u2028'), maxLength: 120 });

const lineArb: fc.Arbitrary<RequestLine> = fc.record({
  reqId: tricky,
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
  path: tricky,
  route: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
  status: fc.integer({ min: 100, max: 599 }),
  code: fc.option(fc.string({ unit: 'grapheme-ascii', maxLength: 30 }), { nil: undefined }),
  user: fc.option(fc.oneof(fc.integer({ min: 1, max: 1e9 }), fc.string({ maxLength: 20 })), { nil: undefined }),
  ms: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1e6 }), fc.constant(0.3)),
});

describe('RequestLog: request lines written by hand, batched per turn', () => {
  it('writes every line byte for byte as pino would (quotes, controls, long strings, absent fields)', async () => {
    await fc.assert(fc.asyncProperty(fc.array(lineArb, { minLength: 1, maxLength: 5 }), async (lines) => {
      const fast = capture();
      const slow = capture();
      for (const line of lines) {
        logRequestLine(fast.logger, line);
        slow.logger.info(line, 'request');
      }
      await turn();
      expect(fast.chunks.join('')).toBe(slow.chunks.join(''));
    }), { numRuns: runs(200) });
  });

  it('hands a turn\'s lines to the destination in one write, in order, and nothing before the turn ends', async () => {
    const { logger, chunks } = capture();
    for (let i = 0; i < 5; i++) logRequestLine(logger, { reqId: `r${i}`, method: 'GET', path: '/api/x', status: 200, ms: 1 });
    expect(chunks).toEqual([]);
    await turn();
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.trimEnd().split('\n').map((l) => (JSON.parse(l) as { reqId: string }).reqId)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  });

  it('writes at 16 KiB without waiting for the turn to end', () => {
    const { logger, chunks } = capture();
    const path = `/api/${'p'.repeat(1_000)}`;
    for (let i = 0; i < 20; i++) logRequestLine(logger, { reqId: `r${i}`, method: 'GET', path, status: 200, ms: 1 });
    expect(chunks.length).toBeGreaterThanOrEqual(1);
    expect(chunks[0]!.length).toBeGreaterThanOrEqual(16_384);
  });

  it('drops lines when the logger\'s level is above info, and writes them again once it is lowered', async () => {
    const { logger, chunks } = capture({ level: 'warn' });
    logRequestLine(logger, { reqId: 'quiet', method: 'GET', path: '/api/x', status: 200, ms: 1 });
    await turn();
    expect(chunks).toEqual([]);
    logger.level = 'info';
    logRequestLine(logger, { reqId: 'loud', method: 'GET', path: '/api/x', status: 200, ms: 1 });
    await turn();
    expect(chunks.join('')).toContain('"reqId":"loud"');
  });

  it('leaves loggers it cannot reproduce to pino (log and level formatters, message key, mixin, a field serializer)', async () => {
    const configs: LoggerOptions[] = [
      { formatters: { log: (o) => ({ ...o, extra: true }) } },
      { formatters: { level: (label) => ({ level: label }) } },
      { messageKey: 'message' },
      { mixin: () => ({ mixed: 1 }) },
      { serializers: { path: () => '[path]' } },
      { nestedKey: 'payload' },
    ];
    for (const options of configs) {
      const { logger, chunks } = capture(options);
      const slow = capture(options);
      expect(RequestLog.of(logger)).toBeNull();
      const line = { reqId: 'r', method: 'GET', path: '/api/x', status: 200, ms: 1 };
      logRequestLine(logger, line);
      slow.logger.info(line, 'request');
      await turn();
      expect(chunks.join('')).toBe(slow.chunks.join(''));
    }
  });

  it('keeps child bindings, as a child logger\'s own lines do', async () => {
    const { logger, chunks } = capture();
    const child = logger.child({ instance: 'a"b' });
    logRequestLine(child, { reqId: 'r', method: 'GET', path: '/api/x', status: 200, ms: 1 });
    child.info({ reqId: 'r', method: 'GET', path: '/api/x', status: 200, ms: 1 }, 'request');
    await turn();
    const lines = chunks.join('').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('"instance":"a\\"b"');
    expect(lines[0]).toBe(lines[1]);
  });
});
